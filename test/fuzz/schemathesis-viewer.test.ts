// The fuzz suite (schemathesis.ts) as the viewer.
import { describeFuzzRun } from './schemathesis.js';

describeFuzzRun('viewer');

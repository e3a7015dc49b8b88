// The fuzz suite (schemathesis.ts) as the analyst.
import { describeFuzzRun } from './schemathesis.js';

describeFuzzRun('analyst');

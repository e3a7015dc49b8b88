// The fuzz suite (schemathesis.ts) as the admin.
import { describeFuzzRun } from './schemathesis.js';

describeFuzzRun('admin');

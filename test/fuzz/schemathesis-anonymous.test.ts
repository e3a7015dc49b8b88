// The fuzz suite (schemathesis.ts) as an anonymous client (with the ingest token and an API key where those authenticate).
import { describeFuzzRun } from './schemathesis.js';

describeFuzzRun('anonymous');

// Preloaded (`node --import`) by every test process and every project process a test starts: compiles
// WebAssembly with V8's baseline compiler only. The embedded database is 9 MB of WebAssembly, and each
// of the hundreds of databases a run opens had V8's optimising compiler spend about 1.5 s of CPU on its
// hot functions in the background, a third of a typical test file's CPU on a 2-core machine; the tests
// check what the database does, never how fast. The service itself runs with V8's defaults.
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--liftoff-only');

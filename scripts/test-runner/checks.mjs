// The static checks `npm test` runs beside the test files (`--checks`): the linter and the type checker
// of the server and of the web UI. Each is a job of the run like a test file, so on a 2-core machine
// they use the time the test files spend waiting on servers and databases instead of running first.
import { fileURLToPath } from 'node:url';
import { runProcess } from './files.mjs';

const installed = (path) => fileURLToPath(new URL(`../../node_modules/${path}`, import.meta.url));
const eslint = installed('eslint/bin/eslint.js');
const tsc = installed('typescript/bin/tsc');

export const CHECKS = [
  { name: 'check: eslint .', argv: [eslint, '.'] },
  { name: 'check: tsc -p tsconfig.json --noEmit', argv: [tsc, '-p', 'tsconfig.json', '--noEmit'] },
  { name: 'check: tsc -p ui/tsconfig.json --noEmit', argv: [tsc, '-p', 'ui/tsconfig.json', '--noEmit'] },
];

/** Starts a check; answers {done, stop} as a test file's run does. */
export const runCheck = (check) => runProcess(check.name, check.argv);

// Runs every test file (test/**/*.test.ts) with Node's built-in test runner, TypeScript loaded by tsx.
// Optional arguments narrow the run to files whose path contains one of them. Files that read the shared
// corpus (../shared/corpus beside the checkout) say so with the line `// Reads the shared corpus.`; when
// the corpus is not there they are skipped with a message, and with CI=true the run fails instead.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';

const CORPUS_MARK = /^\/\/ Reads the shared corpus\.$/m;
const corpus = resolve(dirname(fileURLToPath(import.meta.url)), '../../shared/corpus');

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...collect(path));
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const filters = process.argv.slice(2);
let files = collect('test')
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
if (!existsSync(join(corpus, 'sigma-rules'))) {
  const needing = files.filter((f) => CORPUS_MARK.test(readFileSync(f, 'utf8')));
  if (needing.length && process.env.CI === 'true') {
    console.error(`the shared corpus is missing at ${corpus}; CI needs it for ${needing.length} test files`);
    process.exit(1);
  }
  for (const f of needing) console.log(`skipped: ${f} (the shared corpus is not at ${corpus})`);
  files = files.filter((f) => !needing.includes(f));
}
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-reporter=spec', ...files],
  { stdio: 'inherit', env: process.env },
);
process.exit(result.status ?? 1);

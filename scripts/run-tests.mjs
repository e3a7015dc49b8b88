// Runs the test files (test/**/*.test.ts) with Node's built-in test runner, several files at a time:
// each file is its own process (as `node --test` isolates them), its output is printed whole when it
// ends, and the run closes with the totals, the files that failed and the ten slowest files. Files
// start longest first (test/durations.json, rewritten by `--record`), so the slowest never start last.
//
//   node scripts/run-tests.mjs [--unit] [--checks] [--record] [--tsx] [--concurrency N] [path-part ...]
//
// The files run compiled (scripts/test-runner/compile.mjs: loader hooks cost each process and thread
// seconds of CPU in Node 20); `--tsx` runs the sources through tsx instead, as `node --import tsx --test`.
// Path parts narrow the run to files whose path contains one of them; `--unit` to the files that start
// no server, database, process or browser (see test/unit.json). `--checks` (what `npm test` runs) also
// runs the linter and the type checkers as jobs beside the files (test-runner/checks.mjs). TEST_CONCURRENCY sets how many files run
// at once (default: twice the cores, at least 4: most files wait on servers, databases and browsers).
// Files that read the shared corpus (../shared/corpus beside the checkout) say so with the line
// `// Reads the shared corpus.`; when the corpus is not there they are skipped with a message, and with
// CI=true the run fails instead.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHECKS, runCheck } from './test-runner/checks.mjs';
import { compileTests, compiledPath } from './test-runner/compile.mjs';
import { collectTestFiles, runFile } from './test-runner/files.mjs';
import { report, totalsOf } from './test-runner/report.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const corpus = resolve(root, '../shared/corpus');
const durationsPath = resolve(root, 'test/durations.json');
const CORPUS_MARK = /^\/\/ Reads the shared corpus\.$/m;

const args = process.argv.slice(2);
const flag = (name) => {
  const at = args.indexOf(name);
  if (at >= 0) args.splice(at, 1);
  return at >= 0;
};
const option = (name) => {
  const at = args.indexOf(name);
  if (at < 0) return undefined;
  const [, value] = args.splice(at, 2);
  return value;
};
const unitOnly = flag('--unit');
const withChecks = flag('--checks');
const record = flag('--record');
const tsx = flag('--tsx');
const concurrency = Number(option('--concurrency') ?? process.env.TEST_CONCURRENCY ?? Math.max(4, 2 * availableParallelism()));
if (!Number.isInteger(concurrency) || concurrency < 1) {
  console.error('the concurrency must be a whole number of files, at least 1');
  process.exit(2);
}

process.chdir(root);
let files = collectTestFiles('test').filter((f) => args.length === 0 || args.some((part) => f.includes(part)));
if (unitOnly) {
  const unit = JSON.parse(readFileSync('test/unit.json', 'utf8'));
  files = files.filter((f) => unit.some((prefix) => f.startsWith(prefix)));
}
if (!existsSync(resolve(corpus, 'sigma-rules'))) {
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

const known = existsSync(durationsPath) ? JSON.parse(readFileSync(durationsPath, 'utf8')) : {};
// A file not yet timed starts early: it may be slow.
files.sort((a, b) => (known[b] ?? 60) - (known[a] ?? 60) || a.localeCompare(b));
// Files that hold a wall-clock budget to a tight bound (`// Runs alone: <why>`) run one at a time once
// the others have ended, so no other file's load decides their outcome.
const ALONE_MARK = /^\/\/ Runs alone: /m;
const alone = files.filter((f) => ALONE_MARK.test(readFileSync(f, 'utf8')));
const shared = files.filter((f) => !alone.includes(f));

const started = Date.now();
// dist/ (the compiled server and the web UI) as `npm start` would have it, built here once: the files
// that start `vigil serve` or a browser find it fresh instead of building it side by side.
const build = spawnSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { stdio: 'inherit' });
if (build.status !== 0) {
  console.error('the build failed; no test ran');
  process.exit(1);
}
const compiled = tsx ? undefined : await compileTests(root);
const mirror = compiled?.mirror;
const results = [];
const running = new Set();
const stopAll = (signal) => {
  for (const child of running) child.stop();
  compiled?.remove();
  process.exit(signal === 'SIGINT' ? 130 : 143);
};
process.on('SIGINT', stopAll).on('SIGTERM', stopAll);

const checks = withChecks ? CHECKS.map((check) => ({ name: check.name, start: () => runCheck(check) })) : [];
const jobsOf = (list) => list.map((file) => ({ name: file, start: () => runFile(file, mirror ? compiledPath(mirror, file) : file, tsx) }));
// The checks start first: a lint or type error shows at once, and their CPU fills the time the files wait.
const sharedJobs = [...checks, ...jobsOf(shared)];
const aloneJobs = jobsOf(alone);
const total = files.length + checks.length;
const checksNote = checks.length ? ` and ${checks.length} checks` : '';
console.log(`running ${files.length} test files${checksNote}, ${concurrency} at a time${tsx ? ', through tsx' : ''} (${((Date.now() - started) / 1000).toFixed(1)} s to build and compile)`);
async function worker(queue) {
  while (queue.length > 0) {
    const job = queue.shift();
    const file = job.name;
    const run = job.start();
    running.add(run);
    const result = await run.done;
    running.delete(run);
    results.push(result);
    process.stdout.write(result.output);
    const totals = totalsOf(result.output);
    const verdict = result.ok ? 'ok' : 'FAILED';
    const cpu = result.cpuMs === null ? '' : `, ${(result.cpuMs / 1000).toFixed(1)} s of CPU`;
    const counts = checks.includes(job) ? '' : ` (${totals.pass} passed, ${totals.fail} failed, ${totals.skipped} skipped)`;
    console.log(`■ ${file}: ${verdict} in ${(result.ms / 1000).toFixed(1)} s${cpu}${counts} [${results.length}/${total}]\n`);
  }
}
await Promise.all(Array.from({ length: Math.min(concurrency, sharedJobs.length) }, () => worker(sharedJobs)));
await worker(aloneJobs);

if (record) {
  const merged = { ...known };
  for (const r of results) if (files.includes(r.file)) merged[r.file] = Math.round(r.ms / 100) / 10;
  const sorted = Object.fromEntries(Object.entries(merged).filter(([f]) => existsSync(f)).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(durationsPath, JSON.stringify(sorted, null, 2) + '\n');
}
compiled?.remove();
const failed = report(results, Date.now() - started, concurrency);
process.exit(failed ? 1 : 0);

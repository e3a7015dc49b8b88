// The tests' JavaScript: a copy of the checkout under .artifacts/test-js/<run>/<name>/ in which every
// TypeScript file of src/, test/, bench/ and ui/src/ is compiled (esbuild, one file to one file, as tsx
// would) and everything else is a link to the real file, so paths the tests compute from their own
// location (the repository root, fixtures, ../shared) lead where they would from the sources. Node then
// loads the tests without a loader hook: in Node 20 a hook costs every process and thread seconds of
// CPU at start-up.
import { build } from 'esbuild';
import { existsSync, mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';

const COMPILED = ['src', 'test', 'bench', 'ui/src'];
const SKIPPED = new Set(['.git', '.artifacts']);
const TYPESCRIPT = /(?<!\.d)\.(ts|tsx|mts)$/;

/** Whether a process is still running. */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/**
 * Lays out this run's copy of `root` (each run has its own, named by the runner's process id, so runs
 * side by side never change each other's files; the copies of runs that ended are removed); answers its
 * root and a function that removes it.
 */
export async function compileTests(root) {
  const runs = join(root, '.artifacts/test-js');
  mkdirSync(runs, { recursive: true });
  for (const run of readdirSync(runs)) {
    if (!/^\d+$/.test(run) || !alive(Number(run))) rmSync(join(runs, run), { recursive: true, force: true });
  }
  const base = join(runs, String(process.pid));
  const mirror = join(base, basename(root));
  mkdirSync(mirror, { recursive: true });
  // What the checkout finds beside itself (../shared, the corpus and the spec) is beside the copy too.
  if (existsSync(join(root, '../shared'))) symlinkSync(join(root, '../shared'), join(base, 'shared'));
  const sources = [];
  const lay = (dir) => {
    mkdirSync(join(mirror, dir), { recursive: true });
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = dir ? join(dir, entry.name) : entry.name;
      if (SKIPPED.has(path)) continue;
      const compiled = COMPILED.some((c) => path === c || path.startsWith(`${c}/`));
      const holdsCompiled = COMPILED.some((c) => c.startsWith(`${path}/`));
      if (entry.isDirectory() && (compiled || holdsCompiled)) lay(path);
      else {
        symlinkSync(join(root, path), join(mirror, path));
        if (compiled && entry.isFile() && TYPESCRIPT.test(entry.name)) sources.push(join(root, path));
      }
    }
  };
  lay('');
  await build({
    entryPoints: sources,
    outdir: mirror,
    outbase: root,
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    jsx: 'automatic',
    sourcemap: 'inline',
    sourcesContent: false,
    logLevel: 'warning',
    outExtension: { '.js': '.js' },
  });
  return { mirror, remove: () => rmSync(base, { recursive: true, force: true }) };
}

/** The compiled file of a source path relative to the root (test/a.test.ts → <mirror>/test/a.test.js). */
export function compiledPath(mirror, path) {
  return resolve(mirror, path.replace(/\.(ts|tsx)$/, '.js').replace(/\.mts$/, '.mjs'));
}


// Builds dist/ from src/ with the TypeScript compiler. With --if-stale it first compares a fingerprint of
// the sources (path, size and modification time of every file under src/, of the compiler settings and
// of the package manifests) with the one recorded by the last successful build, and skips the compiler
// when they are the same: a second `npm start` serves without recompiling. The fingerprint lives in
// dist/, so deleting dist/ always forces a full build; `npm run build` always builds.
//
// `npm install` (the `prepare` script) builds with --if-stale too: `npx vigil` in this folder installs
// the folder itself into npm's npx cache and runs its `prepare` again, which must not rebuild a
// current dist/ (it made the first `npx vigil` take most of a minute).
//
// The web UI (ui/, React + Vite) is built into dist/ui the same way, with its own fingerprint of the
// files under ui/ and the package manifests; a UI that has not changed is not bundled again. Each built
// text file gets brotli and gzip copies beside it (precompress.mjs), which the server sends by the
// request's Accept-Encoding. Both fingerprints cover these build scripts too.
//
// The server build also leaves a migrated embedded database in dist/db-template (src/db/template.ts),
// which a first start copies instead of running initdb and the migrations.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { precompress } from './precompress.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const stampPath = join(root, 'dist', '.build-fingerprint');
const entry = join(root, 'dist', 'cli', 'main.js');
const BUILD_SCRIPTS = ['scripts/build.mjs', 'scripts/precompress.mjs'];
const INPUTS = ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json', ...BUILD_SCRIPTS];

function walk(dir, out) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = statSync(path);
    if (st.isDirectory()) walk(path, out);
    else out.push(`${relative(root, path)}\0${st.size}\0${st.mtimeMs}`);
  }
  return out;
}

function fingerprint(dir = 'src', inputs = INPUTS) {
  const lines = walk(join(root, dir), []);
  for (const name of inputs) {
    const path = join(root, name);
    if (existsSync(path)) {
      const st = statSync(path);
      lines.push(`${name}\0${st.size}\0${st.mtimeMs}`);
    }
  }
  lines.sort();
  return createHash('sha256').update(lines.join('\n')).digest('hex');
}

const ifStale = process.argv.includes('--if-stale');
const fresh = (stamp, print, output) => ifStale && existsSync(output) && existsSync(stamp) && readFileSync(stamp, 'utf8') === print;

// --ui builds the web UI only (the browser tests need it, not the compiled server).
const before = fingerprint();
if (!process.argv.includes('--ui') && !fresh(stampPath, before, entry)) {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });
  if (result.status !== 0) process.exit(result.status ?? 1);
  // Sources edited while the compiler ran leave the recorded fingerprint stale, so the next start builds again.
  writeFileSync(stampPath, before);
}
if (!process.argv.includes('--ui')) await buildDatabaseTemplate();

await buildUi();

// A migrated embedded database in dist/db-template, copied into an empty DATA_DIR at its first start
// instead of running initdb and the migrations there (src/db/template.ts); made again only when the
// PGlite version or the migrations changed.
async function buildDatabaseTemplate() {
  const { writeTemplate } = await import(pathToFileURL(join(root, 'dist', 'db', 'template.js')).href);
  await writeTemplate();
}

async function buildUi() {
  const uiStamp = join(root, 'dist', '.ui-build-fingerprint');
  const uiEntry = join(root, 'dist', 'ui', 'index.html');
  const uiBefore = fingerprint('ui', ['package.json', 'package-lock.json', ...BUILD_SCRIPTS]);
  if (fresh(uiStamp, uiBefore, uiEntry)) return;
  let vite;
  try {
    vite = await import('vite');
  } catch {
    // An install without development dependencies has no bundler: the API works, / answers 404.
    console.warn('web UI not built: Vite is not installed (run `npm install`)');
    return;
  }
  await vite.build({ configFile: join(root, 'ui', 'vite.config.mjs'), logLevel: 'warn' });
  precompress(join(root, 'dist', 'ui'));
  writeFileSync(uiStamp, uiBefore);
}

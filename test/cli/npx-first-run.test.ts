// The first `npx vigil` in a checkout that `npm install` has built: npx installs the folder itself
// into its cache (a fresh one here) and runs its `prepare` script, which finds dist/ current and does
// not build again, so the first run answers as fast as the next ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const STAMPS = ['dist/.build-fingerprint', 'dist/.ui-build-fingerprint'];

test('the first npx vigil in a built checkout does not build again', () => {
  const built = spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--if-stale'], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
  assert.equal(built.status, 0, `build failed:\n${built.stdout}\n${built.stderr}`);
  const stampTimes = () => STAMPS.map((name) => statSync(join(ROOT, name)).mtimeMs);
  const before = stampTimes();
  const cache = mkdtempSync(join(tmpdir(), 'vigil-npx-cache-'));
  try {
    const started = performance.now();
    const result = spawnSync('npx', ['vigil', '--help'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, npm_config_cache: cache, npm_config_update_notifier: 'false' },
    });
    const seconds = (performance.now() - started) / 1000;
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^usage: vigil <command>/);
    assert.deepEqual(stampTimes(), before, `npx built dist/ again (${seconds.toFixed(1)} s):\n${result.stdout}\n${result.stderr}`);
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
});

// `npm install` / `npm ci` of the locked dependencies on the running Node prints no warning: npm is run
// for real (a dry run over package.json and package-lock.json, offline, no scripts), and every
// package the lock resolves must accept this Node (no EBADENGINE) and nothing else may be reported.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

test('installing the locked dependencies warns about nothing on this Node', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-install-'));
  try {
    for (const name of ['package.json', 'package-lock.json']) copyFileSync(join(ROOT, name), join(dir, name));
    const result = spawnSync('npm', ['ci', '--dry-run', '--ignore-scripts', '--offline', '--no-audit', '--no-fund'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.equal(result.status, 0, result.stderr);
    const warnings = `${result.stdout}\n${result.stderr}`.split('\n').filter((line) => /^npm (warn|WARN|error|ERR)/.test(line));
    assert.deepEqual(warnings, [], `npm on Node ${process.versions.node} reported:\n${warnings.join('\n')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// A data directory whose lock names a process killed a moment ago is taken over at once, even while
// the killed process is still a zombie that its parent has not reaped (a restart right after kill -9).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lockDataDir } from '../../src/db/data-dir-lock.js';

test('a lock held by a zombie (killed, not yet reaped) is stale', { skip: process.platform !== 'linux' && 'needs /proc' }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-zombie-'));
  // The shell starts the holder, prints its pid, then becomes a `sleep` that never reaps it.
  const parent = spawn('sh', ['-c', 'sleep 30 & echo $!; exec sleep 31'], { stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    const holder = Number(await new Promise<string>((resolve) => parent.stdout.once('data', (d: Buffer) => resolve(d.toString().trim()))));
    writeFileSync(join(dir, 'vigil.lock'), `${holder}\n`);
    process.kill(holder, 'SIGKILL');
    for (let i = 0; i < 100 && !readFileSync(`/proc/${holder}/stat`, 'utf8').includes(') Z'); i++) await new Promise((r) => setTimeout(r, 10));
    assert.match(readFileSync(`/proc/${holder}/stat`, 'utf8'), /\) Z /, 'the killed holder is a zombie');
    const release = lockDataDir(dir);
    assert.equal(readFileSync(join(dir, 'vigil.lock'), 'utf8').trim(), String(process.pid));
    release();
  } finally {
    parent.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

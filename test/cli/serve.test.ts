// `vigil serve` as a real process: prints the generated admin password once, serves on the chosen port, stops cleanly, and rejects a bad PORT.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from './vigil-process.js';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin', 'vigil.js');

/** Builds dist/ when the sources changed since it was built, as `npm start` does. */
function ensureBuilt(): void {
  const result = spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--if-stale'], { cwd: ROOT, encoding: 'utf8', timeout: 180_000 });
  assert.equal(result.status, 0, `the build failed:\n${result.stdout}\n${result.stderr}`);
}

function serveEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = { ...process.env };
  for (const name of ['DATABASE_URL', 'DATA_DIR', 'ADMIN_USERNAME', 'ADMIN_PASSWORD', 'JWT_SECRET', 'PORT', 'HOST', 'PUBLIC_URL', 'SEARCH_BACKEND', 'VIGIL_TEST_PASSWORD_HASHING']) delete base[name];
  return { ...base, LOG_LEVEL: 'warn', ...env };
}

interface Running {
  child: ChildProcess;
  output: () => { stdout: string; stderr: string };
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `vigil serve` and waits until it says it is serving. */
async function startServe(env: Record<string, string>, timeoutMs = 40_000): Promise<Running> {
  const child = spawn(process.execPath, [BIN, 'serve'], { cwd: ROOT, env: serveEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveExit) =>
    child.on('exit', (code, signal) => setImmediate(() => resolveExit({ code, signal }))),
  );
  const running: Running = { child, output: () => ({ stdout, stderr }), exited };
  await new Promise<void>((resolveReady, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`vigil serve did not start in ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    const check = () => {
      if (stdout.includes('Vigil is serving on')) {
        clearTimeout(timer);
        resolveReady();
      }
    };
    child.stdout!.on('data', check);
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`vigil serve exited with ${code} before serving\n${stdout}\n${stderr}`));
    });
  });
  return running;
}

async function stop(running: Running): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  running.child.kill('SIGTERM');
  const timer = setTimeout(() => running.child.kill('SIGKILL'), 10_000);
  const result = await running.exited;
  clearTimeout(timer);
  return result;
}

function runOnce(env: Record<string, string>) {
  // A safety stop for a process that never ends, far above a start on a busy machine (not a speed check).
  return spawnSync(process.execPath, [BIN, 'serve'], { cwd: ROOT, env: serveEnv(env), encoding: 'utf8', timeout: 90_000 });
}

describe('vigil serve', () => {
  let dataDir: string;
  let current: Running | undefined;
  let password: string | undefined;
  let port: number;

  before(() => {
    ensureBuilt();
    dataDir = mkdtempSync(join(tmpdir(), 'vigil-serve-'));
  });
  after(async () => {
    if (current && current.child.exitCode === null && current.child.signalCode === null) await stop(current);
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('a first start prints the generated admin password once and serves /api/health on PORT', async () => {
    port = await freePort();
    current = await startServe({ DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' });
    const { stdout, stderr } = current.output();
    const match = /generated password: (\S+)/.exec(stdout);
    assert.ok(match, `no generated password in:\n${stdout}`);
    password = match[1];
    assert.ok(password.length >= 16, 'a long generated password');
    assert.equal(stdout.split(password).length - 1, 1, 'the password is printed exactly once');
    assert.ok(!stderr.includes(password), 'the password is not logged');
    assert.match(stdout, new RegExp(`Vigil is serving on http://127\\.0\\.0\\.1:${port} \\(storage: embedded database in .*; ready in \\d+\\.\\d s\\)\n`));

    const health = await fetch(`http://127.0.0.1:${port}/api/health`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: 'ok', database: 'ok', search_backend: 'ok' });
    assert.equal(health.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(health.headers.get('cache-control'), 'no-store');
  });

  test('the printed password logs in as admin over HTTP', async () => {
    assert.ok(password);
    const res = await fetch(`http://127.0.0.1:${port}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password }),
    });
    assert.equal(res.status, 200);
    const body = (await res.json()) as { user: { role: string }; access_token: string };
    assert.equal(body.user.role, 'admin');
    assert.match(String(res.headers.get('set-cookie')), /^svc_session=.+HttpOnly/i);
  });

  test('SIGTERM stops it with exit code 0 and releases the data directory', async () => {
    assert.ok(current);
    const result = await stop(current);
    assert.equal(result.code, 0, current.output().stderr);
    assert.equal(existsSync(join(dataDir, 'vigil.lock')), false);
  });

  test('a restart on the same data prints no password and the old one still works', async () => {
    port = await freePort();
    current = await startServe({ DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' });
    assert.doesNotMatch(current.output().stdout, /password/i);
    const res = await fetch(`http://127.0.0.1:${port}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password }),
    });
    assert.equal(res.status, 200);
    assert.equal((await stop(current)).code, 0);
  });

  test('with PUBLIC_URL the banner shows the listening address and the public one', async () => {
    port = await freePort();
    current = await startServe({ DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: 'https://vigil.example.test/' });
    const banner = current.output().stdout.split('\n').find((line) => line.startsWith('Vigil is serving on'));
    assert.match(banner ?? '', /; ready in \d+\.\d s\)$/);
    assert.equal(banner?.replace(/; ready in .*/, ''), `Vigil is serving on http://127.0.0.1:${port} (public address: https://vigil.example.test; storage: embedded database in ${dataDir}`);
    assert.equal((await fetch(`http://127.0.0.1:${port}/api/health`)).status, 200);
    assert.equal((await stop(current)).code, 0);
  });

  test('a port already in use is a clear error, and the data directory is released', async () => {
    const blocker = createServer();
    await new Promise<void>((resolveListen) => blocker.listen(0, '127.0.0.1', () => resolveListen()));
    const busy = (blocker.address() as { port: number }).port;
    try {
      const result = runOnce({ DATA_DIR: dataDir, PORT: String(busy), HOST: '127.0.0.1' });
      assert.equal(result.status, 1, result.stderr);
      assert.match(result.stderr, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${busy}: the address is already in use`));
      assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
      assert.equal(existsSync(join(dataDir, 'vigil.lock')), false, 'lock released');
    } finally {
      await new Promise((resolveClose) => blocker.close(resolveClose));
    }
  });

  test('an unreachable DATABASE_URL is a clear error with a non-zero exit', () => {
    const result = runOnce({ DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', PORT: '0' });
    assert.equal(result.status, 1, result.stderr);
    assert.match(result.stderr, /^vigil: could not start with the PostgreSQL database at DATABASE_URL: .*ECONNREFUSED/);
    assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
  });

  test("the test suites' cheap password hashing is announced as a warning at start", () => {
    const result = runOnce({ DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', PORT: '0', VIGIL_TEST_PASSWORD_HASHING: 'fast' });
    assert.equal(result.status, 1, result.stderr);
    assert.match(result.stderr, /^vigil: WARNING: VIGIL_TEST_PASSWORD_HASHING=fast .* never use it with real passwords\n/);
  });

  test('a bad PORT is a clear configuration error with a non-zero exit', () => {
    for (const value of ['abc', '70000']) {
      const result = runOnce({ DATA_DIR: dataDir, PORT: value });
      assert.notEqual(result.status, 0, `PORT=${value}`);
      assert.ok(result.status !== null, `PORT=${value}: exited by itself`);
      assert.match(result.stderr, /configuration error: PORT must be an integer between 0 and 65535/, `PORT=${value}: ${result.stderr}`);
      assert.ok(result.stderr.includes(`'${value}'`), `PORT=${value}: names the bad value`);
      assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
      assert.doesNotMatch(result.stdout, /Vigil is serving/);
    }
  });
});

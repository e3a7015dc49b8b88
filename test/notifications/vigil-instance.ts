// A `vigil serve` process on a given database (a multi-instance deployment's member), with a small
// HTTP client: log in as the admin, call the API, send events, and stop it (SIGTERM) or kill it (SIGKILL).
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { freePort } from '../cli/vigil-process.js';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin', 'vigil.js');
export const INSTANCE_ADMIN_PASSWORD = 'admin-password-of-the-instances';
/** Far above a start on a loaded machine: a safety stop, not a speed check. */
const START_BOUND_MS = 90_000;

export interface Instance {
  child: ChildProcess;
  base: string;
  output(): string;
  /** Calls the API as `token` (a session's, with its CSRF token, or an ingest token); fails on an error answer. */
  api(method: string, path: string, body?: unknown, auth?: { token: string; csrf?: string }): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Logs in as the admin: the session token and its CSRF token. */
  login(): Promise<{ token: string; csrf: string }>;
  kill(): Promise<void>;
  stop(): Promise<void>;
}

export async function startInstance(env: Record<string, string>): Promise<Instance> {
  const port = await freePort();
  const inherited = { ...process.env };
  for (const name of ['DATABASE_URL', 'DATA_DIR', 'PORT', 'HOST', 'PUBLIC_URL', 'ADMIN_USERNAME', 'JWT_SECRET']) delete inherited[name];
  const child = spawn(process.execPath, [BIN, 'serve'], {
    cwd: ROOT,
    env: { ...inherited, LOG_LEVEL: 'warn', ADMIN_PASSWORD: INSTANCE_ADMIN_PASSWORD, HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-20_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((done) => child.on('exit', () => done()));
  await new Promise<void>((ready, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`vigil serve did not start in ${START_BOUND_MS / 1000} s\n${output}`));
    }, START_BOUND_MS);
    child.stdout!.on('data', () => {
      if (output.includes('Vigil is serving on')) {
        clearTimeout(timer);
        ready();
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`vigil serve exited before serving\n${output}`));
    });
  });
  const base = `http://127.0.0.1:${port}`;
  const api: Instance['api'] = async (method, path, body, auth) => {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (auth) headers.authorization = `Bearer ${auth.token}`;
    if (auth?.csrf) headers['x-csrf-token'] = auth.csrf;
    const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  return {
    child,
    base,
    output: () => output,
    api,
    async login() {
      const token = String((await api('POST', '/api/auth/login', { username: 'admin', password: INSTANCE_ADMIN_PASSWORD })).access_token);
      return { token, csrf: String((await api('GET', '/api/auth/csrf', undefined, { token })).csrf_token) };
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

// A `vigil serve` process on a given database (a multi-instance deployment's member), with a small
// HTTP client: log in as the admin, call the API, send events, and stop it (SIGTERM) or kill it (SIGKILL).
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { startServing } from '../cli/vigil-process.js';

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
  const { child, port, exited, output } = await startServing({ ADMIN_PASSWORD: INSTANCE_ADMIN_PASSWORD, ...env }, START_BOUND_MS);
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
    output,
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

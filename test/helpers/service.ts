// Starts the real service on a test database and talks to it over HTTP-in/HTTP-out (Fastify inject),
// with helpers for logging in and sending the CSRF header like the web UI does.
import { after, before, describe } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { loadConfig } from '../../src/config.js';
import { createService, type Service } from '../../src/server.js';
import { DATABASE_KINDS, openTestDatabase, postgresUnavailable, type DatabaseKind, type TestDatabase } from './databases.js';

export const ADMIN_PASSWORD = 'admin-password-for-tests';

export interface TestService extends Service {
  kind: DatabaseKind;
}

export async function startService(kind: DatabaseKind, env: Record<string, string> = {}): Promise<TestService & { testDb: TestDatabase }> {
  const testDb = await openTestDatabase(kind);
  const config = loadConfig({ ADMIN_PASSWORD, DATA_DIR: '/nonexistent-test-dir', ...env });
  const service = await createService(config, { db: testDb.db });
  return {
    ...service,
    kind,
    testDb,
    async close() {
      await service.close();
      await testDb.drop();
    },
  };
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';

export interface Response extends LightMyRequestResponse {
  body: string;
  data: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

function wrap(response: LightMyRequestResponse): Response {
  let data: unknown;
  try {
    data = response.body ? JSON.parse(response.body) : undefined;
  } catch {
    data = undefined;
  }
  return Object.assign(response, { data }) as Response;
}

/** A client of the API: anonymous, or holding a session token (sent as Bearer) and its CSRF token. */
export class Client {
  constructor(
    readonly service: Service,
    readonly token?: string,
    readonly csrf?: string,
  ) {}

  async request(method: Method, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    const all: Record<string, string> = { ...headers };
    if (this.token && !('authorization' in all)) all.authorization = `Bearer ${this.token}`;
    if (this.csrf && method !== 'GET' && method !== 'HEAD' && !('x-csrf-token' in all)) all['x-csrf-token'] = this.csrf;
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    if (payload !== undefined && !('content-type' in all)) all['content-type'] = 'application/json';
    return wrap(await this.service.app.inject({ method, url, payload, headers: all }));
  }

  get = (url: string, headers?: Record<string, string>) => this.request('GET', url, undefined, headers);
  post = (url: string, body?: unknown, headers?: Record<string, string>) => this.request('POST', url, body, headers);
  put = (url: string, body?: unknown, headers?: Record<string, string>) => this.request('PUT', url, body, headers);
  patch = (url: string, body?: unknown, headers?: Record<string, string>) => this.request('PATCH', url, body, headers);
  delete = (url: string, headers?: Record<string, string>) => this.request('DELETE', url, undefined, headers);
}

export function anonymous(service: Service): Client {
  return new Client(service);
}

/** Logs in through the API and fetches the session's CSRF token. */
export async function login(service: Service, username: string, password: string): Promise<Client> {
  const response = await anonymous(service).post('/api/auth/login', { username, password });
  if (response.statusCode !== 200) throw new Error(`login of ${username} failed: ${response.statusCode} ${response.body}`);
  const token = response.data.access_token as string;
  const csrf = (await new Client(service, token).get('/api/auth/csrf')).data.csrf_token as string;
  return new Client(service, token, csrf);
}

export const loginAdmin = (service: Service) => login(service, 'admin', ADMIN_PASSWORD);

/** Creates a user as admin and returns a logged-in client for it. */
export async function userWithRole(service: Service, role: 'admin' | 'analyst' | 'viewer', username = `${role}-${Math.random().toString(36).slice(2, 8)}`): Promise<Client> {
  const admin = await loginAdmin(service);
  const password = `${username}-password-123`;
  const created = await admin.post('/api/users', { username, password, role });
  if (created.statusCode !== 201) throw new Error(`creating ${username} failed: ${created.body}`);
  return login(service, username, password);
}

/**
 * Declares a suite once per database kind; each gets its own started service in `ctx.service`.
 * The PostgreSQL variant is skipped with a clear reason when no server is configured (fails under CI).
 */
export function describeEachDatabase(name: string, body: (ctx: { readonly service: TestService }) => void, env: Record<string, string> = {}): void {
  for (const kind of DATABASE_KINDS) {
    describe(`${name} [${kind}]`, async () => {
      const reason = kind === 'postgres' ? await postgresUnavailable() : null;
      if (reason) {
        describe(`skipped: ${reason}`, { skip: reason }, () => {});
        return;
      }
      let service: (TestService & { testDb: TestDatabase }) | undefined;
      before(async () => {
        service = await startService(kind, env);
      });
      after(async () => {
        await service?.close();
      });
      body({
        get service() {
          if (!service) throw new Error('service not started');
          return service;
        },
      });
    });
  }
}

// Shared fixtures of the access suites: creating API keys through the API, a client that sends a key,
// and a suite runner that starts the service with a controllable rate-limit clock on each database.
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { loadConfig } from '../../src/config.js';
import type { BuildOptions } from '../../src/http/app.js';
import { createService, type Service } from '../../src/server.js';
import { DATABASE_KINDS, openTestDatabase, postgresUnavailable, type TestDatabase } from '../helpers/databases.js';
import { ADMIN_PASSWORD, Client } from '../helpers/service.js';

export const KEY_FORMAT = /^svc_ak_[0-9A-Za-z]{43}$/;

export interface CreatedKey {
  id: string;
  name: string;
  key: string;
  prefix: string;
  tier: string;
  created_at: string;
  [field: string]: unknown;
}

/** Creates an API key through the API as `owner` (a session client); asserts 201. */
export async function createKey(owner: Client, body: Record<string, unknown> = {}): Promise<CreatedKey> {
  const response = await owner.post('/api/api_keys', { name: `key-${Math.random().toString(36).slice(2, 8)}`, ...body });
  assert.equal(response.statusCode, 201, response.body);
  return response.data as CreatedKey;
}

/** A client that authenticates with an API key (Authorization: Bearer svc_ak_…). */
export function keyClient(service: Service, key: string | CreatedKey): Client {
  return new Client(service, typeof key === 'string' ? key : key.key);
}

/** The X-RateLimit-* headers of an answer, as numbers (NaN when absent). */
export function rateHeaders(response: { headers: Record<string, unknown> }) {
  const n = (name: string) => Number(response.headers[name] ?? NaN);
  return { limit: n('x-ratelimit-limit'), remaining: n('x-ratelimit-remaining'), reset: n('x-ratelimit-reset') };
}

/** A clock tests move by hand (the rate-limit window clock). */
export class ManualClock {
  private at = 0;
  constructor(start: string) {
    this.set(start);
  }
  now = (): Date => new Date(this.at);
  set(iso: string): void {
    this.at = Date.parse(iso);
  }
  advance(seconds: number): void {
    this.at += seconds * 1000;
  }
}

/** Like describeEachDatabase, with build options (a rate-limit clock) for the service. */
export function describeEachDatabaseWith(name: string, options: BuildOptions, body: (ctx: { readonly service: Service }) => void): void {
  for (const kind of DATABASE_KINDS) {
    describe(`${name} [${kind}]`, async () => {
      const reason = kind === 'postgres' ? await postgresUnavailable() : null;
      if (reason) {
        describe(`skipped: ${reason}`, { skip: reason }, () => {});
        return;
      }
      let testDb: TestDatabase | undefined;
      let service: Service | undefined;
      before(async () => {
        testDb = await openTestDatabase(kind);
        service = await createService(loadConfig({ ADMIN_PASSWORD, DATA_DIR: '/nonexistent-test-dir' }), { db: testDb.db, ...options });
      });
      after(async () => {
        await service?.close();
        await testDb?.drop();
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

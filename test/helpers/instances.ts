// Two service instances sharing one fresh PostgreSQL database (as a multi-instance deployment runs),
// for suites that check what must hold across instances; skipped without PostgreSQL (fails with
// CI=true). Also `within`, for what another instance follows within a bounded time.
import { after, before, describe } from 'node:test';
import { loadConfig } from '../../src/config.js';
import type { Database } from '../../src/db/database.js';
import type { BuildOptions } from '../../src/http/app.js';
import { migrate } from '../../src/db/migrate.js';
import { openPostgres } from '../../src/db/postgres.js';
import { createService, type Service } from '../../src/server.js';
import { createPostgresDatabase, postgresUnavailable } from './databases.js';
import { ADMIN_PASSWORD } from './service.js';

export interface TwoInstances {
  readonly a: Service;
  readonly b: Service;
  /** The database connection of each instance (a first, b second). */
  readonly connections: readonly Database[];
  /** The shared database's URL (for a connection of a test's own). */
  readonly url: string;
}

/** Runs `body` in a suite whose `before` starts instances A and B on one new PostgreSQL database. */
export function describeTwoInstances(
  name: string,
  body: (instances: TwoInstances) => void,
  options: { a?: BuildOptions; b?: BuildOptions } = {},
): void {
  describe(`${name} [postgres]`, async () => {
    const reason = await postgresUnavailable();
    if (reason) {
      describe(`skipped: ${reason}`, { skip: reason }, () => {});
      return;
    }
    let database: { url: string; drop(): Promise<void> } | undefined;
    const connections: Database[] = [];
    const services: Service[] = [];
    before(async () => {
      database = await createPostgresDatabase();
      const config = loadConfig({ ADMIN_PASSWORD, DATA_DIR: '/nonexistent-test-dir' });
      for (const instance of [options.a, options.b]) {
        const db = await openPostgres(database.url);
        connections.push(db);
        if (connections.length === 1) await migrate(db);
        services.push(await createService(config, { db, ...instance }));
      }
    });
    after(async () => {
      for (const service of services) await service.close();
      for (const db of connections) await db.close();
      await database?.drop();
    });
    const started = (i: number) => {
      if (!services[i]) throw new Error('the instances are not started');
      return services[i];
    };
    body({
      get a() {
        return started(0);
      },
      get b() {
        return started(1);
      },
      connections,
      get url() {
        if (!database) throw new Error('the instances are not started');
        return database.url;
      },
    });
  });
}

/** Polls `check` every 50 ms until it holds or `ms` pass; answers how long it took (or null). */
export async function within(ms: number, check: () => Promise<boolean>): Promise<number | null> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > ms) return null;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// Test databases: a fresh embedded PGlite (started from a migrated template, so no initdb per test) and,
// when TEST_DATABASE_URL is set, a fresh database on a real PostgreSQL server. With CI=true a missing
// or unreachable PostgreSQL fails the run instead of being skipped.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { migrations } from '../../src/db/migrations/index.js';
import { openPglite } from '../../src/db/pglite.js';
import { openPostgres } from '../../src/db/postgres.js';

export type DatabaseKind = 'pglite' | 'postgres';

export interface TestDatabase {
  db: Database;
  drop(): Promise<void>;
}

const templateKey = createHash('sha256').update(migrations.map((m) => m.sql).join('\n')).digest('hex').slice(0, 16);
const templatePath = join(tmpdir(), `vigil-test-template-${templateKey}.tar`);

async function pgliteTemplate(): Promise<Blob> {
  if (existsSync(templatePath)) return new Blob([readFileSync(templatePath)]);
  const lite = await openPglite();
  await migrate(lite);
  const blob = await lite.dump();
  await lite.close();
  const tmp = `${templatePath}.${process.pid}`;
  writeFileSync(tmp, Buffer.from(await blob.arrayBuffer()));
  renameSync(tmp, templatePath);
  return blob;
}

export async function openTestPglite(): Promise<TestDatabase> {
  const db = await openPglite({ loadDataDir: await pgliteTemplate() });
  await migrate(db);
  return { db, drop: () => db.close() };
}

/** A new, empty database on the TEST_DATABASE_URL server: its URL and a function that drops it. */
export async function createPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set');
  const name = `vigil_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const target = new URL(url);
  target.pathname = `/${name}`;
  return {
    url: target.toString(),
    async drop() {
      const cleanup = new pg.Client({ connectionString: url });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.end();
    },
  };
}

export async function openTestPostgres(): Promise<TestDatabase> {
  const created = await createPostgresDatabase();
  const db = await openPostgres(created.url);
  await migrate(db);
  return {
    db,
    async drop() {
      await db.close();
      await created.drop();
    },
  };
}

let postgresChecked: Promise<string | null> | undefined;

/** Why the PostgreSQL suite cannot run here, or null when it can. Throws under CI=true. */
export function postgresUnavailable(): Promise<string | null> {
  postgresChecked ??= (async () => {
    const url = process.env.TEST_DATABASE_URL;
    let reason: string | null = null;
    if (!url) reason = 'TEST_DATABASE_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/test)';
    else {
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
      try {
        await client.connect();
        await client.end();
      } catch (error) {
        reason = `PostgreSQL at TEST_DATABASE_URL is unreachable: ${(error as Error).message}`;
      }
    }
    if (reason && process.env.CI === 'true') throw new Error(`CI=true but ${reason}`);
    return reason;
  })();
  return postgresChecked;
}

export function openTestDatabase(kind: DatabaseKind): Promise<TestDatabase> {
  return kind === 'pglite' ? openTestPglite() : openTestPostgres();
}

export const DATABASE_KINDS: DatabaseKind[] = ['pglite', 'postgres'];

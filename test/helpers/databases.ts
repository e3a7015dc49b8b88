// Test databases: a fresh embedded PGlite (started from a migrated template, so no initdb per test) and,
// when TEST_DATABASE_URL is set, a fresh database on a real PostgreSQL server (copied from a migrated
// template database there, so no migrations per test). With CI=true a missing
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

// Keyed like src/db/template.ts: a migration renumbered or renamed with the same SQL makes another template.
const templateKey = createHash('sha256').update(migrations.map((m) => `${m.version}\0${m.name}\0${m.sql}`).join('\n')).digest('hex').slice(0, 16);
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

function serverUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set');
  return url;
}

function databaseUrl(name: string): string {
  const target = new URL(serverUrl());
  target.pathname = `/${name}`;
  return target.toString();
}

async function asAdmin<T>(work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: serverUrl() });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

// A migrated database on the server that new test databases are copied from (CREATE DATABASE ...
// TEMPLATE), named by the migrations so a change of schema makes a new one. It is built under a name of
// its own and renamed when complete, so test files starting together never copy a half-built one: the
// first rename wins and the others drop theirs. Nothing connects to it afterwards, which copying needs.
const postgresTemplate = `vigil_template_${templateKey}`;
let postgresTemplateReady: Promise<void> | undefined;

function ensurePostgresTemplate(): Promise<void> {
  postgresTemplateReady ??= asAdmin(async (admin) => {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [postgresTemplate]);
    if (found.rowCount) return;
    const building = `${postgresTemplate}_${randomBytes(4).toString('hex')}`;
    await admin.query(`CREATE DATABASE ${building}`);
    const db = await openPostgres(databaseUrl(building));
    await migrate(db);
    await db.close();
    // The closed pool's server processes may take a moment to exit: renaming waits for them (55006).
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.query(`ALTER DATABASE ${building} RENAME TO ${postgresTemplate}`);
        return;
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code === '55006' && attempt < 50) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          continue;
        }
        if (code !== '42P04') throw error; // another file's copy won
        await admin.query(`DROP DATABASE ${building} WITH (FORCE)`);
        return;
      }
    }
  });
  return postgresTemplateReady;
}

/**
 * A new database on the TEST_DATABASE_URL server: its URL and a function that drops it. Empty, or with
 * `migrated`, a copy of the migrated template (much cheaper than running the migrations again).
 */
export async function createPostgresDatabase(options: { migrated?: boolean } = {}): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `vigil_test_${randomBytes(6).toString('hex')}`;
  if (options.migrated) await ensurePostgresTemplate();
  await asAdmin((admin) => admin.query(options.migrated ? `CREATE DATABASE ${name} TEMPLATE ${postgresTemplate}` : `CREATE DATABASE ${name}`));
  return {
    url: databaseUrl(name),
    drop: () => asAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

export async function openTestPostgres(): Promise<TestDatabase> {
  const created = await createPostgresDatabase({ migrated: true });
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

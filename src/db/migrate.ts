// Applies pending migrations in order, each in its own transaction. An advisory lock makes concurrent
// starts of several instances on one PostgreSQL apply every migration exactly once. The versions
// already applied are read first, in one statement: a start with nothing to apply (every start but the
// first after an upgrade) opens no transaction per migration; a pending one is still checked again
// under the lock.
import type { Database } from './database.js';
import { migrations as allMigrations, type Migration } from './migrations/index.js';

const MIGRATION_LOCK_KEY = 4_242_001;

export async function migrate(db: Database, migrations: Migration[] = allMigrations): Promise<number[]> {
  // Under the same lock: concurrent CREATE TABLE IF NOT EXISTS can still collide in PostgreSQL's catalog.
  await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
  });
  const present = new Set((await db.query<{ version: number }>('SELECT version FROM schema_migrations')).map((row) => Number(row.version)));
  const applied: number[] = [];
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    if (present.has(migration.version)) continue;
    const done = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      const existing = await tx.query('SELECT 1 FROM schema_migrations WHERE version = $1', [migration.version]);
      if (existing.length > 0) return false;
      for (const statement of splitStatements(migration.sql)) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
      return true;
    });
    if (done) applied.push(migration.version);
  }
  return applied;
}

/**
 * Splits a migration into statements at semicolons that end a line. Dollar-quoted bodies ($$ … $$,
 * function definitions) are kept whole; migrations contain no semicolons inside string literals.
 */
function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let current = '';
  for (const [i, part] of sql.split('$$').entries()) {
    if (i % 2 === 1) {
      current += `$$${part}$$`;
      continue;
    }
    const pieces = part.split(/;\s*(?:\n|$)/);
    current += pieces[0];
    for (const piece of pieces.slice(1)) {
      statements.push(current);
      current = piece;
    }
  }
  statements.push(current);
  return statements.map((s) => s.trim()).filter((s) => s.length > 0);
}

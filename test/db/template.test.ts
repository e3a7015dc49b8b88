// The migrated template the build makes (src/db/template.ts): a first start on an empty data directory
// copies it instead of running initdb and the migrations, and gets the same database; a template made
// from other migrations (or another PGlite) is never used, and an existing database is never replaced.
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/db/database.js';
import { openDatabase } from '../../src/db/open.js';
import { startFromTemplate, writeTemplate } from '../../src/db/template.js';

/** The schema as the catalog describes it: tables and columns, indexes, constraints, extensions, functions, triggers, migrations. */
async function describeSchema(db: Database): Promise<unknown> {
  const rows = async (sql: string) => (await db.query(sql)).map((row) => JSON.stringify(row));
  return {
    columns: await rows(`SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
      WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`),
    indexes: await rows(`SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname`),
    constraints: await rows(`SELECT conrelid::regclass::text AS tbl, conname, pg_get_constraintdef(oid) AS def FROM pg_constraint
      WHERE connamespace = 'public'::regnamespace ORDER BY conname`),
    extensions: await rows(`SELECT extname, extversion FROM pg_extension ORDER BY extname`),
    functions: await rows(`SELECT proname, pg_get_functiondef(oid) AS def FROM pg_proc WHERE pronamespace = 'public'::regnamespace AND prokind = 'f' ORDER BY proname, def`),
    triggers: await rows(`SELECT tgrelid::regclass::text AS tbl, tgname FROM pg_trigger WHERE NOT tgisinternal ORDER BY tgname`),
    sequences: await rows(`SELECT sequencename, last_value FROM pg_sequences WHERE schemaname = 'public' ORDER BY sequencename`),
    migrations: await rows(`SELECT version, name FROM schema_migrations ORDER BY version`),
    settings: await rows(`SELECT key FROM settings ORDER BY key`),
    users: await rows(`SELECT count(*)::int AS n FROM users`),
  };
}

describe('the migrated database template', () => {
  let root: string;
  let templateDir: string;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'vigil-template-'));
    templateDir = join(root, 'template');
    assert.equal(await writeTemplate(templateDir), true, 'made');
    assert.equal(await writeTemplate(templateDir), false, 'kept when it already has this code\'s key');
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  test('a first start from the template has the database initdb and the migrations make', async () => {
    const fromTemplate = await openDatabase({ dataDir: join(root, 'a'), templateDir });
    const fromScratch = await openDatabase({ dataDir: join(root, 'b'), templateDir: join(root, 'no-template') });
    try {
      assert.deepEqual(await describeSchema(fromTemplate), await describeSchema(fromScratch));
      // It is a database of its own: writes stay in its data directory.
      await fromTemplate.query(`INSERT INTO settings (key, value) VALUES ('probe', 'x')`);
    } finally {
      await fromTemplate.close();
      await fromScratch.close();
    }
    const again = await openDatabase({ dataDir: join(root, 'a'), templateDir });
    try {
      assert.deepEqual(await again.query(`SELECT value FROM settings WHERE key = 'probe'`), [{ value: 'x' }]);
    } finally {
      await again.close();
    }
    const other = await openDatabase({ dataDir: join(root, 'c'), templateDir });
    try {
      assert.deepEqual(await other.query(`SELECT value FROM settings WHERE key = 'probe'`), [], 'the template itself is unchanged');
    } finally {
      await other.close();
    }
  });

  test('a template made from other migrations is not used, and an existing database is never replaced', async () => {
    // A copy of the template under another key (a template made by other migrations, without making one).
    const stale = join(root, 'stale');
    cpSync(templateDir, stale, { recursive: true });
    writeFileSync(join(stale, 'template-key'), 'made-from-other-migrations\n');
    assert.equal(await startFromTemplate(join(root, 'd', 'pgdata'), stale), false);
    assert.equal(existsSync(join(root, 'd', 'pgdata')), false);
    assert.equal(await startFromTemplate(join(root, 'a', 'pgdata'), templateDir), false, 'a data directory that exists is left alone');
  });
});

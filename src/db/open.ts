// Opens the configured database (PostgreSQL when DATABASE_URL is set, else embedded PGlite in
// DATA_DIR, locked against a second process) and brings its schema up to date. An empty DATA_DIR
// starts from the migrated template the build made (template.ts) instead of initdb and migrations.
import { join } from 'node:path';
import type { Database } from './database.js';
import { lockDataDir } from './data-dir-lock.js';
import { migrate } from './migrate.js';
import { openPglite } from './pglite.js';
import { openPostgres } from './postgres.js';
import { startFromTemplate } from './template.js';

export interface StorageOptions {
  databaseUrl?: string;
  dataDir: string;
  /** Where the migrated template is (dist/db-template by default). */
  templateDir?: string;
}

export async function openDatabase(options: StorageOptions): Promise<Database> {
  let db: Database;
  if (options.databaseUrl) {
    db = await openPostgres(options.databaseUrl);
  } else {
    const release = lockDataDir(options.dataDir);
    try {
      const pgdata = join(options.dataDir, 'pgdata');
      await startFromTemplate(pgdata, options.templateDir);
      const lite = await openPglite({ dataDir: pgdata });
      db = {
        ...lite,
        async close() {
          try {
            await lite.close();
          } finally {
            release();
          }
        },
      };
    } catch (error) {
      release();
      throw error;
    }
  }
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}

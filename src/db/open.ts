// Opens the configured database (PostgreSQL when DATABASE_URL is set, else embedded PGlite in
// DATA_DIR, locked against a second process) and brings its schema up to date.
import { join } from 'node:path';
import type { Database } from './database.js';
import { lockDataDir } from './data-dir-lock.js';
import { migrate } from './migrate.js';
import { openPglite } from './pglite.js';
import { openPostgres } from './postgres.js';

export interface StorageOptions {
  databaseUrl?: string;
  dataDir: string;
}

export async function openDatabase(options: StorageOptions): Promise<Database> {
  let db: Database;
  if (options.databaseUrl) {
    db = await openPostgres(options.databaseUrl);
  } else {
    const release = lockDataDir(options.dataDir);
    try {
      const lite = await openPglite({ dataDir: join(options.dataDir, 'pgdata') });
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

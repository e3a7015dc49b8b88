// Key/value settings kept in the database, such as the generated JWT signing secret.
import type { Queryable } from '../db/database.js';

/** Returns the stored value, creating it with `create()` first if absent (safe under concurrent starts). */
export async function getOrCreateSetting(db: Queryable, key: string, create: () => string): Promise<string> {
  await db.query('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [key, create()]);
  const [row] = await db.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [key]);
  return row.value;
}

// Event retention: events older than their index pattern's retention_days are deleted (run periodically).
import type { Database } from '../db/database.js';
import type { EventHistory } from '../backends/backend.js';

export async function purgeExpiredEvents(db: Database, history: EventHistory): Promise<number> {
  const patterns = await db.query<{ id: string; retention_days: number }>('SELECT id, retention_days FROM index_patterns');
  let removed = 0;
  for (const pattern of patterns) removed += await history.purge(pattern.id, pattern.retention_days);
  return removed;
}

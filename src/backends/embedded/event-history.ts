// Event history in the database: events per index pattern, deduplicated by content hash, scanned
// newest first by keyset pagination in bounded batches so a 7-day search never loads everything.
import { randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../../db/database.js';
import type { EventHistory, HistoryEvent, StoredEventInput } from '../backend.js';

const BATCH = 500;

export class DatabaseEventHistory implements EventHistory {
  constructor(private readonly db: Database) {}

  async store(tx: Queryable, patternId: string, events: StoredEventInput[]): Promise<Set<string>> {
    const stored = new Set<string>();
    for (let i = 0; i < events.length; i += BATCH) {
      const slice = events.slice(i, i + BATCH);
      const params: unknown[] = [];
      const values = slice.map((e) => {
        params.push(randomUUID(), patternId, e.time, e.hash, e.json);
        const n = params.length;
        return `($${n - 4}, $${n - 3}, $${n - 2}, $${n - 1}, $${n})`;
      });
      const rows = await tx.query<{ event_hash: string }>(
        `INSERT INTO events (id, index_pattern_id, event_time, event_hash, event) VALUES ${values.join(', ')}
         ON CONFLICT (index_pattern_id, event_hash) DO NOTHING RETURNING event_hash`,
        params,
      );
      for (const r of rows) stored.add(r.event_hash);
    }
    return stored;
  }

  async scan(patternId: string, since: Date, until: Date, visit: (batch: HistoryEvent[]) => Promise<boolean> | boolean): Promise<void> {
    let cursor: { time: Date; id: string } | null = null;
    for (;;) {
      const rows: { id: string; event_time: Date; event: Record<string, unknown> }[] = await this.db.query(
        `SELECT id, event_time, event FROM events
          WHERE index_pattern_id = $1 AND event_time > $2 AND event_time <= $3
            AND ($4::timestamptz IS NULL OR (event_time, id) < ($4::timestamptz, $5::uuid))
          ORDER BY event_time DESC, id DESC LIMIT ${BATCH}`,
        [patternId, since, until, cursor?.time ?? null, cursor?.id ?? null],
      );
      if (rows.length === 0) return;
      const keepGoing = await visit(rows.map((r) => ({ id: r.id, eventTime: r.event_time, event: r.event })));
      if (keepGoing === false || rows.length < BATCH) return;
      const last = rows[rows.length - 1];
      cursor = { time: last.event_time, id: last.id };
      // Let other requests run between batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  async purge(patternId: string, retentionDays: number): Promise<number> {
    const rows = await this.db.query(
      `DELETE FROM events WHERE index_pattern_id = $1 AND event_time < now() - make_interval(days => $2) RETURNING id`,
      [patternId, retentionDays],
    );
    return rows.length;
  }
}

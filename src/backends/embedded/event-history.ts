// Event history in the database: events per index pattern, deduplicated by content hash, scanned
// newest first by keyset pagination in bounded batches so a 7-day search never loads everything. Each
// batch walks the (pattern, time, id) index from the previous batch's last row, so a scan reads every
// event once (linear in the range, not quadratic).
import { randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../../db/database.js';
import type { EventHistory, HistoryEvent, StoredEventInput } from '../backend.js';

const BATCH = 500;
/**
 * Each batch is read through the history index whatever the table's statistics say: the embedded
 * database never gathers statistics by itself, and with stale ones (a table analysed while small) the
 * planner reads the whole range and sorts it for every batch, holding the database for seconds.
 */
const INDEX_ORDER_ONLY = `SELECT set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true), set_config('enable_sort', 'off', true)`;

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
    // The cursor's time is the database's own text of it: microseconds, which a Date would round off.
    let cursor: { time: string; id: string } | null = null;
    for (;;) {
      type Row = { id: string; event_time: Date; at: string; event: Record<string, unknown> };
      const rows: Row[] = await this.db.transaction(async (tx) => {
        await tx.query(INDEX_ORDER_ONLY);
        return cursor
          ? await tx.query<Row>(
              `SELECT id, event_time, event_time::text AS at, event FROM events
                WHERE index_pattern_id = $1 AND event_time > $2 AND (event_time, id) < ($3::timestamptz, $4::uuid)
                ORDER BY event_time DESC, id DESC LIMIT ${BATCH}`,
              [patternId, since, cursor.time, cursor.id],
            )
          : await tx.query<Row>(
              `SELECT id, event_time, event_time::text AS at, event FROM events
                WHERE index_pattern_id = $1 AND event_time > $2 AND event_time <= $3
                ORDER BY event_time DESC, id DESC LIMIT ${BATCH}`,
              [patternId, since, until],
            );
      });
      if (rows.length === 0) return;
      const keepGoing = await visit(rows.map((r) => ({ id: r.id, eventTime: r.event_time, event: r.event })));
      if (keepGoing === false || rows.length < BATCH) return;
      const last = rows[rows.length - 1];
      cursor = { time: last.at, id: last.id };
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

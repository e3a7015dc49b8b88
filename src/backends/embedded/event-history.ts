// Event history in the database: events per index pattern, deduplicated by content hash, scanned
// newest first by keyset pagination in bounded batches so a 7-day search never loads everything. Each
// batch walks the (pattern, time, id) index from the previous batch's last row, so a scan reads every
// event once (linear in the range, not quadratic); the table gets statistics before a scan when it has
// none or has grown much since (the embedded database never gathers them by itself).
import { randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../../db/database.js';
import type { EventHistory, HistoryEvent, StoredEventInput } from '../backend.js';

const BATCH = 500;
/** Events stored by this process after which a scan first refreshes the table's statistics. */
const ANALYZE_AFTER = 100_000;

export class DatabaseEventHistory implements EventHistory {
  /** Events stored since the statistics were last refreshed (by this process). */
  private storedSinceAnalyze = 0;
  private analyzing?: Promise<void>;

  constructor(private readonly db: Database) {}

  /** Gathers the events table's statistics when it has none or this process stored many events since. */
  private async ensureStatistics(): Promise<void> {
    if (this.analyzing) return this.analyzing;
    const [row] = await this.db.query<{ tuples: number }>(`SELECT reltuples::float8 AS tuples FROM pg_class WHERE oid = 'events'::regclass`);
    if (row && row.tuples >= 0 && this.storedSinceAnalyze < Math.max(ANALYZE_AFTER, row.tuples * 0.2)) return;
    this.storedSinceAnalyze = 0;
    // A small sample (3,000 rows) is enough for the scan's plan, and keeps the embedded database, which
    // runs ANALYZE on the thread that answers requests, busy for a fraction of a second per million events.
    this.analyzing = this.db
      .transaction(async (tx) => {
        await tx.query('SET LOCAL default_statistics_target = 10');
        await tx.query('ANALYZE events (index_pattern_id, event_time, id)');
      })
      .then(
        () => undefined,
        () => undefined,
      );
    try {
      await this.analyzing;
    } finally {
      this.analyzing = undefined;
    }
  }

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
    this.storedSinceAnalyze += stored.size;
    return stored;
  }

  async scan(patternId: string, since: Date, until: Date, visit: (batch: HistoryEvent[]) => Promise<boolean> | boolean): Promise<void> {
    await this.ensureStatistics();
    // The cursor's time is the database's own text of it: microseconds, which a Date would round off.
    let cursor: { time: string; id: string } | null = null;
    for (;;) {
      type Row = { id: string; event_time: Date; at: string; event: Record<string, unknown> };
      const rows: Row[] = cursor
        ? await this.db.query<Row>(
            `SELECT id, event_time, event_time::text AS at, event FROM events
              WHERE index_pattern_id = $1 AND event_time > $2 AND (event_time, id) < ($3::timestamptz, $4::uuid)
              ORDER BY event_time DESC, id DESC LIMIT ${BATCH}`,
            [patternId, since, cursor.time, cursor.id],
          )
        : await this.db.query<Row>(
            `SELECT id, event_time, event_time::text AS at, event FROM events
              WHERE index_pattern_id = $1 AND event_time > $2 AND event_time <= $3
              ORDER BY event_time DESC, id DESC LIMIT ${BATCH}`,
            [patternId, since, until],
          );
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

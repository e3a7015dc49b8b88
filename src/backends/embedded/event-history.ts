// Event history in the database, in blocks (migration 15): the new events a chunk stores are one row of
// event_blocks (newest first), and event_hashes holds each stored event's idempotency key so the same
// event is never kept twice. A scan visits blocks newest first by their latest event, a few blocks
// per query by keyset pagination over (last_time, id), so a 7-day search reads each block once and
// holds at most a few in memory. Retention drops blocks whose events are all past it and trims the ones it cuts through.
import type { Database, Queryable } from '../../db/database.js';
import { parseJson, stringifyJson } from '../../http/exact-json.js';
import type { EventHistory, HistoryEvent, StoredEventInput } from '../backend.js';

/** Most events in one block, and most characters of event JSON (a block is one value in one row). */
const BLOCK_EVENTS = 1000;
const BLOCK_CHARS = 8 * 1024 * 1024;
/**
 * Blocks read per query by a history scan (each visited as its own batch): four on PostgreSQL, where
 * each query is a round trip (a 7-day test over a million events: 16 s, against 22 s one by one); one
 * on the embedded database, whose thread serves nothing else while it reads (with four, /api/health
 * took 100 ms at p99 during such a test, against 34 ms).
 */
const scanBlocks = (db: Database) => (db.kind === 'pglite' ? 1 : 4);
/** Blocks dropped or trimmed per statement by retention (the embedded database is held only that long). */
const PURGE_BLOCKS = 50;
/**
 * Each batch is read through the history index whatever the table's statistics say: the embedded
 * database never gathers statistics by itself, and with stale ones (a table analysed while small) the
 * planner may read the whole range and sort it for every batch.
 */
const INDEX_ORDER_ONLY = `SELECT set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true), set_config('enable_sort', 'off', true)`;

/** An event as a block keeps it: its time (epoch ms), its key and its JSON text. */
interface BlockEvent {
  time: Date;
  hash: string;
  json: string;
}

/** The values of a block's columns first_time … events for `events` (newest first). */
function blockValues(events: BlockEvent[]): unknown[] {
  const times = events.map((e) => e.time.getTime());
  return [new Date(Math.min(...times)), new Date(Math.max(...times)), events.length, JSON.stringify(times), JSON.stringify(events.map((e) => e.hash)), `[${events.map((e) => e.json).join(',')}]`];
}

/** Keeps only `events` in block `id` (none: the block goes). The hourly counts follow by trigger. */
async function rewriteBlock(tx: Queryable, id: string, events: BlockEvent[]): Promise<void> {
  if (events.length === 0) await tx.query(`DELETE FROM event_blocks WHERE id = $1`, [id]);
  else await tx.query(`UPDATE event_blocks SET first_time = $2, last_time = $3, event_count = $4, times = $5, hashes = $6, events = $7 WHERE id = $1`, [id, ...blockValues(events)]);
}

/** The chunk's new events, newest first, cut into blocks. */
function blocksOf(events: StoredEventInput[]): StoredEventInput[][] {
  const sorted = [...events].sort((a, b) => b.time.getTime() - a.time.getTime());
  const blocks: StoredEventInput[][] = [];
  let block: StoredEventInput[] = [];
  let chars = 0;
  for (const event of sorted) {
    if (block.length > 0 && (block.length === BLOCK_EVENTS || chars + event.json.length > BLOCK_CHARS)) {
      blocks.push(block);
      block = [];
      chars = 0;
    }
    block.push(event);
    chars += event.json.length;
  }
  if (block.length > 0) blocks.push(block);
  return blocks;
}

type BlockRow = { id: string; at: string; times: string; hashes: string; events: string };

export class DatabaseEventHistory implements EventHistory {
  constructor(private readonly db: Database) {}

  async store(tx: Queryable, patternId: string, events: StoredEventInput[]): Promise<Set<string>> {
    // An event repeated in `events` is kept once (its first occurrence).
    const seen = new Set<string>();
    const unique = events.filter((e) => !seen.has(e.hash) && seen.add(e.hash));
    const stored = new Set<string>();
    for (const block of blocksOf(unique)) {
      // The block and its keys in one statement; keys already stored (a re-delivery) come back missing
      // from `fresh`, and the block is then rewritten without their events.
      const [row] = await tx.query<{ block: string; fresh: string }>(
        `WITH block AS (
           INSERT INTO event_blocks (index_pattern_id, first_time, last_time, event_count, times, hashes, events) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id),
         fresh AS (
           INSERT INTO event_hashes (index_pattern_id, event_hash) SELECT $1, unnest($8::text[]) ON CONFLICT DO NOTHING RETURNING event_hash)
         SELECT (SELECT id::text FROM block) AS block, (SELECT coalesce(json_agg(event_hash), '[]') FROM fresh)::text AS fresh`,
        [patternId, ...blockValues(block), block.map((e) => e.hash)],
      );
      const fresh = new Set(JSON.parse(row.fresh) as string[]);
      for (const hash of fresh) stored.add(hash);
      if (fresh.size < block.length) await rewriteBlock(tx, row.block, block.filter((e) => fresh.has(e.hash)));
    }
    return stored;
  }

  async scan(patternId: string, since: Date, until: Date, visit: (batch: HistoryEvent[]) => Promise<boolean> | boolean): Promise<void> {
    // The cursor's time is the database's own text of it: microseconds, which a Date would round off.
    let cursor: { at: string; id: string } | null = null;
    const columns = 'id::text AS id, last_time::text AS at, times::text AS times, hashes::text AS hashes, events::text AS events';
    const limit = scanBlocks(this.db);
    for (;;) {
      const rows: BlockRow[] = await this.db.transaction(async (tx) => {
        await tx.query(INDEX_ORDER_ONLY);
        return cursor
          ? await tx.query<BlockRow>(
              `SELECT ${columns} FROM event_blocks
                WHERE index_pattern_id = $1 AND last_time > $2 AND first_time <= $3 AND (last_time, id) < ($4::timestamptz, $5::bigint)
                ORDER BY last_time DESC, id DESC LIMIT ${limit}`,
              [patternId, since, until, cursor.at, cursor.id],
            )
          : await tx.query<BlockRow>(
              `SELECT ${columns} FROM event_blocks
                WHERE index_pattern_id = $1 AND last_time > $2 AND first_time <= $3
                ORDER BY last_time DESC, id DESC LIMIT ${limit}`,
              [patternId, since, until],
            );
      });
      if (rows.length === 0) return;
      for (const block of rows) {
        const batch = eventsIn(block, since.getTime(), until.getTime());
        if (batch.length > 0 && (await visit(batch)) === false) return;
      }
      const last = rows[rows.length - 1];
      cursor = { at: last.at, id: last.id };
      if (rows.length < limit) return;
      // Let other requests run between blocks.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  async purge(patternId: string, retentionDays: number): Promise<number> {
    const [{ cutoff }] = await this.db.query<{ cutoff: Date }>(`SELECT now() - make_interval(days => $1) AS cutoff`, [retentionDays]);
    let removed = 0;
    for (;;) {
      const [{ n }] = await this.db.query<{ n: number }>(
        `WITH doomed AS (
           DELETE FROM event_blocks WHERE id IN (SELECT id FROM event_blocks WHERE index_pattern_id = $1 AND last_time < $2 LIMIT ${PURGE_BLOCKS})
           RETURNING hashes, event_count),
         gone AS (DELETE FROM event_hashes WHERE index_pattern_id = $1 AND event_hash IN (SELECT json_array_elements_text(hashes) FROM doomed))
         SELECT coalesce(sum(event_count), 0)::int AS n FROM doomed`,
        [patternId, cutoff],
      );
      removed += n;
      if (n === 0) break;
    }
    for (;;) {
      const trimmed = await this.db.transaction(async (tx) => {
        const blocks = await tx.query<BlockRow>(
          `SELECT id::text AS id, last_time::text AS at, times::text AS times, hashes::text AS hashes, events::text AS events FROM event_blocks
            WHERE index_pattern_id = $1 AND first_time < $2 LIMIT ${PURGE_BLOCKS} FOR UPDATE`,
          [patternId, cutoff],
        );
        let dropped = 0;
        for (const block of blocks) dropped += await trim(tx, patternId, block, cutoff.getTime());
        return { blocks: blocks.length, dropped };
      });
      removed += trimmed.dropped;
      if (trimmed.blocks < PURGE_BLOCKS || trimmed.dropped === 0) break;
    }
    return removed;
  }
}

/** The events of a block with their time in (since, until], in the block's order (newest first). */
function eventsIn(block: BlockRow, since: number, until: number): HistoryEvent[] {
  const times = JSON.parse(block.times) as number[];
  const hashes = JSON.parse(block.hashes) as string[];
  const events = parseJson(block.events) as Record<string, unknown>[];
  const batch: HistoryEvent[] = [];
  for (let i = 0; i < events.length; i++) {
    if (times[i] > since && times[i] <= until) batch.push({ id: hashes[i], eventTime: new Date(times[i]), event: events[i] });
  }
  return batch;
}

/** Drops a block's events older than `cutoff` (all of them: the block goes); answers how many. */
async function trim(tx: Queryable, patternId: string, block: BlockRow, cutoff: number): Promise<number> {
  const times = JSON.parse(block.times) as number[];
  const hashes = JSON.parse(block.hashes) as string[];
  const gone = hashes.filter((_, i) => times[i] < cutoff);
  if (gone.length === 0) return 0;
  // Read and written back with their numbers as stored (exact-json.ts).
  const events = parseJson(block.events) as unknown[];
  const kept = times.flatMap((t, i) => (t >= cutoff ? [{ time: new Date(t), hash: hashes[i], json: stringifyJson(events[i]) }] : []));
  await rewriteBlock(tx, block.id, kept);
  await tx.query(`DELETE FROM event_hashes WHERE index_pattern_id = $1 AND event_hash = ANY($2::text[])`, [patternId, gone]);
  return gone.length;
}

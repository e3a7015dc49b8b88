// SQL for process ancestry: the stored events of one index pattern and host that may start a process,
// within a window around an alert's event. Bounded work whatever the table holds: blocks are chosen by
// index ranges (pattern and latest event time; pattern and earliest event time, migration 23), nearest
// the alert's time first, at most MAX_BLOCKS per range and MAX_SCANNED_EVENTS events in all (a block
// that begins before the window and ends after it is not read); blocks whose text lacks the host are skipped whole;
// only events naming the host and a parent process come back (at most MAX_CANDIDATES), read a few
// thousand events per statement so the embedded database answers other requests in between.
import type { Database } from '../db/database.js';

export const WINDOW_SECONDS = 24 * 3600;
export const MAX_BLOCKS = 2000;
export const MAX_SCANNED_EVENTS = 100_000;
/** Blocks beginning in the window looked at (latest first) for those that end after it. */
const MAX_SPANNING_WALK = 20_000;
export const MAX_CANDIDATES = 20_000;
/** Events read per statement (whole blocks; one block may exceed it). */
const EVENTS_PER_STATEMENT = 5000;

export interface CandidateEvent {
  hash: string;
  time: Date;
  json: string;
}

export interface Candidates {
  events: CandidateEvent[];
  /** Events in the blocks read. */
  scanned: number;
  /** A bound left blocks or events of the window unread. */
  truncated: boolean;
}

/** Text that marks a process start in any shape: Sysmon's ParentProcessGuid/Id, 4688's NewProcessId, ECS process.parent. */
export const START_MARKS = ['ParentProcess', 'NewProcessId', '"parent"', '.parent.'];

export async function processStartCandidates(db: Database, patternId: string, around: Date, host: string): Promise<Candidates> {
  const from = new Date(around.getTime() - WINDOW_SECONDS * 1000);
  const to = new Date(around.getTime() + WINDOW_SECONDS * 1000);
  // Blocks ending in the window, nearest the alert's time first on either side (the history index), and
  // blocks beginning in it that end after it (migration 23's index; among the MAX_SPANNING_WALK that
  // begin last in the window).
  // Read in index order whatever the statistics say (the embedded database never gathers them by itself).
  const blocks = await db.transaction(async (tx) => {
    await tx.query(`SELECT set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true), set_config('enable_sort', 'off', true)`);
    return tx.query<{ id: string; event_count: number; near: Date; side: string }>(
      `(SELECT b.id::text AS id, b.event_count, b.last_time AS near, 'after' AS side FROM event_blocks b
         WHERE b.index_pattern_id = $1 AND b.last_time >= $2 AND b.last_time <= $3
         ORDER BY b.last_time, b.id LIMIT $5)
       UNION ALL
       (SELECT b.id::text AS id, b.event_count, b.last_time AS near, 'before' AS side FROM event_blocks b
         WHERE b.index_pattern_id = $1 AND b.last_time < $2 AND b.last_time >= $4
         ORDER BY b.last_time DESC, b.id DESC LIMIT $5)
       UNION ALL
       (SELECT s.id::text AS id, s.event_count, greatest(s.first_time, $2) AS near, 'spanning' AS side
          FROM (SELECT b.id, b.event_count, b.first_time, b.last_time FROM event_blocks b
                 WHERE b.index_pattern_id = $1 AND b.first_time >= $4 AND b.first_time <= $3
                 ORDER BY b.first_time DESC LIMIT $6) s
         WHERE s.last_time > $3 LIMIT $5)`,
      [patternId, around, to, from, MAX_BLOCKS, MAX_SPANNING_WALK],
    );
  });
  const sides = new Map<string, number>();
  for (const block of blocks) sides.set(block.side, (sides.get(block.side) ?? 0) + 1);
  let truncated = [...sides.values()].some((n) => n >= MAX_BLOCKS);
  const at = around.getTime();
  blocks.sort((a, b) => Math.abs(a.near.getTime() - at) - Math.abs(b.near.getTime() - at));
  const chosen: { id: string; event_count: number }[] = [];
  let scanned = 0;
  for (const block of blocks) {
    if (scanned + block.event_count > MAX_SCANNED_EVENTS && chosen.length > 0) {
      truncated = true;
      break;
    }
    chosen.push(block);
    scanned += block.event_count;
  }

  // The host as it appears inside JSON text (quotes and backslashes escaped).
  const hostText = JSON.stringify(host).slice(1, -1);
  const events: CandidateEvent[] = [];
  let i = 0;
  while (i < chosen.length && events.length <= MAX_CANDIDATES) {
    const ids: string[] = [];
    let count = 0;
    while (i < chosen.length && (ids.length === 0 || count + chosen[i].event_count <= EVENTS_PER_STATEMENT)) {
      ids.push(chosen[i].id);
      count += chosen[i].event_count;
      i++;
    }
    const rows = await db.query<{ hash: string; ms: string; json: string }>(
      `SELECT e.hash, e.ms, e.event::text AS json
         FROM event_blocks b,
              ROWS FROM (json_array_elements(b.events), json_array_elements_text(b.hashes), json_array_elements_text(b.times)) AS e(event, hash, ms)
        WHERE b.id = ANY($1::bigint[]) AND strpos(b.events::text, $2) > 0
          AND e.ms::float8 BETWEEN $3 AND $4
          AND strpos(e.event::text, $2) > 0
          AND (${START_MARKS.map((_, n) => `strpos(e.event::text, $${n + 6}) > 0`).join(' OR ')})
        LIMIT $5`,
      [ids, hostText, from.getTime(), to.getTime(), MAX_CANDIDATES - events.length + 1, ...START_MARKS],
    );
    for (const row of rows) events.push({ hash: row.hash, time: new Date(Number(row.ms)), json: row.json });
    // Let other requests run between statements.
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (events.length > MAX_CANDIDATES || i < chosen.length) truncated = true;
  if (events.length > MAX_CANDIDATES) events.length = MAX_CANDIDATES;
  return { events, scanned, truncated };
}

/** The id of the index pattern an alert's event came in through (null when the pattern is gone). */
export async function alertPatternId(db: Database, alertId: string): Promise<string | null> {
  const [row] = await db.query<{ index_pattern_id: string | null }>('SELECT index_pattern_id FROM alerts WHERE id = $1', [alertId]);
  return row?.index_pattern_id ?? null;
}

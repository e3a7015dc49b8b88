// What autovacuum would do on the embedded database, which has none: planner statistics, and space
// reclaimed from a table whose rows are rewritten all the time (correlation window states). Statistics: without them
// the planner guesses that any status or severity is rare, so a search filtered by status reads every
// alert of that status through its index instead of the few the trigram index finds (1.5 s against
// 30 ms at 100 000 alerts). A table is analysed when it has never been and holds more than 50 rows, or
// when it changed by more than autovacuum's own threshold (50 rows and a tenth of the table) since it
// last was; the check is a small catalogue query made at most every CHECK_EVERY_MS per table.
// PostgreSQL's autovacuum does this by itself.
import type { Database } from './database.js';

const CHECK_EVERY_MS = 30_000;
const BASE_THRESHOLD = 50;
const SCALE_FACTOR = 0.1;

/** Tables this module may analyse (the name is spliced into ANALYZE). */
export type AnalysedTable = 'alerts';

const lastChecks = new WeakMap<Database, Map<AnalysedTable, number>>();

/** Gathers `table`'s statistics on the embedded database when they are missing or stale. */
export async function analyseWhenStale(db: Database, table: AnalysedTable, now = Date.now()): Promise<boolean> {
  if (db.kind !== 'pglite') return false;
  let checks = lastChecks.get(db);
  if (!checks) lastChecks.set(db, (checks = new Map()));
  if (now - (checks.get(table) ?? -Infinity) < CHECK_EVERY_MS) return false;
  checks.set(table, now);
  const [row] = await db.query<{ reltuples: number; live: number; changed: number }>(
    `SELECT c.reltuples::float8 AS reltuples, s.n_live_tup::float8 AS live, s.n_mod_since_analyze::float8 AS changed
     FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid
     WHERE c.oid = $1::regclass`,
    [table],
  );
  if (!row) return false;
  if (row.reltuples < 0) {
    // Never analysed. The change counts reach pg_stat_user_tables a moment after their transaction,
    // so the rows themselves are counted, up to the threshold.
    const [{ n }] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM (SELECT 1 FROM ${table} LIMIT ${BASE_THRESHOLD + 1}) r`);
    if (n <= BASE_THRESHOLD) return false;
  } else if (row.changed <= BASE_THRESHOLD + SCALE_FACTOR * Math.max(row.reltuples, row.live)) {
    return false;
  }
  await db.query(`ANALYZE ${table}`);
  return true;
}

/**
 * Reclaims the space of replaced window states on the embedded database (no autovacuum there): each
 * ingest chunk that feeds a correlation rewrites its state row, so the table grows by the states'
 * size at every chunk until vacuumed. Run from the periodic housekeeping.
 */
export async function vacuumCorrelationStates(db: Database): Promise<void> {
  if (db.kind !== 'pglite') return;
  await db.query('VACUUM correlation_states');
}

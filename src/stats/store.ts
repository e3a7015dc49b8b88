// SQL behind the dashboard figures besides the alert counts (src/alerts/counts.ts): the last day hour
// by hour, rule titles, rule deployment and ingested event counts.
import type { Queryable } from '../db/database.js';

/** Alerts created in the last 24 hours (a rolling window ending now). */
export async function alertsSince24h(db: Queryable): Promise<number> {
  const [row] = await db.query<{ count: number }>(`SELECT count(*)::int AS count FROM alerts WHERE created_at > now() - interval '24 hours'`);
  return row.count;
}

/** Matches folded into open alerts by rules with suppression (each alert's occurrences beyond its first). */
export async function suppressedMatches(db: Queryable): Promise<number> {
  const [row] = await db.query<{ n: string | number }>('SELECT coalesce(sum(occurrences - 1), 0)::bigint AS n FROM alerts WHERE occurrences > 1');
  return Number(row.n);
}

/** Alerts created per UTC hour, for the 24 hours ending with the current one (oldest first, zero-filled). */
export function hourlyAlerts(db: Queryable): Promise<{ time: Date; count: number }[]> {
  return db.query<{ time: Date; count: number }>(
    `SELECT h.hour AS time,
       (SELECT count(*)::int FROM alerts a WHERE a.created_at >= h.hour AND a.created_at < h.hour + interval '1 hour') AS count
     FROM generate_series(date_trunc('hour', now(), 'UTC') - interval '23 hours', date_trunc('hour', now(), 'UTC'), interval '1 hour') AS h (hour)
     ORDER BY h.hour`,
  );
}

/** Rule titles by id: the rule's current title, or the title its latest alert carried when the rule
 * has been deleted. */
export async function ruleTitles(db: Queryable, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.query<{ rule_id: string; rule_title: string }>(
    `SELECT t.id AS rule_id,
       coalesce((SELECT r.title FROM rules r WHERE r.id = t.id),
                (SELECT a.rule_title FROM alerts a WHERE a.rule_id = t.id ORDER BY a.created_at DESC, a.id DESC LIMIT 1), '') AS rule_title
     FROM unnest($1::uuid[]) AS t (id)`,
    [ids],
  );
  return new Map(rows.map((r) => [r.rule_id, r.rule_title]));
}

export async function ruleCounts(db: Queryable): Promise<{ total: number; deployed: number }> {
  const [row] = await db.query<{ total: number; deployed: number }>(
    `SELECT count(*)::int AS total, (count(*) FILTER (WHERE status = 'deployed'))::int AS deployed FROM rules`,
  );
  return row;
}

/**
 * Events received per UTC hour, for the same 24 hours as the alert timeline (oldest first,
 * zero-filled), read from the hourly event counts through their hour index: 24 index lookups whatever
 * the number of stored events.
 */
export async function hourlyEvents(db: Queryable): Promise<{ time: Date; count: number }[]> {
  const rows = await db.query<{ time: Date; count: string | number }>(
    `SELECT h.hour AS time, (SELECT coalesce(sum(c.n), 0) FROM event_counts c WHERE c.hour = h.hour) AS count
     FROM generate_series(date_trunc('hour', now(), 'UTC') - interval '23 hours', date_trunc('hour', now(), 'UTC'), interval '1 hour') AS h (hour)
     ORDER BY h.hour`,
  );
  return rows.map((r) => ({ time: r.time, count: Number(r.count) }));
}

/** Event-count deltas allowed to pile up before a reader folds them. */
const FOLD_EVENT_COUNTS_AFTER = 1000;

/** Folds event_counts (migration 7) into one row per hour; safe to run concurrently. */
export async function foldEventCounts(db: Queryable): Promise<void> {
  await db.query(
    `WITH gone AS (DELETE FROM event_counts RETURNING hour, n)
     INSERT INTO event_counts (hour, n, delta) SELECT hour, sum(n), false FROM gone GROUP BY hour HAVING sum(n) <> 0`,
  );
}

/**
 * Stored events: all, and those received in the last 24 hours (a rolling window ending now). Whole
 * hours come from the hourly counts; the partial hour where the window starts is counted from the
 * events themselves (the event blocks received then, through their received_at index), so the figure is exact.
 */
export async function eventCounts(db: Queryable): Promise<{ total: number; last_24h: number }> {
  const [{ deltas }] = await db.query<{ deltas: number }>(
    `SELECT count(*)::int AS deltas FROM (SELECT 1 FROM event_counts WHERE delta LIMIT ${FOLD_EVENT_COUNTS_AFTER + 1}) d`,
  );
  if (deltas > FOLD_EVENT_COUNTS_AFTER) await foldEventCounts(db);
  const [row] = await db.query<{ total: number; last_24h: number }>(
    `WITH bounds AS (SELECT now() - interval '24 hours' AS since, date_trunc('hour', now() - interval '24 hours', 'UTC') + interval '1 hour' AS whole)
     SELECT (SELECT coalesce(sum(n), 0)::bigint FROM event_counts) AS total,
       (SELECT coalesce(sum(n), 0)::bigint FROM event_counts, bounds WHERE hour >= bounds.whole)
         + (SELECT coalesce(sum(event_count), 0)::bigint FROM event_blocks, bounds WHERE received_at > bounds.since AND received_at < bounds.whole) AS last_24h`,
  );
  return { total: Number(row.total), last_24h: Number(row.last_24h) };
}

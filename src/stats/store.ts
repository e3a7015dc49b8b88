// SQL behind the dashboard figures: alert counts by status and severity, the last day hour by hour,
// the rules raising the most alerts, rule deployment and ingested event counts.
import type { Queryable } from '../db/database.js';

export interface AlertCount {
  status: string;
  severity: string;
  count: number;
  [key: string]: unknown;
}

/** Alerts per (status, severity): one pass gives the total, the open ones and both breakdowns. */
export function alertCounts(db: Queryable): Promise<AlertCount[]> {
  return db.query<AlertCount>('SELECT status, severity, count(*)::int AS count FROM alerts GROUP BY status, severity');
}

/** Alerts created in the last 24 hours (a rolling window ending now). */
export async function alertsSince24h(db: Queryable): Promise<number> {
  const [row] = await db.query<{ count: number }>(`SELECT count(*)::int AS count FROM alerts WHERE created_at > now() - interval '24 hours'`);
  return row.count;
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

/** The rules with the most alerts (all time), named by the rule's current title, or the title its
 * latest alert carried when the rule has been deleted. */
export function topRules(db: Queryable, limit: number): Promise<{ rule_id: string; rule_title: string; count: number }[]> {
  return db.query(
    `SELECT t.rule_id, t.count,
       coalesce((SELECT r.title FROM rules r WHERE r.id = t.rule_id),
                (SELECT a.rule_title FROM alerts a WHERE a.rule_id = t.rule_id ORDER BY a.created_at DESC, a.id DESC LIMIT 1)) AS rule_title
     FROM (SELECT rule_id, count(*)::int AS count FROM alerts GROUP BY rule_id ORDER BY count(*) DESC, rule_id LIMIT $1) t
     ORDER BY t.count DESC, t.rule_id`,
    [limit],
  );
}

export async function ruleCounts(db: Queryable): Promise<{ total: number; deployed: number }> {
  const [row] = await db.query<{ total: number; deployed: number }>(
    `SELECT count(*)::int AS total, (count(*) FILTER (WHERE status = 'deployed'))::int AS deployed FROM rules`,
  );
  return row;
}

/** Stored events: all, and those received in the last 24 hours. */
export async function eventCounts(db: Queryable): Promise<{ total: number; last_24h: number }> {
  const [row] = await db.query<{ total: number; last_24h: number }>(
    `SELECT (SELECT count(*)::int FROM events) AS total,
       (SELECT count(*)::int FROM events WHERE received_at > now() - interval '24 hours') AS last_24h`,
  );
  return row;
}

// Shift figures for the dashboard: how fast alerts are acknowledged and closed (the last 7 days, from
// the alert change log), how old the oldest open alert is, who holds the open alerts, and how often
// each rule's closed alerts (raised in the last 30 days) turned out false positives.
import type { Queryable } from '../db/database.js';
import { foldIfDue } from '../alerts/counts.js';

export const SHIFT_DAYS = 7;
export const PRECISION_DAYS = 30;
export const PRECISION_RULES = 10;

export interface ShiftFigures {
  mean_time_to_acknowledge_seconds: number | null;
  mean_time_to_resolve_seconds: number | null;
  oldest_open_alert_age_seconds: number | null;
  open_by_assignee: { assignee: string | null; assignee_name: string | null; count: number }[];
  rule_precision: { rule_id: string; rule_title: string; closed: number; false_positives: number; false_positive_rate: number }[];
}

const seconds = (value: string | number | null) => (value === null ? null : Math.round(Number(value)));

export async function shiftFigures(db: Queryable): Promise<ShiftFigures> {
  const [times] = await db.query<{ ack: string | null; close: string | null; oldest: string | null }>(
    `SELECT
       (SELECT avg(extract(epoch FROM c.changed_at - a.created_at)) FROM alert_changes c JOIN alerts a ON a.id = c.alert_id
         WHERE c.changed_at > now() - interval '${SHIFT_DAYS} days' AND c.kind = 'updated' AND c.status = 'acknowledged') AS ack,
       (SELECT avg(extract(epoch FROM c.changed_at - a.created_at)) FROM alert_changes c JOIN alerts a ON a.id = c.alert_id
         WHERE c.changed_at > now() - interval '${SHIFT_DAYS} days' AND c.kind = 'updated' AND c.status IN ('resolved', 'false_positive')) AS close,
       extract(epoch FROM now() - least((SELECT min(created_at) FROM alerts WHERE status = 'new'),
                                         (SELECT min(created_at) FROM alerts WHERE status = 'acknowledged'))) AS oldest`,
  );
  // The assigned open alerts are counted through the partial index on assignee; the unassigned are
  // the open total (alert_counts) less those, rather than a count over every open alert.
  await foldIfDue(db);
  const owners = await db.query<{ assignee: string | null; assignee_name: string | null; count: number }>(
    `WITH assigned AS (SELECT assignee, count(*)::int AS count FROM alerts WHERE assignee IS NOT NULL AND status IN ('new', 'acknowledged') GROUP BY assignee),
          unassigned AS (SELECT NULL::uuid AS assignee,
                                ((SELECT coalesce(sum(n), 0) FROM alert_counts WHERE status IN ('new', 'acknowledged')) - (SELECT coalesce(sum(count), 0) FROM assigned))::int AS count)
     SELECT o.assignee, u.username AS assignee_name, o.count
       FROM (SELECT * FROM assigned UNION ALL SELECT * FROM unassigned) o
       LEFT JOIN users u ON u.id = o.assignee
      WHERE o.count > 0
      ORDER BY o.count DESC, u.username NULLS FIRST`,
  );
  const precision = await db.query<{ rule_id: string; rule_title: string; closed: number; false_positives: number }>(
    // Counted from the status index, which carries the rule (migration 26); the title of a rule gone
    // since is the one one of its alerts was raised under.
    `SELECT p.rule_id, coalesce(r.title, (SELECT a.rule_title FROM alerts a WHERE a.rule_id = p.rule_id LIMIT 1)) AS rule_title, p.closed, p.false_positives
       FROM (SELECT rule_id, count(*)::int AS closed, (count(*) FILTER (WHERE status = 'false_positive'))::int AS false_positives
               FROM alerts WHERE status IN ('resolved', 'false_positive') AND created_at > now() - interval '${PRECISION_DAYS} days'
              GROUP BY rule_id ORDER BY count(*) DESC, rule_id LIMIT ${PRECISION_RULES}) p
       LEFT JOIN rules r ON r.id = p.rule_id
      ORDER BY p.closed DESC, p.rule_id`,
  );
  return {
    mean_time_to_acknowledge_seconds: seconds(times.ack),
    mean_time_to_resolve_seconds: seconds(times.close),
    oldest_open_alert_age_seconds: seconds(times.oldest),
    open_by_assignee: owners,
    rule_precision: precision.map((p) => ({ ...p, false_positive_rate: Math.round((p.false_positives / p.closed) * 1000) / 1000 })),
  };
}

// Alert counts without counting alerts: alert_counts (migration 7) holds signed deltas per
// (rule, index pattern, status, severity) appended by triggers on every insert, status change and
// delete. Summing them gives exact counts in a few milliseconds at any number of alerts; once many
// deltas have piled up a reader folds them into one row per key (one atomic statement, safe to run
// concurrently: each fold removes only the rows it saw and puts back their sums).
import type { Queryable } from '../db/database.js';
import type { Conditions } from '../http/lists.js';

/** Deltas allowed to pile up before a reader folds them. */
export const FOLD_AFTER = 1000;

/** The list filters alert_counts can answer (its columns carry the alerts' column names). */
export const COUNTED_FILTERS = ['status', 'severity', 'rule_id', 'index_pattern'] as const;

/** Folds the deltas into one row per key. */
export async function foldAlertCounts(db: Queryable): Promise<void> {
  await db.query(
    `WITH gone AS (DELETE FROM alert_counts RETURNING rule_id, index_pattern, status, severity_rank, n)
     INSERT INTO alert_counts (rule_id, index_pattern, status, severity_rank, n, delta)
     SELECT rule_id, index_pattern, status, severity_rank, sum(n), false FROM gone
     GROUP BY rule_id, index_pattern, status, severity_rank HAVING sum(n) <> 0`,
  );
}

export async function foldIfDue(db: Queryable): Promise<void> {
  const [{ deltas }] = await db.query<{ deltas: number }>(
    `SELECT count(*)::int AS deltas FROM (SELECT 1 FROM alert_counts WHERE delta LIMIT ${FOLD_AFTER + 1}) d`,
  );
  if (deltas > FOLD_AFTER) await foldAlertCounts(db);
}

/** The number of alerts matching `where`, whose conditions name only columns of alert_counts. */
export async function countAlerts(db: Queryable, where: Conditions): Promise<number> {
  await foldIfDue(db);
  const [{ total }] = await db.query<{ total: number }>(`SELECT coalesce(sum(n), 0)::int AS total FROM alert_counts ${where.sql}`, where.params);
  return total;
}

export interface GroupCount {
  status: string;
  severity_rank: number;
  count: number;
  [key: string]: unknown;
}

/** Alerts per (status, severity rank). */
export async function countByStatusAndSeverity(db: Queryable): Promise<GroupCount[]> {
  await foldIfDue(db);
  return db.query<GroupCount>(
    `SELECT status, severity_rank, sum(n)::int AS count FROM alert_counts GROUP BY status, severity_rank HAVING sum(n) <> 0`,
  );
}

/** The rules with the most alerts: id and count, most first, ties by id. */
export async function countTopRules(db: Queryable, limit: number): Promise<{ rule_id: string; count: number }[]> {
  await foldIfDue(db);
  return db.query(
    `SELECT rule_id, sum(n)::int AS count FROM alert_counts GROUP BY rule_id HAVING sum(n) > 0 ORDER BY sum(n) DESC, rule_id LIMIT $1`,
    [limit],
  );
}

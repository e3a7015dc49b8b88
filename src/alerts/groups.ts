// Alerts grouped by rule, host, user or source IP, under the list's filters: per group its key, a label
// (the rule's title for a rule), how many alerts, the highest severity and the first and last time seen;
// the largest groups first. One aggregate over the matching alerts; `total` is the number of groups.
// Groups by rule under no filter beyond status, severity, rule and index pattern take their counts
// from alert_counts instead, and each shown rule's first and last time from its own index.
import type { Queryable } from '../db/database.js';
import { foldIfDue } from './counts.js';
import { alertConditions, countable, type AlertListQuery } from './queries.js';
import { SEVERITIES, severityRank, type Severity } from './severity.js';

export const GROUP_KEYS = ['rule_id', 'host', 'user', 'source_ip'] as const;
export type GroupKey = (typeof GROUP_KEYS)[number];

const COLUMN: Record<GroupKey, string> = { rule_id: 'rule_id::text', host: 'host', user: '"user"', source_ip: 'source_ip' };

export interface AlertGroup {
  key: string | null;
  label: string;
  count: number;
  max_severity: Severity;
  first_seen: string;
  last_seen: string;
}

interface GroupRow {
  key: string | null;
  label: string | null;
  count: number;
  max_rank: number;
  first_seen: Date;
  last_seen: Date;
  groups: number;
  [column: string]: unknown;
}

const severityOfRank = (rank: number): Severity => SEVERITIES.find((s) => severityRank(s) === rank) ?? 'informational';

export async function groupAlerts(db: Queryable, by: GroupKey, q: AlertListQuery, limit: number): Promise<{ items: AlertGroup[]; total: number }> {
  const rows = by === 'rule_id' && countable(q) ? await ruleGroupsFromCounts(db, q, limit) : await aggregateGroups(db, by, q, limit);
  return {
    items: rows.map((r) => ({
      key: r.key,
      label: r.label ?? '(none)',
      count: r.count,
      max_severity: severityOfRank(r.max_rank),
      first_seen: r.first_seen.toISOString(),
      last_seen: r.last_seen.toISOString(),
    })),
    total: rows[0]?.groups ?? 0,
  };
}

/**
 * Groups by rule from alert_counts (the filters name only its columns): counts and highest severity
 * per rule without reading alerts; then, for the rules shown, the first time from the rule's index and
 * the last as the later of its newest alert and its latest repeat (only alerts with a suppression key
 * take repeats, through their own index).
 */
async function ruleGroupsFromCounts(db: Queryable, q: AlertListQuery, limit: number): Promise<GroupRow[]> {
  await foldIfDue(db);
  const where = alertConditions(q);
  const and = where.sql ? `${where.sql} AND` : 'WHERE';
  return db.query<GroupRow>(
    `WITH buckets AS (SELECT rule_id, severity_rank, sum(n) AS n FROM alert_counts ${where.sql}
                        GROUP BY rule_id, index_pattern, status, severity_rank HAVING sum(n) > 0),
          g AS (SELECT rule_id, sum(n)::int AS count, max(severity_rank)::int AS max_rank, (count(*) OVER ())::int AS groups
                  FROM buckets GROUP BY rule_id ORDER BY sum(n) DESC, rule_id::text LIMIT ${Math.floor(limit)})
     SELECT g.rule_id::text AS key, g.count, g.max_rank, g.groups,
            coalesce((SELECT r.title FROM rules r WHERE r.id = g.rule_id), (SELECT a.rule_title FROM alerts a WHERE a.rule_id = g.rule_id LIMIT 1)) AS label,
            (SELECT min(created_at) FROM alerts ${and} rule_id = g.rule_id) AS first_seen,
            greatest((SELECT max(created_at) FROM alerts ${and} rule_id = g.rule_id),
                     (SELECT max(last_seen_at) FROM alerts ${and} rule_id = g.rule_id AND suppression_key IS NOT NULL AND last_seen_at IS NOT NULL)) AS last_seen
       FROM g ORDER BY g.count DESC, g.rule_id::text`,
    where.params,
  );
}

/** One aggregate over the matching alerts. */
async function aggregateGroups(db: Queryable, by: GroupKey, q: AlertListQuery, limit: number): Promise<GroupRow[]> {
  const where = alertConditions(q);
  const column = COLUMN[by];
  // A rule's label is its current title, or the title its alerts were raised under when it is gone.
  const label = by === 'rule_id' ? `coalesce((SELECT r.title FROM rules r WHERE r.id::text = g.key), g.any_title)` : 'g.key';
  return db.query<GroupRow>(
    `SELECT g.key, ${label} AS label, g.count, g.max_rank, g.first_seen, g.last_seen, g.groups
       FROM (SELECT ${column} AS key, count(*)::int AS count, max(severity_rank)::int AS max_rank, min(created_at) AS first_seen,
                    max(coalesce(last_seen_at, created_at)) AS last_seen, max(rule_title) AS any_title, (count(*) OVER ())::int AS groups
               FROM alerts ${where.sql} GROUP BY 1 ORDER BY count(*) DESC, 1 NULLS LAST LIMIT ${Math.floor(limit)}) g
      ORDER BY g.count DESC, g.key NULLS LAST`,
    where.params,
  );
}

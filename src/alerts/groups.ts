// Alerts grouped by rule, host, user or source IP, under the list's filters: per group its key, a label
// (the rule's title for a rule), how many alerts, the highest severity and the first and last time seen;
// the largest groups first. One aggregate over the matching alerts; `total` is the number of groups.
import type { Queryable } from '../db/database.js';
import { alertConditions, type AlertListQuery } from './queries.js';
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
  const where = alertConditions(q);
  const column = COLUMN[by];
  // A rule's label is its current title, or the title its alerts were raised under when it is gone.
  const label = by === 'rule_id' ? `coalesce((SELECT r.title FROM rules r WHERE r.id::text = g.key), g.any_title)` : 'g.key';
  const rows = await db.query<GroupRow>(
    `SELECT g.key, ${label} AS label, g.count, g.max_rank, g.first_seen, g.last_seen, g.groups
       FROM (SELECT ${column} AS key, count(*)::int AS count, max(severity_rank)::int AS max_rank, min(created_at) AS first_seen,
                    max(coalesce(last_seen_at, created_at)) AS last_seen, max(rule_title) AS any_title, (count(*) OVER ())::int AS groups
               FROM alerts ${where.sql} GROUP BY 1 ORDER BY count(*) DESC, 1 NULLS LAST LIMIT ${Math.floor(limit)}) g
      ORDER BY g.count DESC, g.key NULLS LAST`,
    where.params,
  );
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

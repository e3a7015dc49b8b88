// SQL for a rule's suppression setting: which fields group its matches and how long an open alert of
// a group takes the group's further matches. One row per rule; none means every match is an alert.
import type { Queryable } from '../../db/database.js';

export interface SuppressionRow {
  rule_id: string;
  group_by: string[];
  window_seconds: number;
  updated_by: string;
  updated_at: Date;
  [key: string]: unknown;
}

const COLUMNS = 'rule_id, group_by, window_seconds, updated_by, updated_at';

export async function findSuppression(db: Queryable, ruleId: string): Promise<SuppressionRow | undefined> {
  const [row] = await db.query<SuppressionRow>(`SELECT ${COLUMNS} FROM rule_suppressions WHERE rule_id = $1`, [ruleId]);
  return row;
}

/** The suppression settings of these rules (those that have one). */
export async function suppressionsOf(db: Queryable, ruleIds: string[]): Promise<Map<string, SuppressionRow>> {
  if (ruleIds.length === 0) return new Map();
  const rows = await db.query<SuppressionRow>(`SELECT ${COLUMNS} FROM rule_suppressions WHERE rule_id = ANY($1::uuid[])`, [ruleIds]);
  return new Map(rows.map((r) => [r.rule_id, r]));
}

export async function saveSuppression(tx: Queryable, ruleId: string, groupBy: string[], windowSeconds: number, actor: string): Promise<SuppressionRow> {
  const [row] = await tx.query<SuppressionRow>(
    `INSERT INTO rule_suppressions (rule_id, group_by, window_seconds, updated_by) VALUES ($1, $2, $3, $4)
     ON CONFLICT (rule_id) DO UPDATE SET group_by = EXCLUDED.group_by, window_seconds = EXCLUDED.window_seconds,
       updated_by = EXCLUDED.updated_by, updated_at = now()
     RETURNING ${COLUMNS}`,
    [ruleId, JSON.stringify(groupBy), windowSeconds, actor],
  );
  return row;
}

export async function deleteSuppression(tx: Queryable, ruleId: string): Promise<boolean> {
  return (await tx.query('DELETE FROM rule_suppressions WHERE rule_id = $1 RETURNING rule_id', [ruleId])).length > 0;
}

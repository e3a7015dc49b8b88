// SQL for rules and their version history.
import type { Queryable } from '../db/database.js';
import { Conditions, paginate, type ListQuery, type Page } from '../http/lists.js';

/** The content fields derived from a rule's YAML. */
export interface RuleContent {
  title: string;
  yaml_content: string;
  severity: string;
  level: string;
  tags: string[];
  description: string | null;
  author: string | null;
  logsource: Record<string, string>;
  sigma_id: string | null;
  index_pattern_id: string | null;
  rule_type: RuleType;
  /** The rule's Sigma `name` (correlations reference rules by id or name). */
  sigma_name: string | null;
  /** A correlation's references (lower-cased rule ids or names); null for a detection rule. */
  correlation_refs: string[] | null;
}

export type RuleType = 'detection' | 'correlation';

export interface RuleRow extends RuleContent {
  id: string;
  status: 'deployed' | 'undeployed';
  /** Name of the bound index pattern (joined). */
  index_pattern: string | null;
  version: number;
  deployed_version: number | null;
  deployed_at: Date | null;
  percolator_id: string | null;
  created_by: string;
  created_at: Date;
  updated_at: Date;
  [key: string]: unknown;
}

export const RULE_SELECT = `r.id, r.title, r.yaml_content, r.status, r.severity, r.level, r.tags, r.description, r.author,
  r.logsource, r.sigma_id, r.index_pattern_id, p.name AS index_pattern, r.version, r.deployed_version, r.deployed_at,
  r.percolator_id, r.created_by, r.created_at, r.updated_at, r.rule_type, r.sigma_name, r.correlation_refs`;
export const RULE_FROM = 'rules r LEFT JOIN index_patterns p ON p.id = r.index_pattern_id';

const refsJson = (content: RuleContent) => (content.correlation_refs === null ? null : JSON.stringify(content.correlation_refs));

export async function findRule(db: Queryable, id: string, forUpdate = false): Promise<RuleRow | undefined> {
  const [row] = await db.query<RuleRow>(`SELECT ${RULE_SELECT} FROM ${RULE_FROM} WHERE r.id = $1${forUpdate ? ' FOR UPDATE OF r' : ''}`, [id]);
  return row;
}

export async function insertRule(tx: Queryable, id: string, content: RuleContent, createdBy: string): Promise<void> {
  await tx.query(
    `INSERT INTO rules (id, title, yaml_content, severity, level, tags, description, author, logsource, sigma_id,
        index_pattern_id, created_by, rule_type, sigma_name, correlation_refs)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
    [id, content.title, content.yaml_content, content.severity, content.level, JSON.stringify(content.tags), content.description,
      content.author, JSON.stringify(content.logsource), content.sigma_id, content.index_pattern_id, createdBy, content.rule_type,
      content.sigma_name, refsJson(content)],
  );
}

/**
 * Inserts many new rules with their first version in a few statements (bulk import). A rule with a
 * `percolatorId` is inserted as deployed at version 1 (its stored query is written by the caller).
 */
export async function insertRulesWithVersions(
  tx: Queryable,
  rules: { id: string; content: RuleContent; percolatorId: string | null }[],
  createdBy: string,
  reason: string,
): Promise<void> {
  const BATCH = 500;
  for (let start = 0; start < rules.length; start += BATCH) {
    const slice = rules.slice(start, start + BATCH);
    const params: unknown[] = [createdBy];
    const values = slice.map(({ id, content, percolatorId }) => {
      params.push(id, content.title, content.yaml_content, content.severity, content.level, JSON.stringify(content.tags), content.description,
        content.author, JSON.stringify(content.logsource), content.sigma_id, content.index_pattern_id, percolatorId,
        content.rule_type, content.sigma_name, refsJson(content));
      const n = params.length - 15;
      const p = (k: number) => `$${n + k}`;
      return `(${p(1)}::uuid, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)}::jsonb, ${p(7)}, ${p(8)}, ${p(9)}::jsonb, ${p(10)}, ${p(11)}::uuid, $1,
        CASE WHEN ${p(12)}::text IS NULL THEN 'undeployed' ELSE 'deployed' END, CASE WHEN ${p(12)}::text IS NULL THEN NULL ELSE now() END,
        ${p(12)}::text, CASE WHEN ${p(12)}::text IS NULL THEN NULL ELSE 1 END, ${p(13)}, ${p(14)}, ${p(15)}::jsonb)`;
    });
    await tx.query(
      `INSERT INTO rules (id, title, yaml_content, severity, level, tags, description, author, logsource, sigma_id,
          index_pattern_id, created_by, status, deployed_at, percolator_id, deployed_version, rule_type, sigma_name, correlation_refs)
       VALUES ${values.join(', ')}`,
      params,
    );
    const versionParams: unknown[] = [createdBy, reason];
    const versionValues = slice.map(({ id, content }) => {
      versionParams.push(id, content.title, content.yaml_content, content.index_pattern_id);
      const n = versionParams.length - 4;
      return `($${n + 1}::uuid, 1, $${n + 2}, $${n + 3}, $${n + 4}::uuid, $1, $2)`;
    });
    await tx.query(
      `INSERT INTO rule_versions (rule_id, version, title, yaml_content, index_pattern_id, changed_by, change_reason) VALUES ${versionValues.join(', ')}`,
      versionParams,
    );
  }
}

export async function updateRuleContent(tx: Queryable, id: string, content: RuleContent, version: number): Promise<void> {
  await tx.query(
    `UPDATE rules SET title = $2, yaml_content = $3, severity = $4, level = $5, tags = $6, description = $7, author = $8,
        logsource = $9, sigma_id = $10, index_pattern_id = $11, version = $12, rule_type = $13, sigma_name = $14,
        correlation_refs = $15, updated_at = now()
     WHERE id = $1`,
    [id, content.title, content.yaml_content, content.severity, content.level, JSON.stringify(content.tags), content.description,
      content.author, JSON.stringify(content.logsource), content.sigma_id, content.index_pattern_id, version, content.rule_type,
      content.sigma_name, refsJson(content)],
  );
}

export async function insertVersion(
  tx: Queryable,
  v: { ruleId: string; version: number; title: string; yaml: string; indexPatternId: string | null; changedBy: string; reason: string | null },
): Promise<void> {
  await tx.query(
    `INSERT INTO rule_versions (rule_id, version, title, yaml_content, index_pattern_id, changed_by, change_reason)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [v.ruleId, v.version, v.title, v.yaml, v.indexPatternId, v.changedBy, v.reason],
  );
}

export async function markDeployed(tx: Queryable, id: string, percolatorId: string): Promise<void> {
  await tx.query(
    `UPDATE rules SET status = 'deployed', deployed_at = now(), percolator_id = $2, deployed_version = version, updated_at = now()
     WHERE id = $1`,
    [id, percolatorId],
  );
}

export async function markUndeployed(tx: Queryable, id: string): Promise<void> {
  await tx.query(
    `UPDATE rules SET status = 'undeployed', deployed_at = NULL, percolator_id = NULL, deployed_version = NULL, updated_at = now()
     WHERE id = $1`,
    [id],
  );
}

export async function deleteRuleRow(tx: Queryable, id: string): Promise<boolean> {
  return (await tx.query('DELETE FROM rules WHERE id = $1 RETURNING id', [id])).length > 0;
}

export interface VersionRow {
  version: number;
  title: string;
  yaml_content: string;
  index_pattern_id: string | null;
  changed_by: string;
  changed_at: Date;
  change_reason: string | null;
  [key: string]: unknown;
}

/** A page of a rule's versions (sorted by version or change time; newest first by default). */
export function listVersions(db: Queryable, ruleId: string, query: ListQuery): Promise<Page<VersionRow>> {
  return paginate<VersionRow, VersionRow>(db, {
    select: 'version, title, yaml_content, index_pattern_id, changed_by, changed_at, change_reason',
    from: 'rule_versions',
    where: new Conditions().add('rule_id = ?', ruleId),
    query,
    sortColumns: { version: 'version', changed_at: 'changed_at' },
    tieBreaker: 'version',
    map: (row) => row,
  });
}

export async function findVersion(db: Queryable, ruleId: string, version: number): Promise<VersionRow | undefined> {
  const [row] = await db.query<VersionRow>(
    `SELECT version, title, yaml_content, index_pattern_id, changed_by, changed_at, change_reason
       FROM rule_versions WHERE rule_id = $1 AND version = $2`,
    [ruleId, version],
  );
  return row;
}

/** The deployed detection rules of a pattern (correlations have no stored query). */
export async function deployedRulesOfPattern(db: Queryable, patternId: string): Promise<RuleRow[]> {
  return db.query<RuleRow>(`SELECT ${RULE_SELECT} FROM ${RULE_FROM} WHERE r.index_pattern_id = $1 AND r.status = 'deployed' AND r.rule_type = 'detection' ORDER BY r.id`, [patternId]);
}

// What a correlation rule's references mean in the database: the rules it names (by Sigma id or name,
// case-insensitively) must exist to store it, and must exist on its own index pattern to deploy it.
// Deploying a correlation deploys the detection rules it needs (their matches feed its windows; whether
// they also alert is the correlation's `generate`), and a detection rule a deployed correlation needs
// cannot be undeployed or deleted until that correlation is undeployed.
import type { Queryable } from '../db/database.js';
import { badRequest, conflict, unprocessable, type FieldError } from '../http/errors.js';
import type { SigmaRule } from '../sigma/index.js';
import type { ValidationDetail } from './analysis.js';
import type { RuleType } from './store.js';

/** A rule a reference resolves to. */
export interface ReferencedRule {
  id: string;
  title: string;
  rule_type: RuleType;
  status: 'deployed' | 'undeployed';
  version: number;
  deployed_version: number | null;
  sigma_id: string | null;
  sigma_name: string | null;
  correlation_refs: string[] | null;
  [key: string]: unknown;
}

/** The rules (of one pattern, or of any) whose Sigma id or name is one of `refs` (lower-cased). */
export async function rulesReferenced(db: Queryable, refs: string[], patternId?: string): Promise<ReferencedRule[]> {
  if (refs.length === 0) return [];
  return db.query<ReferencedRule>(
    `SELECT id, title, rule_type, status, version, deployed_version, sigma_id, sigma_name, correlation_refs FROM rules
      WHERE (lower(sigma_id) = ANY($1::text[]) OR lower(sigma_name) = ANY($1::text[]))${patternId ? ' AND index_pattern_id = $2' : ''}
      ORDER BY id`,
    patternId ? [refs, patternId] : [refs],
  );
}

/** The lower-cased references a rule answers to. */
export function refsOf(rule: { sigma_id: string | null; sigma_name: string | null }): string[] {
  return [rule.sigma_id, rule.sigma_name].filter((r): r is string => r !== null && r !== '').map((r) => r.toLowerCase());
}

/** 422 naming each reference of a correlation that no stored rule answers to (other than itself). */
export async function checkReferencesExist(db: Queryable, rule: SigmaRule, detail: ValidationDetail, selfId?: string): Promise<void> {
  if (rule.kind !== 'correlation' || !rule.correlation) return;
  const refs = rule.correlation.rules;
  const found = new Set((await rulesReferenced(db, refs.map((r) => r.toLowerCase()))).filter((r) => r.id !== selfId).flatMap(refsOf));
  const errors: FieldError[] = [];
  refs.forEach((ref, i) => {
    if (!found.has(ref.toLowerCase())) errors.push({ field: `correlation.rules[${i}]`, message: `rule '${ref}' does not exist (no stored rule has this Sigma id or name)` });
  });
  if (errors.length > 0) throw unprocessable(detail, errors);
}

/**
 * Everything a correlation needs on its pattern (or among all stored rules, without one), following references through inner correlations: the
 * detection rules whose matches feed it and the inner correlations evaluated with it. 400 naming a
 * reference that no rule of the pattern answers to.
 */
export async function resolveChain(
  db: Queryable,
  correlation: { id: string; correlation_refs: string[] | null },
  pattern: { id: string; name: string } | undefined,
): Promise<{ detections: ReferencedRule[]; correlations: ReferencedRule[] }> {
  const detections = new Map<string, ReferencedRule>();
  const correlations = new Map<string, ReferencedRule>();
  const seenRefs = new Set<string>();
  let pending = correlation.correlation_refs ?? [];
  while (pending.length > 0) {
    const refs = pending.filter((r) => !seenRefs.has(r));
    refs.forEach((r) => seenRefs.add(r));
    pending = [];
    const found = await rulesReferenced(db, refs, pattern?.id);
    if (found.some((r) => r.id === correlation.id)) {
      throw badRequest('Validation failed: the correlation references itself, directly or through the correlations it references (a cycle)');
    }
    const answered = new Set(found.flatMap(refsOf));
    const missing = refs.filter((r) => !answered.has(r));
    if (missing.length > 0) {
      const where = pattern ? `no rule of index pattern '${pattern.name}'` : 'no stored rule';
      throw badRequest(`Validation failed: the correlation references ${missing.map((m) => `'${m}'`).join(', ')}, which ${where} is (by Sigma id or name)`);
    }
    for (const rule of found) {
      if (rule.rule_type === 'detection') detections.set(rule.id, rule);
      else if (!correlations.has(rule.id)) {
        correlations.set(rule.id, rule);
        pending.push(...(rule.correlation_refs ?? []));
      }
    }
  }
  return { detections: [...detections.values()], correlations: [...correlations.values()] };
}

/**
 * 409 when deployed correlations of the pattern reference this rule (by any of `refs`, by default all
 * of its references). Deploying a correlation deploys every rule of its chain, so the deployed
 * correlations that reference a rule directly are all that need it.
 */
export async function checkNotNeeded(
  db: Queryable,
  rule: { id: string; sigma_id: string | null; sigma_name?: string | null; index_pattern_id: string | null },
  action: 'undeployed' | 'deleted' | 'renamed' | 'moved to another index pattern',
  refs = refsOf({ sigma_id: rule.sigma_id, sigma_name: rule.sigma_name ?? null }),
): Promise<void> {
  if (!rule.index_pattern_id || refs.length === 0) return;
  const users = await db.query<{ title: string }>(
    `SELECT title FROM rules WHERE rule_type = 'correlation' AND status = 'deployed' AND index_pattern_id = $1 AND id <> $2
        AND correlation_refs ?| $3::text[] ORDER BY title LIMIT 5`,
    [rule.index_pattern_id, rule.id, refs],
  );
  if (users.length === 0) return;
  throw conflict(`The rule cannot be ${action} while deployed correlation rules use it (${users.map((u) => `'${u.title}'`).join(', ')}): undeploy them first`);
}

// Deploying a rule: the prerequisites of the spec (valid rule, an index pattern, every field mapped,
// backend reachable), plus the pattern's own (the rule's log source within the pattern's log-source
// scope, a value for every %placeholder% it uses), and the stored query in svc-percolator-{pattern}, written in the caller's
// transaction so the rule's status and its stored query never disagree.
import type { Queryable } from '../db/database.js';
import { badRequest, HttpError } from '../http/errors.js';
import { percolatorIndexName, type SearchBackend, type StoredQuery } from '../backends/backend.js';
import { compileRule, describeLogsource, describeScope, missingPlaceholders, parseRule, scopeAdmits, type CompiledRule, type SigmaRule } from '../sigma/index.js';
import { pipelineOf, pipelineSpecOf } from '../index-patterns/pipeline.js';
import { findPatternById, type IndexPatternRow } from '../index-patterns/store.js';
import { placeholdersMessage, unmappedFields } from './analysis.js';
import { markDeployed, markUndeployed, type RuleType } from './store.js';
import { checkNotNeeded } from './correlation-refs.js';
import { deployCorrelation, undeployCorrelation, type DeployActor } from './correlation-deployment.js';

export const NO_INDEX_PATTERN = 'Validation failed: no index pattern configured';

const DEPLOYMENTS_LOCK = 0x56474450;

/**
 * Serialises every change of what is deployed (deploy, redeploy, undeploy, a pattern's mappings) until
 * the transaction ends, so a stored query is always built from the mappings that commit with it.
 * Order: take rule row locks first, then this lock, then read the index pattern; a transaction holding
 * it never waits for a rule row lock.
 */
export async function lockDeployments(tx: Queryable): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1)', [DEPLOYMENTS_LOCK]);
}

/** The percolator document id of a rule's stored query. */
export const percolatorIdOf = (ruleId: string) => ruleId;

/**
 * Checks the deploy prerequisites against a pattern, in order: the rule validates, a pattern, the rule's
 * log source within its scope, every field mapped, every placeholder given values, the detection
 * compiles; throws 400 `Validation failed: …` (422 for a rule over a per-rule work limit). Answers the
 * pattern and the detection compiled for it, so the backend need not compile it again.
 */
export function checkDeployable(yaml: string, pattern: IndexPatternRow | undefined): { pattern: IndexPatternRow; compiled: CompiledRule } {
  const parsed = parseRule(yaml);
  if (!parsed.ok) {
    throw badRequest(parsed.kind === 'yaml' ? `Validation failed: ${parsed.message}` : `Validation failed: ${parsed.errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`);
  }
  if (!pattern) throw badRequest(NO_INDEX_PATTERN);
  checkInScope(parsed.rule, pattern);
  const pipeline = pipelineOf(pattern);
  const [unmapped] = unmappedFields(parsed.rule, pattern, pipeline);
  if (unmapped) throw badRequest(`Validation failed: field '${unmapped.field}' is not mapped in index pattern '${pattern.name}'`);
  checkPlaceholderValues(parsed.rule, pattern);
  const compiled = compileRule(parsed.rule, pipeline);
  if (!compiled.ok) {
    const detail = `Validation failed: ${compiled.errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`;
    // A rule over a per-rule work limit (stored by an older version) is refused like one being created.
    throw compiled.overLimit ? new HttpError(422, detail, compiled.errors) : badRequest(detail);
  }
  return { pattern, compiled: compiled.matcher };
}

/** 400 when the rule's log source cannot occur among the pattern's log sources (its `logsource_scope`). */
export function checkInScope(rule: SigmaRule, pattern: IndexPatternRow): void {
  const scope = pattern.logsource_scope;
  if (rule.kind !== 'detection' || !scope || scopeAdmits(scope, rule.logsource)) return;
  throw badRequest(
    `Validation failed: rule logsource (${describeLogsource(rule.logsource)}) is outside the log sources of index pattern '${pattern.name}' (${describeScope(scope)})`,
  );
}

/** 400 naming every %placeholder% of the rule that the pattern gives no values. */
export function checkPlaceholderValues(rule: SigmaRule, pattern: IndexPatternRow): void {
  const missing = missingPlaceholders(rule, pattern.placeholders);
  if (missing.length > 0) throw badRequest(`Validation failed: ${placeholdersMessage(missing, pattern)}`);
}

/** The stored query of a rule in a pattern; `compiled`, when the caller has it, is the detection compiled from exactly these. */
export function storedQueryOf(rule: { id: string; version: number; yaml_content: string }, pattern: IndexPatternRow, compiled?: CompiledRule): StoredQuery {
  return { id: percolatorIdOf(rule.id), ruleId: rule.id, ruleVersion: rule.version, yaml: rule.yaml_content, pipeline: pipelineSpecOf(pattern), compiled };
}

/**
 * Creates or replaces the stored query of a rule and marks it deployed, inside `tx`. The previous
 * stored query is removed first when the rule moved to another index pattern.
 */
export async function deployRule(
  tx: Queryable,
  backend: SearchBackend,
  rule: { id: string; version: number; yaml_content: string; index_pattern_id: string | null; rule_type?: RuleType },
  previousPattern?: IndexPatternRow,
  actor?: DeployActor,
): Promise<{ percolatorId: string; pattern: IndexPatternRow }> {
  if (rule.rule_type === 'correlation') {
    const pattern = rule.index_pattern_id ? await findPatternById(tx, rule.index_pattern_id) : undefined;
    if (!pattern) throw badRequest(NO_INDEX_PATTERN);
    await deployCorrelation(tx, rule, pattern, (t, referenced) => deployRule(t, backend, referenced, undefined, actor), actor);
    return { percolatorId: rule.id, pattern };
  }
  await lockDeployments(tx);
  const { pattern, compiled } = checkDeployable(rule.yaml_content, rule.index_pattern_id ? await findPatternById(tx, rule.index_pattern_id) : undefined);
  const percolatorId = percolatorIdOf(rule.id);
  if (previousPattern && previousPattern.id !== pattern.id) {
    await backend.undeploy(tx, percolatorIndexName(previousPattern.name), percolatorId);
  }
  await backend.deploy(tx, percolatorIndexName(pattern.name), storedQueryOf(rule, pattern, compiled));
  await markDeployed(tx, rule.id, percolatorId);
  return { percolatorId, pattern };
}

/** Removes the stored query of a deployed rule and marks it undeployed, inside `tx`. */
export async function undeployRule(
  tx: Queryable,
  backend: SearchBackend,
  rule: { id: string; index_pattern_id: string | null; rule_type?: RuleType; sigma_id: string | null; sigma_name?: string | null },
  action: 'undeployed' | 'deleted' = 'undeployed',
): Promise<void> {
  await checkNotNeeded(tx, rule, action);
  if (rule.rule_type === 'correlation') return undeployCorrelation(tx, rule);
  await lockDeployments(tx);
  const pattern = rule.index_pattern_id ? await findPatternById(tx, rule.index_pattern_id) : undefined;
  if (pattern) await backend.undeploy(tx, percolatorIndexName(pattern.name), percolatorIdOf(rule.id));
  await markUndeployed(tx, rule.id);
}

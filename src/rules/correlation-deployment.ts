// Deploying a correlation rule: it has no stored query; its windows are fed by the matches of the
// rules it references (detections, and inner correlations with their own rules), so every one of them
// is deployed with it when it is not yet, on the same index pattern, in the same transaction; whether
// they alert on their own is the correlations' `generate`. Its window state starts empty
// (a row in correlation_states, replaced on the first event when the correlation changed) and is
// dropped when it is undeployed.
import type { Queryable } from '../db/database.js';
import { badRequest, HttpError } from '../http/errors.js';
import type { IndexPatternRow } from '../index-patterns/store.js';
import { compileCorrelations, parseRule, type SigmaRule } from '../sigma/index.js';
import { recordAudit } from '../audit/log.js';
import { checkCorrelation } from './analysis.js';
import { resolveChain } from './correlation-refs.js';
import { findRule, markDeployed, markUndeployed, type RuleRow } from './store.js';

export interface DeployActor {
  username: string;
  ip: string;
}

type DeployReferenced = (tx: Queryable, rule: RuleRow) => Promise<unknown>;

/** Deploys a correlation on `pattern` (locks and prerequisites of its rules included), inside `tx`. */
export async function deployCorrelation(
  tx: Queryable,
  rule: { id: string; yaml_content: string },
  pattern: IndexPatternRow,
  deployReferenced: DeployReferenced,
  actor?: DeployActor,
): Promise<void> {
  const parsed = parseRule(rule.yaml_content);
  if (!parsed.ok || parsed.rule.kind !== 'correlation') throw badRequest('Validation failed: the rule is not a valid correlation rule');
  try {
    checkCorrelation(parsed.rule, 'Validation failed');
  } catch (error) {
    if (error instanceof HttpError) throw badRequest(`Validation failed: ${error.errors?.map((e) => `${e.field}: ${e.message}`).join('; ') ?? error.detail}`);
    throw error;
  }
  const refs = [...new Set(parsed.rule.correlation!.rules.map((r) => r.toLowerCase()))];
  const { detections, correlations } = await resolveChain(tx, { id: rule.id, correlation_refs: refs }, pattern);
  await checkChain(tx, parsed.rule, correlations.map((c) => c.id));
  // Row locks of the rules deployed with it are taken before the deployments lock (deployment.ts).
  const waiting = [...detections, ...correlations].filter((d) => d.status !== 'deployed');
  if (waiting.length > 0) await tx.query('SELECT id FROM rules WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE', [waiting.map((d) => d.id)]);
  for (const needed of waiting) {
    const current = await findRule(tx, needed.id);
    if (!current || current.status === 'deployed') continue;
    try {
      await deployReferenced(tx, current);
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      throw new HttpError(error.statusCode, `Validation failed: the referenced rule '${current.title}' cannot be deployed: ${error.detail.replace(/^Validation failed: /, '')}`, error.errors);
    }
    if (actor) {
      await recordAudit(tx, { actor: actor.username, action: 'rule.deploy', targetType: 'rule', targetId: current.id, details: { version: current.version, redeploy: false, for_correlation: rule.id }, ip: actor.ip });
    }
  }
  await markDeployed(tx, rule.id, rule.id);
  await tx.query(`INSERT INTO correlation_states (rule_id, fingerprint, state) VALUES ($1, '', '') ON CONFLICT (rule_id) DO NOTHING`, [rule.id]);
}

/** 400 when the correlation cannot be evaluated with the inner correlations it references (a cycle, one refused). */
async function checkChain(tx: Queryable, rule: SigmaRule, innerIds: string[]): Promise<void> {
  if (innerIds.length === 0) return;
  const rows = await tx.query<{ yaml_content: string }>('SELECT yaml_content FROM rules WHERE id = ANY($1::uuid[]) ORDER BY id', [innerIds]);
  const inner = rows.flatMap((r) => {
    const parsed = parseRule(r.yaml_content);
    return parsed.ok ? [parsed.rule] : [];
  });
  const refused = compileCorrelations([rule, ...inner]).rejected.find((r) => r.input === 0);
  if (refused) throw badRequest(`Validation failed: ${refused.reason}`);
}

/** Undeploys a correlation, discarding its open windows, inside `tx`. */
export async function undeployCorrelation(tx: Queryable, rule: { id: string }): Promise<void> {
  await tx.query('DELETE FROM correlation_states WHERE rule_id = $1', [rule.id]);
  await markUndeployed(tx, rule.id);
}

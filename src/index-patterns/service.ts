// Index pattern changes that touch deployed rules: the new mappings (placeholder values and log-source
// scope included), every deployed rule's check against them and its rewritten stored query share one
// transaction, so a change can never leave a deployed rule with a stale or broken stored query, nor a
// deployed rule outside the scope or without a placeholder value it needs (one failing check undoes it
// all).
import type { AppContext } from '../http/context.js';
import { badRequest, conflict, notFound } from '../http/errors.js';
import { percolatorIndexName } from '../backends/backend.js';
import { checkDeployable, lockDeployments, storedQueryOf } from '../rules/deployment.js';
import { deployedRulesOfPattern } from '../rules/store.js';
import { countRulesOfPattern, deletePattern, findPatternById, updatePattern, type IndexPatternRow, type PatternChanges } from './store.js';

export const PATTERN_NOT_FOUND = 'Index pattern not found';

/** Settings that change what a deployed rule compiles to, or whether it may be deployed at all. */
const MAPPING_KEYS: (keyof PatternChanges)[] = ['field_mappings', 'default_mapping', 'preset', 'placeholders', 'logsource_scope'];

export async function changePattern(ctx: AppContext, id: string, changes: PatternChanges): Promise<{ row: IndexPatternRow; redeployed: number }> {
  const outcome = await ctx.db.transaction(async (tx) => {
    // Under the deployments lock, the deployed rules read here are exactly those to redeploy: any
    // concurrent deploy or undeploy either committed before or waits and then reads the new mappings.
    await lockDeployments(tx);
    const current = await findPatternById(tx, id);
    if (!current) throw notFound(PATTERN_NOT_FOUND);
    const mappingChanged = MAPPING_KEYS.some((k) => changes[k] !== undefined && JSON.stringify(changes[k]) !== JSON.stringify(current[k]));
    const deployed = mappingChanged ? await deployedRulesOfPattern(tx, id) : [];
    const updated = await updatePattern(tx, id, changes);
    if (!updated) throw notFound(PATTERN_NOT_FOUND);
    // Each deployed rule is checked against the new mappings and rewritten with the detection the
    // check compiled; the first that no longer deploys rolls the whole change back.
    for (const rule of deployed) {
      let checked;
      try {
        checked = checkDeployable(rule.yaml_content, updated);
      } catch (error) {
        const detail = error instanceof Error ? error.message : String(error);
        throw badRequest(`${detail} (deployed rule '${rule.title}', ${rule.id})`);
      }
      await ctx.backend.deploy(tx, percolatorIndexName(updated.name), storedQueryOf(rule, updated, checked.compiled));
    }
    return { row: updated, redeployed: deployed.length };
  });
  if (outcome.redeployed > 0) await ctx.backend.sync();
  return outcome;
}

export async function removePattern(ctx: AppContext, id: string): Promise<IndexPatternRow> {
  const current = await findPatternById(ctx.db, id);
  if (!current) throw notFound(PATTERN_NOT_FOUND);
  const rules = await countRulesOfPattern(ctx.db, id);
  if (rules > 0) throw conflict(`Index pattern is used by ${rules} rule(s); move or delete them first`);
  // Events kept outside the database (the OpenSearch backend's index) go first: if they cannot, the
  // pattern stays, and a pattern made later under the same name never inherits old events.
  await ctx.history.dropPattern?.(current.name);
  if (!(await deletePattern(ctx.db, id))) throw notFound(PATTERN_NOT_FOUND);
  return current;
}

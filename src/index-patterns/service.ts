// Index pattern changes that touch deployed rules: the new mappings (placeholder values and log-source
// scope included), every deployed rule's check against them and its rewritten stored query share one
// transaction, so a change can never leave a deployed rule with a stale or broken stored query, nor a
// deployed rule outside the scope or without a placeholder value it needs (one failing check undoes it
// all). The checks (compiling every deployed rule) run before the transaction, a slice at a time with
// other requests served between slices, so the transaction holds the database only for its writes;
// a rule deployed or changed meanwhile is checked inside it.
import type { AppContext } from '../http/context.js';
import { badRequest, conflict, notFound } from '../http/errors.js';
import { percolatorIndexName, type StoredQuery } from '../backends/backend.js';
import { checkDeployable, lockDeployments, storedQueryOf } from '../rules/deployment.js';
import { deployedRulesOfPattern, type RuleRow } from '../rules/store.js';
import { countRulesOfPattern, deletePattern, findPatternById, updatePattern, type IndexPatternRow, type PatternChanges } from './store.js';

export const PATTERN_NOT_FOUND = 'Index pattern not found';

/** Settings that change what a deployed rule compiles to, or whether it may be deployed at all. */
const MAPPING_KEYS: (keyof PatternChanges)[] = ['field_mappings', 'default_mapping', 'preset', 'placeholders', 'logsource_scope'];

/** Time given to checking rules between two turns of the event loop. */
const CHECK_SLICE_MS = 20;
/** Stored queries written per backend call in the change's transaction. */
const DEPLOY_CHUNK = 500;

/** Objects' keys in order, so a value reads the same as sent and as stored (jsonb reorders keys). */
const sortedKeys = (_key: string, value: unknown) =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    : value;

/** What the rules of a pattern compile against (the pipeline and the deploy checks read only these). */
const mappingOf = (pattern: IndexPatternRow) => JSON.stringify(MAPPING_KEYS.map((k) => pattern[k as keyof IndexPatternRow] ?? null), sortedKeys);

const mappingChangedBy = (current: IndexPatternRow, changes: PatternChanges) =>
  MAPPING_KEYS.some((k) => changes[k] !== undefined && JSON.stringify(changes[k]) !== JSON.stringify(current[k as keyof IndexPatternRow]));

/** A deployed rule's stored query against `pattern`; 400 naming the rule when it no longer deploys. */
function checkedQuery(rule: RuleRow, pattern: IndexPatternRow): StoredQuery {
  let checked;
  try {
    checked = checkDeployable(rule.yaml_content, pattern);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw badRequest(`${detail} (deployed rule '${rule.title}', ${rule.id})`);
  }
  return storedQueryOf(rule, pattern, checked.compiled);
}

/** The stored queries of `rules` against `pattern`, checked a slice at a time between turns of the loop. */
async function checkedQueries(rules: RuleRow[], pattern: IndexPatternRow): Promise<StoredQuery[]> {
  const queries: StoredQuery[] = [];
  let sliceStart = performance.now();
  for (const rule of rules) {
    if (performance.now() - sliceStart > CHECK_SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
    queries.push(checkedQuery(rule, pattern));
  }
  return queries;
}

export async function changePattern(ctx: AppContext, id: string, changes: PatternChanges): Promise<{ row: IndexPatternRow; redeployed: number }> {
  // Checked ahead against the pattern as it will be: a failing check refuses the change before any write.
  const before = await findPatternById(ctx.db, id);
  if (!before) throw notFound(PATTERN_NOT_FOUND);
  const defined = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
  const expected = { ...before, ...defined } as IndexPatternRow;
  const prepared = mappingChangedBy(before, changes) ? await checkedQueries(await deployedRulesOfPattern(ctx.db, id), expected) : [];

  const outcome = await ctx.db.transaction(async (tx) => {
    // Under the deployments lock, the deployed rules read here are exactly those to redeploy: any
    // concurrent deploy or undeploy either committed before or waits and then reads the new mappings.
    await lockDeployments(tx);
    const current = await findPatternById(tx, id);
    if (!current) throw notFound(PATTERN_NOT_FOUND);
    const deployed = mappingChangedBy(current, changes) ? await deployedRulesOfPattern(tx, id) : [];
    const updated = await updatePattern(tx, id, changes);
    if (!updated) throw notFound(PATTERN_NOT_FOUND);
    // Each deployed rule gets the stored query checked ahead when it and the mappings are as they were
    // then; one deployed or changed since is checked here. The first that no longer deploys rolls the
    // whole change back.
    const ahead = mappingOf(updated) === mappingOf(expected) ? new Map(prepared.map((q) => [q.ruleId, q])) : new Map<string, StoredQuery>();
    const queries = deployed.map((rule) => {
      const query = ahead.get(rule.id);
      return query && query.ruleVersion === rule.version && query.yaml === rule.yaml_content ? query : checkedQuery(rule, updated);
    });
    const index = percolatorIndexName(updated.name);
    for (let start = 0; start < queries.length; start += DEPLOY_CHUNK) await ctx.backend.deployMany(tx, index, queries.slice(start, start + DEPLOY_CHUNK));
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

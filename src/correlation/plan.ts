// What the deployed correlation rules of an index pattern need at ingest, compiled once and reused
// while they stay the same: for each deployed correlation, an engine set (the correlation with the
// inner correlations it references), the event fields its group-by, aliases and value fields read
// (through the pattern's field mappings), the detection rules whose matches feed it, and which rules'
// own alerts the correlations' `generate` silences. One indexed query per ingest chunk tells whether
// the cached plan still holds.
import type { Queryable } from '../db/database.js';
import { compileCorrelations, makeAccessor, mapFieldWithOverrides, parseRule, suppressedRuleRefs, type Accessor, type CorrelationSet, type Pipeline, type SigmaRule } from '../sigma/index.js';
import { pipelineOf, pipelineSpecOf } from '../index-patterns/pipeline.js';
import type { IndexPatternRow } from '../index-patterns/store.js';
import { refsOf, resolveChain, type ReferencedRule } from '../rules/correlation-refs.js';

/** One deployed correlation, ready to be fed. */
export interface PlannedCorrelation {
  id: string;
  title: string;
  version: number;
  severity: string;
  level: string;
  tags: string[];
  type: string;
  /** The engine set: this correlation and the inner correlations it references. */
  set: CorrelationSet;
  /** Position of this correlation in `set.correlations` (its firings are its alerts). */
  top: number;
  /** Sigma field → accessors of the event fields it maps to. */
  fields: Map<string, Accessor[]>;
  /** Detection rules (uuid) feeding the set → their lower-cased references. */
  feeders: Map<string, string[]>;
}

export interface CorrelationPlan {
  key: string;
  correlations: PlannedCorrelation[];
  /** Detection rule uuid → lower-cased references, for every rule feeding some correlation. */
  feeders: Map<string, string[]>;
  /** Rules (detections or correlations) whose own alerts are silenced by a correlation's `generate: false`. */
  silenced: Set<string>;
  /** Deployed correlations that could not be planned (a reference no longer resolves), with the reason. */
  skipped: { id: string; title: string; reason: string }[];
  /** The skipped correlations as warnings, answered once per plan. */
  takeWarnings(): string[];
}

interface CorrelationRow extends ReferencedRule {
  yaml_content: string;
  severity: string;
  level: string;
  tags: string[];
}

const plans = new WeakMap<object, Map<string, CorrelationPlan>>();

/** The plan of a pattern's deployed correlations, or null when it has none; cached per `owner` (a service). */
export async function correlationPlan(owner: object, db: Queryable, pattern: IndexPatternRow, latenessMs: number): Promise<CorrelationPlan | null> {
  const deployed = await db.query<{ id: string; version: number; updated_at: Date }>(
    `SELECT id, version, updated_at FROM rules WHERE rule_type = 'correlation' AND status = 'deployed' AND index_pattern_id = $1 ORDER BY id`,
    [pattern.id],
  );
  if (deployed.length === 0) return null;
  // References resolve to the pattern's rules by Sigma id or name: any rule added, changed or removed
  // on the pattern may change what feeds a correlation.
  const [rules] = await db.query<{ n: number; latest: Date | null }>('SELECT count(*)::int AS n, max(updated_at) AS latest FROM rules WHERE index_pattern_id = $1', [pattern.id]);
  const key = JSON.stringify([latenessMs, pipelineSpecOf(pattern), rules.n, rules.latest?.getTime() ?? null, deployed.map((d) => [d.id, d.version, d.updated_at.getTime()])]);
  let byPattern = plans.get(owner);
  if (!byPattern) plans.set(owner, (byPattern = new Map()));
  const cached = byPattern.get(pattern.id);
  if (cached?.key === key) return cached;
  const plan = await buildPlan(db, pattern, key, latenessMs);
  byPattern.set(pattern.id, plan);
  return plan;
}

const CORRELATION_COLUMNS = 'id, title, rule_type, status, version, deployed_version, sigma_id, sigma_name, correlation_refs, yaml_content, severity, level, tags';

async function buildPlan(db: Queryable, pattern: IndexPatternRow, key: string, latenessMs: number): Promise<CorrelationPlan> {
  const rows = await db.query<CorrelationRow>(
    `SELECT ${CORRELATION_COLUMNS} FROM rules WHERE rule_type = 'correlation' AND status = 'deployed' AND index_pattern_id = $1 ORDER BY id`,
    [pattern.id],
  );
  const pipeline = pipelineOf(pattern);
  let told = false;
  const plan: CorrelationPlan = {
    key,
    correlations: [],
    feeders: new Map(),
    silenced: new Set(),
    skipped: [],
    takeWarnings() {
      if (told) return [];
      told = true;
      return plan.skipped.map((s) => `deployed correlation '${s.title}' on index pattern '${pattern.name}' does not run: ${s.reason}`);
    },
  };
  const suppressed = new Set<string>();
  const generated = new Set<string>();
  for (const row of rows) {
    try {
      const { detections, correlations: inner } = await resolveChain(db, row, pattern);
      const innerRows = inner.length === 0 ? [] : await db.query<CorrelationRow>(`SELECT ${CORRELATION_COLUMNS} FROM rules WHERE id = ANY($1::uuid[]) ORDER BY id`, [inner.map((c) => c.id)]);
      const rules = [row, ...innerRows].map((r) => sigmaOf(r));
      const { set, rejected } = compileCorrelations(rules, { latenessMs });
      if (rejected.some((r) => r.input === 0)) throw new Error(rejected.find((r) => r.input === 0)!.reason);
      const top = set.correlations.findIndex((c) => c.input === 0);
      const feeders = new Map(detections.map((d) => [d.id, refsOf(d)]));
      for (const [id, refs] of feeders) plan.feeders.set(id, refs);
      for (const ref of suppressedRuleRefs(set)) suppressed.add(ref);
      for (const c of set.correlations) if (c.generate) for (const r of c.rules) generated.add(r.toLowerCase());
      plan.correlations.push({
        id: row.id,
        title: row.title,
        version: row.version,
        severity: row.severity,
        level: row.level,
        tags: row.tags,
        type: set.correlations[top].type,
        set,
        top,
        fields: fieldAccessors(set, pipeline),
        feeders,
      });
    } catch (error) {
      plan.skipped.push({ id: row.id, title: row.title, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  // A rule is silenced when a correlation without `generate: true` uses it and none with it does.
  const silencedBy = (refs: string[]) => refs.some((r) => suppressed.has(r)) && !refs.some((r) => generated.has(r));
  for (const [id, refs] of plan.feeders) if (silencedBy(refs)) plan.silenced.add(id);
  for (const row of rows) if (silencedBy(refsOf(row))) plan.silenced.add(row.id);
  return plan;
}

function sigmaOf(row: CorrelationRow): SigmaRule {
  const parsed = parseRule(row.yaml_content);
  if (!parsed.ok || parsed.rule.kind !== 'correlation') throw new Error(`the stored correlation '${row.title}' no longer parses`);
  return parsed.rule;
}

/** Every event field a set reads (group-by, alias targets, value fields), with the accessors of the
 * event fields the pipeline maps it to (the name as written when it maps none). */
export function fieldAccessors(set: CorrelationSet, pipeline: Pipeline): Map<string, Accessor[]> {
  const targets = (name: string) => mapFieldWithOverrides(pipeline, name) ?? [name];
  const names = new Set<string>();
  for (const c of set.correlations) {
    for (const g of c.groupBy) names.add(g);
    for (const f of c.fields) names.add(f);
    for (const alias of Object.values(c.aliases)) for (const f of Object.values(alias)) names.add(f);
  }
  return new Map([...names].map((name) => [name, targets(name).map(makeAccessor)]));
}

/** The fields a correlation reads from an event (as the pattern's preset shaped it), by their Sigma names. */
export function projectFields(fields: Map<string, Accessor[]>, event: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, accessors] of fields) {
    for (const accessor of accessors) {
      let found: unknown;
      accessor.each(event, (value) => {
        if (value === undefined || value === null || typeof value === 'object') return false;
        found = value;
        return true;
      });
      if (found !== undefined) {
        out[name] = found;
        break;
      }
    }
  }
  return out;
}

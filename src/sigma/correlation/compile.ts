// Correlation documents (parsed SigmaRule of kind 'correlation') → a CorrelationSet the engine runs.
// Promises: never throws for rule content; a correlation that cannot be evaluated is rejected with a
// reason (and so is every correlation that references it); references between correlations (by id or
// name) are resolved, cycles refused, and the set is ordered so that a referenced correlation comes
// before the ones referencing it. References that name no correlation are base rules: the caller feeds
// their matches.
import type { SigmaRule } from '../rule.js';
import { holds, parseCondition } from './condition.js';
import { DEFAULT_OPTIONS } from './types.js';
import type { CompiledCorrelation, CorrelationSet, CorrelationType, EngineOptions, Target } from './types.js';

const TYPES: CorrelationType[] = ['event_count', 'value_count', 'temporal', 'temporal_ordered', 'value_sum', 'value_avg', 'value_percentile', 'value_median'];

export interface RejectedCorrelation {
  /** Position in the input list. */
  input: number;
  title: string;
  reason: string;
}

export interface CompileCorrelationsResult {
  set: CorrelationSet;
  rejected: RejectedCorrelation[];
  /** Correlations that compile but likely do not mean what they say when evaluated as a stream. */
  warnings: string[];
}

const COUNTING: CorrelationType[] = ['event_count', 'value_count', 'temporal', 'temporal_ordered'];

/** A counting condition that a single input already satisfies ("lt: 5") fires at every group's first
 * input: the condition is checked at each input, not at the end of a closed time range. */
function streamWarnings(correlations: CompiledCorrelation[]): string[] {
  return correlations
    .filter((c) => COUNTING.includes(c.type) && holds(c.condition, 1))
    .map((c) => `correlation '${c.title}': its condition holds for a single input, so it fires at the first input of every group (conditions are checked at each input, not at the end of the timespan)`);
}

export function refKey(ref: string): string {
  return ref.toLowerCase();
}

type Draft = Omit<CompiledCorrelation, 'index'>;

function draft(rule: SigmaRule, input: number): Draft | string {
  const c = rule.correlation;
  if (rule.kind !== 'correlation' || c === undefined) return 'not a correlation rule';
  if (!TYPES.includes(c.type as CorrelationType)) return `correlation type ${c.type} is not supported`;
  const type = c.type as CorrelationType;
  if (c.rules.length === 0) return 'correlation.rules is empty';
  if (!(c.timespanSeconds > 0)) return 'correlation.timespan must be positive';
  if (typeof c.condition === 'string') return 'a condition written as an expression over rule names is not supported; use a map (gte: 2)';
  const cond = parseCondition(type, c.condition, c.rules.length);
  if (typeof cond === 'string') return `correlation.condition: ${cond}`;
  const aliases: Record<string, Record<string, string>> = {};
  for (const [alias, map] of Object.entries(c.aliases ?? {})) {
    if (typeof map !== 'object' || map === null || Array.isArray(map)) return `correlation.aliases.${alias}: must map rule names to fields`;
    const resolved: Record<string, string> = {};
    for (const [ruleRef, field] of Object.entries(map as Record<string, unknown>)) {
      if (typeof field !== 'string' || field === '') return `correlation.aliases.${alias}.${ruleRef}: must be a field name`;
      resolved[refKey(ruleRef)] = field;
    }
    aliases[alias] = resolved;
  }
  // Field names become keys of plain objects (group keys, the state): `__proto__` cannot be one.
  const names = [...c.groupBy, ...cond.fields, ...Object.values(aliases).flatMap((m) => Object.values(m))];
  if (names.includes('__proto__')) return "'__proto__' is not a usable field name";
  return {
    input,
    id: rule.id ?? null,
    name: rule.name ?? null,
    title: rule.title,
    level: rule.level ?? null,
    type,
    rules: [...c.rules],
    groupBy: [...c.groupBy],
    aliases,
    timespanMs: c.timespanSeconds * 1000,
    condition: cond.comparisons,
    fields: cond.fields,
    percentile: cond.percentile,
    generate: c.generate,
  };
}

/** A short stable text identifying the compiled set and options (restore checks it). */
function fingerprintOf(correlations: CompiledCorrelation[], options: EngineOptions): string {
  const text = JSON.stringify([correlations, options]);
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return `${correlations.length}:${text.length}:${h.toString(16)}`;
}

export function compileCorrelations(rules: readonly SigmaRule[], options: Partial<EngineOptions> = {}): CompileCorrelationsResult {
  const opts: EngineOptions = { ...DEFAULT_OPTIONS, ...options };
  const rejected: RejectedCorrelation[] = [];
  const drafts: Draft[] = [];
  rules.forEach((rule, i) => {
    const d = draft(rule, i);
    if (typeof d === 'string') rejected.push({ input: i, title: rule.title, reason: d });
    else drafts.push(d);
  });
  // Which correlation a reference names (id first, then name, as pySigma resolves them).
  const byRef = new Map<string, number>();
  drafts.forEach((d, i) => {
    if (d.name !== null && !byRef.has(refKey(d.name))) byRef.set(refKey(d.name), i);
  });
  drafts.forEach((d, i) => {
    if (d.id !== null) byRef.set(refKey(d.id), i);
  });
  // A reference to a correlation rejected above rejects the referencing one (it is not a base rule).
  const rejectedRefs = new Map<string, string>();
  for (const r of rejected) {
    const rule = rules[r.input];
    for (const ref of [rule.name, rule.id]) if (ref !== undefined && !byRef.has(refKey(ref))) rejectedRefs.set(refKey(ref), rule.title);
  }
  const deps = drafts.map((d) => d.rules.map((r) => byRef.get(refKey(r))).filter((x): x is number => x !== undefined));
  // Depth-first ordering; a cycle or a reference to a rejected correlation rejects the correlation.
  const state = drafts.map(() => 0); // 0 new, 1 visiting, 2 done
  const bad = new Map<number, string>();
  const order: number[] = [];
  const visit = (i: number): void => {
    if (state[i] === 2) return;
    if (state[i] === 1) {
      bad.set(i, 'its references form a cycle');
      return;
    }
    state[i] = 1;
    for (const j of deps[i]) {
      visit(j);
      if (bad.has(j) && !bad.has(i)) bad.set(i, `it references '${drafts[j].title}', which is rejected`);
      if (state[j] === 1 && !bad.has(i)) bad.set(i, 'its references form a cycle');
    }
    state[i] = 2;
    order.push(i);
  };
  drafts.forEach((d, i) => {
    const on = d.rules.map((r) => rejectedRefs.get(refKey(r))).find((x) => x !== undefined);
    if (on !== undefined) bad.set(i, `it references '${on}', which is rejected`);
  });
  drafts.forEach((_, i) => visit(i));
  const correlations: CompiledCorrelation[] = [];
  for (const i of order) {
    const d = drafts[i];
    const reason = bad.get(i);
    if (reason !== undefined) {
      rejected.push({ input: d.input, title: d.title, reason });
      continue;
    }
    correlations.push({ index: correlations.length, ...d });
  }
  rejected.sort((a, b) => a.input - b.input);
  const targets = new Map<string, Target[]>();
  for (const c of correlations) {
    c.rules.forEach((r, entry) => {
      const key = refKey(r);
      let list = targets.get(key);
      if (list === undefined) targets.set(key, (list = []));
      const t = list.find((x) => x.correlation === c.index);
      if (t) t.entries.push(entry);
      else list.push({ correlation: c.index, entries: [entry] });
    });
  }
  return { set: { correlations, targets, options: opts, fingerprint: fingerprintOf(correlations, opts) }, rejected, warnings: streamWarnings(correlations) };
}

/** The references of rules whose own matches are not alerts: referenced by a correlation without
 * `generate: true` (lower-cased ids or names). The caller decides whether to suppress them. */
export function suppressedRuleRefs(set: CorrelationSet): Set<string> {
  const out = new Set<string>();
  for (const c of set.correlations) if (!c.generate) for (const r of c.rules) out.add(refKey(r));
  return out;
}

/** Whether a rule (by any of its ids or names) still raises alerts of its own under this set. */
export function generatesAlerts(set: CorrelationSet, ruleRef: string | readonly string[]): boolean {
  const suppressed = suppressedRuleRefs(set);
  const refs = typeof ruleRef === 'string' ? [ruleRef] : ruleRef;
  return !refs.some((r) => suppressed.has(refKey(r)));
}

// Lowering a parsed rule through a pipeline into the IR. Promises: field names are mapped exactly once
// (renames of the logsource alternative, then the pipeline mapping); logsource conditions are AND-ed in,
// alternatives for the rule's category OR-ed, conditions without a category (a service's channel) AND-ed
// with them; placeholders are resolved from pipeline vars (or refused); keyword values get the
// implicit `*…*`; every problem is a {field, message} with the rule path of the offending item.
import { and, evaluatedTests, not, or } from './ir.js';
import type { IRNode, StrPart, Test } from './ir.js';
import { ANY, parseSigmaString, pushLiteral } from './detection/sigma-string.js';
import { numberText } from './detection/number-text.js';
import type { Part, SigmaString } from './detection/sigma-string.js';
import type { ItemExpr, ValueExpr, ValueLeaf } from './detection/value-expr.js';
import { selectIdentifiers } from './condition/parse.js';
import type { ConditionAst } from './condition/parse.js';
import { logsourceApplies, mapField } from './pipeline/pipeline.js';
import type { ConditionScalar, LogsourceCondition, Pipeline } from './pipeline/pipeline.js';
import type { FieldError, ParsedDetection, SearchNode, SigmaRule } from './rule.js';

const MAX_PLACEHOLDER_VARIANTS = 10_000;

/** Own-property lookup (field and placeholder names come from rules: `__proto__` must not hit Object.prototype). */
function own<T>(map: Record<string, T>, key: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(map, key) ? map[key] : undefined;
}
/** Per-rule work limit: a rule lowering to more field predicates than this is refused. */
export const MAX_PREDICATES = 50_000;

class Lowering {
  errors: FieldError[] = [];
  constructor(
    private readonly pipeline: Pipeline,
    private readonly renames: Record<string, string>,
    private readonly scoped: Record<string, string[]> = {},
  ) {}

  /** Sigma fields the pipeline does not map (each also reported in `errors`). */
  readonly unmapped = new Set<string>();

  fields(field: string, path: string): string[] | null {
    const mapped = this.targets(field);
    if (!mapped) {
      this.unmapped.add(field);
      this.errors.push({ field: path, message: `field '${field}' is not mapped by pipeline '${this.pipeline.name}'` });
      return null;
    }
    return mapped;
  }

  /** The user's mapping of the field as written (or as renamed), then the alternative's rename through
   * the scoped mappings, then the pipeline's table and default. */
  private targets(field: string): string[] | null {
    const renamed = own(this.renames, field) ?? field;
    const overrides = this.pipeline.overrides ?? {};
    for (const name of renamed === field ? [field] : [field, renamed]) {
      const mine = own(overrides, name);
      if (mine !== undefined && mine.length > 0) return mine;
    }
    return own(this.scoped, renamed) ?? mapField(this.pipeline, renamed);
  }

  resolvePlaceholders(s: SigmaString, path: string): StrPart[][] {
    let variants: Part[][] = [[]];
    for (const p of s.parts) {
      if (typeof p !== 'object') {
        // Every variant array is owned here (made by this loop), so it grows in place.
        for (const v of variants) {
          if (typeof p === 'string') pushLiteral(v, p);
          else v.push(p);
        }
        continue;
      }
      const values = own(this.pipeline.vars, p.placeholder);
      if (!values || values.length === 0) {
        if (this.pipeline.unresolvedPlaceholders === 'wildcard') {
          for (const v of variants) v.push(ANY);
          continue;
        }
        this.errors.push({ field: path, message: `placeholder %${p.placeholder}% has no values in pipeline '${this.pipeline.name}'` });
        return [];
      }
      const next: Part[][] = [];
      for (const v of variants) {
        for (const value of values) {
          const out = [...v];
          for (const q of parseSigmaString(value).parts) {
            if (typeof q === 'string') pushLiteral(out, q);
            else out.push(q);
          }
          next.push(out);
        }
      }
      if (next.length > MAX_PLACEHOLDER_VARIANTS) {
        this.errors.push({ field: path, message: 'placeholder expansion produces too many values' });
        return [];
      }
      variants = next;
    }
    return variants as StrPart[][];
  }

  predicates = 0;

  private match(fields: string[] | null, test: Test): IRNode {
    this.predicates++;
    return { t: 'match', fields, test };
  }

  leaf(leaf: ValueLeaf, fields: string[] | null, path: string): IRNode {
    const keyword = fields === null;
    switch (leaf.t) {
      case 'str': {
        const variants = this.resolvePlaceholders(leaf.s, path);
        if (variants.length === 1 && !keyword) return this.match(fields, { op: 'str', parts: variants[0], cased: leaf.s.cased });
        return or(
          variants.map((parts) => {
            let p = parts;
            if (keyword) {
              p = [...parts];
              if (p[0] !== ANY) p.unshift(ANY);
              if (p[p.length - 1] !== ANY) p.push(ANY);
            }
            return this.match(fields, { op: 'str', parts: p, cased: leaf.s.cased });
          }),
        );
      }
      case 'num':
        if (keyword) return this.match(fields, { op: 'str', parts: [ANY, leaf.text, ANY], cased: false });
        return this.match(fields, { op: 'num', n: leaf.n, text: leaf.text });
      case 'bool':
        if (keyword) return this.match(fields, { op: 'str', parts: [ANY, String(leaf.b), ANY], cased: false });
        return this.match(fields, { op: 'bool', b: leaf.b });
      case 'null':
        if (keyword) {
          this.errors.push({ field: path, message: 'a keyword search cannot be null' });
          return { t: 'const', v: false };
        }
        return this.match(fields, { op: 'null' });
      case 're':
        return this.match(fields, { op: 're', source: leaf.source, i: leaf.i, m: leaf.m, s: leaf.s });
      case 'cidr':
        return this.match(fields, { op: 'cidr', cidr: leaf.cidr, text: leaf.text });
      case 'cmp':
        return this.match(fields, { op: 'cmp', cmp: leaf.op, n: leaf.n });
      case 'exists':
        return this.match(fields, { op: 'exists', b: leaf.b });
      case 'time':
        return this.match(fields, { op: 'time', part: leaf.part, cmp: leaf.op, n: leaf.n });
      case 'fieldref': {
        const targets = this.fields(leaf.field, path);
        if (!targets) return { t: 'const', v: false };
        return this.match(fields, { op: 'fieldref', targets, startsWith: leaf.startsWith, endsWith: leaf.endsWith, cased: leaf.cased });
      }
    }
  }

  value(v: ValueExpr, fields: string[] | null, path: string): IRNode {
    if (v.t === 'any') return or(v.of.map((x) => this.value(x, fields, path)));
    if (v.t === 'all') return and(v.of.map((x) => this.value(x, fields, path)));
    return this.leaf(v, fields, path);
  }

  item(item: ItemExpr): IRNode {
    const fields = item.field === null ? null : this.fields(item.field, item.path);
    if (item.field !== null && !fields) return { t: 'const', v: false };
    const one = (f: string[] | null): IRNode => {
      const node = this.value(item.value, f, item.path);
      return item.negate ? not(node) : node;
    };
    if (fields === null || fields.length < 2) return one(fields);
    // A field mapped to several fields (the places one datum may be found) makes the item an OR over them,
    // each with all of its values (pySigma): `contains|all` cannot be met by one value in each of two
    // fields. Absence is the exception: the datum is null, or does not exist, only when none of its
    // places holds it, so `null` and `exists: false` values are an AND over the fields.
    const values = item.value.t === 'any' ? item.value.of : [item.value];
    const absent = values.filter(isAbsence);
    if (absent.length === 0) return or(fields.map((f) => one([f])));
    const rest = values.filter((v) => !isAbsence(v));
    const parts = absent.map((v) => and(fields.map((f) => this.leaf(v as ValueLeaf, [f], item.path))));
    if (rest.length) {
      const others: ValueExpr = rest.length === 1 ? rest[0] : { t: 'any', of: rest };
      parts.push(or(fields.map((f) => this.value(others, [f], item.path))));
    }
    return item.negate ? not(or(parts)) : or(parts);
  }

  search(node: SearchNode): IRNode {
    if (node.t === 'item') return this.item(node.item);
    const parts = node.of.map((n) => this.search(n));
    return node.t === 'and' ? and(parts) : or(parts);
  }

  private sel(name: string, det: ParsedDetection, cache: Map<string, IRNode>, prefix: string): IRNode {
    let ir = cache.get(name);
    if (!ir) {
      ir = { t: 'sel', name: prefix + name, of: this.search(det.searches.get(name) as SearchNode) };
      cache.set(name, ir);
    }
    return ir;
  }

  condition(ast: ConditionAst, det: ParsedDetection, cache: Map<string, IRNode>, prefix = ''): IRNode {
    switch (ast.t) {
      case 'and':
        return and([this.condition(ast.a, det, cache, prefix), this.condition(ast.b, det, cache, prefix)]);
      case 'or':
        return or([this.condition(ast.a, det, cache, prefix), this.condition(ast.b, det, cache, prefix)]);
      case 'not':
        return not(this.condition(ast.a, det, cache, prefix));
      case 'id':
        return this.sel(ast.name, det, cache, prefix);
      case 'of': {
        const names = selectIdentifiers(ast.pattern, [...det.searches.keys()]);
        const sels = names.map((n) => this.sel(n, det, cache, prefix));
        return ast.quant === 'all' ? and(sels) : or(sels);
      }
    }
  }

  detection(det: ParsedDetection, prefix = ''): IRNode {
    const cache = new Map<string, IRNode>();
    return or(det.conditions.map((c) => this.condition(c, det, cache, prefix)));
  }

  logsourceConditions(conds: Record<string, ConditionScalar | ConditionScalar[]>): IRNode {
    const parts: IRNode[] = [];
    for (const [field, value] of Object.entries(conds)) {
      const fields = this.fields(field, `logsource (condition on ${field})`);
      if (!fields) continue;
      const values = Array.isArray(value) ? value : [value];
      parts.push(
        or(
          values.map((v): IRNode => {
            if (typeof v === 'number') return { t: 'match', fields, test: { op: 'num', n: v, text: numberText(v) } };
            if (typeof v === 'boolean') return { t: 'match', fields, test: { op: 'bool', b: v } };
            return { t: 'match', fields, test: { op: 'str', parts: v === '' ? [] : [v], cased: false } };
          }),
        ),
      );
    }
    return and(parts);
  }
}

/** A value that holds when its field has no value: `null` or `exists: false`. */
function isAbsence(v: ValueExpr): boolean {
  return v.t === 'null' || (v.t === 'exists' && !v.b);
}

function alternativeKey(r: Record<string, string> | undefined, rewrite: LogsourceCondition['rewrite']): string {
  return JSON.stringify([Object.entries(r ?? {}).sort(), rewrite?.product, rewrite?.service]);
}

/** The lowering of a rule read as `logsource` (its own, or as a logsource alternative rewrites it): the
 * scoped mappings that apply to it, and outside the pipeline's mapping scope no table and no default
 * (field names as written, or with the default `none` only the user's own mappings). */
function lowering(pipeline: Pipeline, logsource: SigmaRule['logsource'], renames: Record<string, string>): Lowering {
  if (pipeline.mappingScope && !logsourceApplies(pipeline.mappingScope, logsource)) {
    const defaultMapping = pipeline.defaultMapping === 'none' ? 'none' : 'identity';
    return new Lowering({ ...pipeline, fieldMappings: {}, defaultMapping }, renames);
  }
  const scoped: Record<string, string[]> = {};
  for (const m of pipeline.scopedFieldMappings ?? []) {
    if (logsourceApplies(m.logsource, logsource)) Object.assign(scoped, m.mappings);
  }
  return new Lowering(pipeline, renames, scoped);
}

/** A Sigma filter's detection to AND into a rule; its selections appear as `<prefix><name>` in explain. */
export interface AppliedFilter {
  prefix: string;
  detection: ParsedDetection;
}

/** Lower one detection rule (optionally with filter detections AND-ed in) to IR under a pipeline. */
export function buildIR(rule: SigmaRule, pipeline: Pipeline, extra: AppliedFilter[] = []): { ir: IRNode; errors: FieldError[]; unmapped: string[]; overLimit?: true } {
  const det = rule.parsed;
  if (rule.kind !== 'detection' || !det) {
    return { ir: { t: 'const', v: false }, errors: [{ field: '', message: `a ${rule.kind} rule has no detection to compile` }], unmapped: [] };
  }
  const applicable = pipeline.logsources.filter((l) => logsourceApplies(l.logsource, rule.logsource));
  // Entries for the rule's category are alternatives (Sysmon 1 or Security 4688); entries without a
  // category (a service's channel) then narrow every alternative: a process_creation rule of service
  // sysmon is Sysmon 1 on the Sysmon channel, not "any Sysmon event".
  const byCategory = applicable.filter((l) => l.logsource.category !== undefined);
  const narrowing = byCategory.length ? applicable.filter((l) => l.logsource.category === undefined) : [];
  // Group alternatives by their renames and rewrites so the detection is lowered once per distinct pair.
  const groups = new Map<string, LogsourceCondition[]>();
  for (const l of byCategory.length ? byCategory : applicable) {
    const k = alternativeKey(l.renames, l.rewrite);
    groups.set(k, [...(groups.get(k) ?? []), l]);
  }
  if (groups.size === 0) groups.set(alternativeKey(undefined, undefined), []);
  const errors: FieldError[] = [];
  const unmapped = new Set<string>();
  const alternatives: IRNode[] = [];
  let overLimit: true | undefined;
  for (const alts of groups.values()) {
    const low = lowering(pipeline, { ...rule.logsource, ...alts[0]?.rewrite }, alts[0]?.renames ?? {});
    const body = and([low.detection(det), ...extra.map((f) => low.detection(f.detection, f.prefix))]);
    const either = (ls: LogsourceCondition[]): IRNode => or(ls.map((a) => low.logsourceConditions(a.conditions)));
    let conds: IRNode = alts.length ? either(alts) : { t: 'const', v: true };
    if (narrowing.length) conds = and([conds, either(narrowing)]);
    alternatives.push(and([conds, body]));
    for (const e of low.errors) if (!errors.some((x) => x.field === e.field && x.message === e.message)) errors.push(e);
    for (const f of low.unmapped) unmapped.add(f);
    // Tests as lowered, or as evaluated when the condition names a search many times.
    const tests = low.predicates > MAX_PREDICATES ? low.predicates : evaluatedTests(body);
    if (tests > MAX_PREDICATES) {
      errors.push({ field: 'detection', message: `the rule expands to ${tests} value tests (limit ${MAX_PREDICATES})` });
      overLimit = true;
      break;
    }
  }
  return { ir: or(alternatives), errors, unmapped: [...unmapped].sort(), ...(overLimit ? { overLimit } : {}) };
}

/** The Sigma fields of a rule (filters aside) that a pipeline does not map, sorted. */
export function unmappedFields(rule: SigmaRule, pipeline: Pipeline): string[] {
  return buildIR(rule, pipeline).unmapped;
}

// IR → fast JS closures, plus explain. Promises: `match` evaluates the IR exactly (the IR semantics are in
// ir.ts) with short-circuiting and no per-event allocation on the common paths; OR groups of string tests
// on the same field are fused (one field read, one case fold, a Set for exact values, grouped prefixes and
// suffixes); `explain` reports every search identifier that held, with the field values that satisfied
// it. compileIR reports every compile error at once but builds the closures on the first `match` (and
// explain's on the first explain).
import { foldCase } from '../case-fold.js';
import { eachLeaf, makeAccessor } from './field-access.js';
import type { Accessor } from './field-access.js';
import { asString, compileValueTest } from './value-tests.js';
import type { ValueTest } from './value-tests.js';
import { AffixSet } from './affix-set.js';
import { compileString, foldValue, shapeOf } from './string-match.js';
import { AhoCorasick } from '../index/aho-corasick.js';
import { budgetError } from './rule-budget.js';
import type { IRNode, Test } from '../ir.js';
import type { FieldError } from '../rule.js';

export type Pred = (event: unknown) => boolean;

/** Fused OR groups with at least this many case-insensitive substrings use an automaton. */
const AUTOMATON_THRESHOLD = 32;
type Finder = (event: unknown) => [string, unknown] | null;

export interface Explanation {
  matched: boolean;
  matchedConditions: Array<Record<string, Record<string, unknown>>>;
}

export interface CompiledRule {
  match(event: object): boolean;
  explain(event: object): Explanation;
  ir: IRNode;
}

const accessors = new Map<string, Accessor>();
function accessor(path: string): Accessor {
  let a = accessors.get(path);
  if (!a) {
    a = makeAccessor(path);
    accessors.set(path, a);
  }
  return a;
}

/** How many times each selection node is referenced in `ir` (a search named several times by the
 * condition lowers to one shared node). Visits each distinct node once. */
function selectionReferences(ir: IRNode): Map<IRNode, number> {
  const refs = new Map<IRNode, number>();
  const visit = (n: IRNode): void => {
    if (n.t === 'sel') {
      const seen = refs.get(n);
      refs.set(n, (seen ?? 0) + 1);
      if (seen !== undefined) return;
      visit(n.of);
    } else if (n.t === 'not') visit(n.of);
    else if (n.t === 'and' || n.t === 'or') for (const m of n.of) visit(m);
  };
  visit(ir);
  return refs;
}

class Compiler {
  errors: FieldError[] = [];
  /** Value finders for explain; only the explain compiler records them (the hot path does not pay). */
  readonly finders: Map<IRNode, Finder>;
  /** Selections referenced more than once, compiled once and evaluated at most once per event: their
   * result is kept for the current `epoch` (the matcher bumps it for every event). Not for explain, whose
   * selection predicates are called one by one. */
  private readonly shared: Map<IRNode, number>;
  private readonly compiledShared = new Map<IRNode, Pred>();
  readonly clock = { epoch: 0 };
  constructor(explaining: boolean, ir?: IRNode) {
    this.finders = explaining ? new Map() : new NoFinders();
    this.shared = explaining || ir === undefined ? new Map() : selectionReferences(ir);
  }

  /** Whether the compiled predicate needs the epoch bumped for each event. */
  get memoises(): boolean {
    return this.compiledShared.size > 0;
  }

  /** A selection referenced more than once: one predicate, evaluated once per epoch. */
  private sharedSelection(node: Extract<IRNode, { t: 'sel' }>): Pred {
    const known = this.compiledShared.get(node);
    if (known !== undefined) return known;
    const inner = this.node(node.of);
    const clock = this.clock;
    let at = -1;
    let value = false;
    const pred: Pred = (e) => {
      if (at !== clock.epoch) {
        value = inner(e);
        at = clock.epoch;
      }
      return value;
    };
    this.compiledShared.set(node, pred);
    return pred;
  }

  matchNode(node: Extract<IRNode, { t: 'match' }>): Pred {
    const { fields, test } = node;
    if (fields === null) return this.keyword(node, test);
    const accs = fields.map(accessor);
    const one = accs.length === 1 ? accs[0] : null;
    const anyField = (fn: (a: Accessor, name: string) => boolean): boolean => {
      for (let i = 0; i < accs.length; i++) if (fn(accs[i], fields[i])) return true;
      return false;
    };
    // null: the field is absent, or one of its values is null (arrays match through any member).
    const isNull = (v: unknown): boolean => v === null;
    const nullAt = (a: Accessor, e: unknown): boolean => !a.present(e) || a.each(e, isNull);
    if (test.op === 'null') {
      this.finders.set(node, (e) => (anyField((a) => nullAt(a, e)) ? [fields[0], null] : null));
      return (e) => anyField((a) => nullAt(a, e));
    }
    if (test.op === 'exists') {
      // Present, be it null or an empty array.
      const want = test.b;
      this.finders.set(node, (e) => {
        for (let i = 0; i < accs.length; i++) {
          if (accs[i].present(e) !== want) continue;
          let found: [string, unknown] = [fields[i], null];
          accs[i].each(e, (v) => ((found = [fields[i], v]), true));
          return found;
        }
        return null;
      });
      return (e) => anyField((a) => a.present(e) === want);
    }
    if (test.op === 'fieldref') return this.fieldref(node, test, accs);
    const compiled = compileValueTest(test);
    if (!compiled.ok) {
      this.errors.push({ field: `detection (${fields.join('|')})`, message: compiled.message });
      return () => false;
    }
    const fn = compiled.fn;
    this.finders.set(node, (e) => {
      let hit: [string, unknown] | null = null;
      anyField((a, name) => a.each(e, (v) => (v !== null && fn(v) ? ((hit = [name, v]), true) : false)));
      return hit;
    });
    if (one) return (e) => one.each(e, fn);
    return (e) => anyField((a) => a.each(e, fn));
  }

  keyword(node: IRNode, test: Test): Pred {
    const compiled = compileValueTest(test);
    if (!compiled.ok) {
      this.errors.push({ field: 'detection (keywords)', message: compiled.message });
      return () => false;
    }
    const fn = compiled.fn;
    const leaf = (v: unknown): boolean => v !== null && typeof v !== 'object' && fn(v);
    this.finders.set(node, (e) => {
      let hit: [string, unknown] | null = null;
      eachLeaf(e, (v, path) => (leaf(v) ? ((hit = [path, v]), true) : false));
      return hit;
    });
    return (e) => eachLeaf(e, leaf);
  }

  fieldref(node: IRNode, test: Extract<Test, { op: 'fieldref' }>, accs: Accessor[]): Pred {
    const others = test.targets.map(accessor);
    const fold = test.cased ? (s: string) => s : foldCase;
    const cmp = (a: string, b: string): boolean =>
      test.startsWith && test.endsWith ? a.includes(b) : test.startsWith ? a.startsWith(b) : test.endsWith ? a.endsWith(b) : a === b;
    const check = (e: unknown, v: unknown): boolean => {
      const s = asString(v);
      if (s === undefined) return false;
      const a = fold(s);
      return others.some((o) =>
        o.each(e, (w) => {
          const t = asString(w);
          return t !== undefined && cmp(a, fold(t));
        }),
      );
    };
    const pred: Pred = (e) => accs.some((acc) => acc.each(e, (v) => check(e, v)));
    this.finders.set(node, (e) => {
      let hit: [string, unknown] | null = null;
      accs.forEach((acc, i) => acc.each(e, (v) => (check(e, v) ? ((hit = [(node as { fields: string[] }).fields[i], v]), true) : false)));
      return hit;
    });
    return pred;
  }

  /** Fuse `or` children that are case-(in)sensitive string tests on the same fields. */
  fusedOr(nodes: Array<Extract<IRNode, { t: 'match' }>>): Pred {
    const fields = nodes[0].fields;
    const cased = (nodes[0].test as { cased: boolean }).cased;
    const eq = new Set<string>();
    const prefixes: string[] = [];
    const suffixes: string[] = [];
    const contains: string[] = [];
    const others: Array<(s: string) => boolean> = [];
    let any = false;
    for (const n of nodes) {
      const t = n.test as Extract<Test, { op: 'str' }>;
      const shape = shapeOf(t.parts);
      const lit = shape.kind === 'eq' || shape.kind === 'prefix' || shape.kind === 'suffix' || shape.kind === 'contains' ? (cased ? shape.lit : foldCase(shape.lit)) : '';
      if (shape.kind === 'eq') eq.add(lit);
      else if (shape.kind === 'prefix') prefixes.push(lit);
      else if (shape.kind === 'suffix') suffixes.push(lit);
      else if (shape.kind === 'contains') contains.push(lit);
      else if (shape.kind === 'any') any = true;
      else others.push(compileString(t.parts, cased));
      const single = this.finders instanceof NoFinders ? { ok: false as const } : compileValueTest(t);
      if (single.ok && fields === null) {
        const fn = single.fn;
        this.finders.set(n, (e) => {
          let hit: [string, unknown] | null = null;
          eachLeaf(e, (v, path) => (v !== null && typeof v !== 'object' && fn(v) ? ((hit = [path, v]), true) : false));
          return hit;
        });
      } else if (single.ok && fields !== null) {
        const fn = single.fn;
        const accs = fields.map(accessor);
        this.finders.set(n, (e) => {
          let hit: [string, unknown] | null = null;
          accs.some((a, i) => a.each(e, (v) => (v !== null && fn(v) ? ((hit = [fields[i], v]), true) : false)));
          return hit;
        });
      }
    }
    // Large case-insensitive substring lists (hash lists, emoji lists) run as one Aho-Corasick pass, built
    // on the first value tested (most rules are never a candidate for most event streams).
    let automaton: AhoCorasick | null = null;
    let acPatterns: string[] | null = null;
    let acHit = false;
    let stamp = 0;
    const report = (): void => {
      acHit = true;
    };
    if (!cased && contains.length >= AUTOMATON_THRESHOLD) acPatterns = contains.splice(0);
    const prefixSet = new AffixSet(prefixes, false);
    const suffixSet = new AffixSet(suffixes, true);
    const test: ValueTest = (v) => {
      const raw = typeof v === 'string' ? v : asString(v);
      if (raw === undefined) return false;
      if (any) return true;
      if (acPatterns !== null) {
        if (automaton === null) automaton = new AhoCorasick(acPatterns);
        acHit = false;
        automaton.scan(raw, ++stamp, report);
        if (acHit) return true;
      }
      const s = cased ? raw : foldValue(raw);
      if (eq.has(s)) return true;
      if (prefixSet.test(s) || suffixSet.test(s)) return true;
      for (let i = 0; i < contains.length; i++) if (s.includes(contains[i])) return true;
      for (let i = 0; i < others.length; i++) if (others[i](raw)) return true;
      return false;
    };
    if (fields === null) {
      const leaf = (v: unknown): boolean => v !== null && typeof v !== 'object' && test(v);
      return (e) => eachLeaf(e, leaf);
    }
    const accs = fields.map(accessor);
    if (accs.length === 1) {
      const a = accs[0];
      return (e) => a.each(e, test);
    }
    return (e) => accs.some((a) => a.each(e, test));
  }

  node(node: IRNode): Pred {
    switch (node.t) {
      case 'const':
        return node.v ? () => true : () => false;
      case 'sel':
        return (this.shared.get(node) ?? 0) > 1 ? this.sharedSelection(node) : this.node(node.of);
      case 'not': {
        const inner = this.node(node.of);
        return (e) => !inner(e);
      }
      case 'match':
        return this.matchNode(node);
      case 'and': {
        const parts = node.of.map((n) => this.node(n));
        if (parts.length === 2) {
          const [a, b] = parts;
          return (e) => a(e) && b(e);
        }
        return (e) => {
          for (let i = 0; i < parts.length; i++) if (!parts[i](e)) return false;
          return true;
        };
      }
      case 'or': {
        const groups = new Map<string, Array<Extract<IRNode, { t: 'match' }>>>();
        const rest: IRNode[] = [];
        for (const n of node.of) {
          if (n.t === 'match' && n.test.op === 'str') {
            const key = `${n.test.cased}\u0000${n.fields === null ? '\u0001keywords' : n.fields.join('\u0000')}`;
            const g = groups.get(key);
            if (g) g.push(n);
            else groups.set(key, [n]);
          } else rest.push(n);
        }
        const parts: Pred[] = [];
        for (const g of groups.values()) {
          if (g.length >= 3) parts.push(this.fusedOr(g));
          else rest.push(...g);
        }
        parts.push(...rest.map((n) => this.node(n)));
        if (parts.length === 1) return parts[0];
        if (parts.length === 2) {
          const [a, b] = parts;
          return (e) => a(e) || b(e);
        }
        return (e) => {
          for (let i = 0; i < parts.length; i++) if (parts[i](e)) return true;
          return false;
        };
      }
    }
  }
}

/** A finder map that records nothing (the matching compiler never explains). */
class NoFinders extends Map<IRNode, Finder> {
  override set(): this {
    return this;
  }
}

/** Every variant of each selection, by name: a log source with several conditions (thor's process_creation as
 * Sysmon 1 or Security 4688, fields renamed in the second) gives one selection a variant per branch. */
function collectSelections(node: IRNode, out: Map<string, IRNode[]>): void {
  if (node.t === 'sel') {
    const variants = out.get(node.name);
    if (!variants) out.set(node.name, [node]);
    else if (!variants.includes(node)) variants.push(node);
    collectSelections(node.of, out);
  } else if (node.t === 'and' || node.t === 'or') node.of.forEach((n) => collectSelections(n, out));
  else if (node.t === 'not') collectSelections(node.of, out);
}

function collectMatches(node: IRNode, out: IRNode[]): void {
  if (node.t === 'match') out.push(node);
  else if (node.t === 'and' || node.t === 'or') node.of.forEach((n) => collectMatches(n, out));
  else if (node.t === 'sel') collectMatches(node.of, out);
  // matches under `not` never contribute values
}

/** Tests that compile to a value test without possible error (only `re` can be refused). */
const INFALLIBLE = new Set<Test['op']>(['str', 'num', 'bool', 'cidr', 'cmp', 'time']);

/** The errors the Compiler would report for `ir`, in the same order (a pre-order walk: `or` reorders only
 * string tests, which never fail), without building any closure. */
function compileErrors(node: IRNode, out: FieldError[]): FieldError[] {
  switch (node.t) {
    case 'const':
      return out;
    case 'sel':
    case 'not':
      return compileErrors(node.of, out);
    case 'and':
    case 'or':
      for (const child of node.of) compileErrors(child, out);
      return out;
    case 'match': {
      const { fields, test } = node;
      if (fields !== null && (test.op === 'null' || test.op === 'exists' || test.op === 'fieldref')) return out;
      if (INFALLIBLE.has(test.op)) return out;
      const compiled = compileValueTest(test);
      if (!compiled.ok) out.push({ field: fields === null ? 'detection (keywords)' : `detection (${fields.join('|')})`, message: compiled.message });
      return out;
    }
  }
}

/** Compile IR into a matcher. Errors (e.g. a regex refused as unsafe, or the rule over a work limit of
 * rule-budget.ts, then flagged `overLimit`) are returned, not thrown. The
 * closures are built on the first call of `match` (most rules of a large set are never a candidate). */
export function compileIR(ir: IRNode): { ok: true; matcher: CompiledRule } | { ok: false; errors: FieldError[]; overLimit?: true } {
  const over = budgetError(ir);
  if (over) return { ok: false, errors: [over], overLimit: true };
  const errors = compileErrors(ir, []);
  if (errors.length) return { ok: false, errors };
  let compiled: Pred | null = null;
  const root: Pred = (event) => {
    if (compiled === null) {
      const c = new Compiler(false, ir);
      const pred = c.node(ir);
      const clock = c.clock;
      compiled = c.memoises
        ? (e) => {
            clock.epoch++;
            return pred(e);
          }
        : pred;
      matcher.match = compiled;
    }
    return compiled(event);
  };
  let explainer: { sels: Array<[string, Array<[Pred, IRNode[]]>]>; finders: Map<IRNode, Finder> } | null = null;
  const explain = (event: object): Explanation => {
    if (!explainer) {
      const sels = new Map<string, IRNode[]>();
      collectSelections(ir, sels);
      const ec = new Compiler(true);
      const list: Array<[string, Array<[Pred, IRNode[]]>]> = [];
      for (const [name, nodes] of sels) {
        list.push([
          name,
          nodes.map((node) => {
            const matches: IRNode[] = [];
            collectMatches(node, matches);
            return [ec.node(node), matches] as [Pred, IRNode[]];
          }),
        ]);
      }
      explainer = { sels: list, finders: ec.finders };
    }
    const matched = matcher.match(event);
    const matchedConditions: Explanation['matchedConditions'] = [];
    for (const [name, variants] of explainer.sels) {
      // The first variant of the selection that holds gives its values.
      const matches = variants.find(([pred]) => pred(event))?.[1];
      if (!matches) continue;
      const values: Record<string, unknown> = {};
      for (const m of matches) {
        const hit = explainer.finders.get(m)?.(event);
        if (hit && !Object.prototype.hasOwnProperty.call(values, hit[0])) {
          Object.defineProperty(values, hit[0], { value: hit[1], enumerable: true, writable: true, configurable: true });
        }
      }
      matchedConditions.push({ [name]: values });
    }
    return { matched, matchedConditions };
  };
  const matcher: CompiledRule = { match: root, explain, ir };
  return { ok: true, matcher };
}

// Memoised evaluation of one compiled rule, keyed by the values the rule can read, for rules the index has
// to evaluate on every event (rules made only of `not …`). Realistic events repeat the values of the few
// fields such a rule reads (images, users), so most evaluations become one key build and one Map lookup.
//
// Promises (exactness): `match(event)` always equals `rule.match(event)`. This holds because the memo is
// keyed, field by field, by the single primitive value (or the absence of any value, or the presence of
// nothing but empty arrays) that the matcher's own accessors find at each field the IR reads (fieldref
// targets included), compared with SameValueZero (so 1 and "1", null and absent stay apart), and a rule's
// result is a function of those values only. An
// event where some field yields several values, an object, or -0 (which SameValueZero equates with 0) is
// evaluated directly, and so is an event whose value is a text longer than MAX_KEY_LENGTH. A memo is
// refused for rules with keyword searches (they read every value). Memory is bounded: every memo holds at
// most MAX_ENTRIES entries (results and the maps that lead to them), and all memos together at most the
// entries of a shared budget (entry-budget.ts: a memo that finds the budget spent evaluates without
// storing until some memo gives entries back by clearing). A memo turns itself off while its hit rate is
// low, so the worst case is a few lookups per call.
//
// A rule that is a conjunction of parts reading different fields (typically `not 1 of filter_*` over the
// image, the parent image and the user) is memoised part by part: the values of one field repeat far more
// often than the combinations of several. Exact by Boolean algebra: the rule is the AND of its conjuncts
// (`sel` only names a node; `not (a or b)` is `not a and not b`), grouped by the fields they read, and
// each group is a compiled sub-tree of the same IR memoised as above.
import { makeAccessor } from '../compile/field-access.js';
import type { Accessor } from '../compile/field-access.js';
import { compileIR } from '../compile/matcher.js';
import type { CompiledRule } from '../compile/matcher.js';
import type { IRNode } from '../ir.js';
import { EntryBudget } from './entry-budget.js';

const MAX_ENTRIES = 4096;
const WINDOW = 1024;
/** Longer texts are not memo keys (command lines, scripts: rarely repeated, costly to hold). */
const MAX_KEY_LENGTH = 256;

/** The budget of the memos made without a budget of their own: shared by every index of the process. */
const PROCESS_BUDGET = new EntryBudget(1 << 16);

/** Fields the IR reads, or null when it has a keyword search (which reads every value). */
export function fieldsRead(node: IRNode, out = new Set<string>()): Set<string> | null {
  switch (node.t) {
    case 'const':
      return out;
    case 'sel':
    case 'not':
      return fieldsRead(node.of, out);
    case 'and':
    case 'or':
      for (const child of node.of) if (fieldsRead(child, out) === null) return null;
      return out;
    case 'match':
      if (node.fields === null) return null;
      for (const f of node.fields) out.add(f);
      if (node.test.op === 'fieldref') for (const f of node.test.targets) out.add(f);
      return out;
  }
}

const ABSENT = Symbol('absent');
const MANY = Symbol('many');
const EMPTY = Symbol('empty');

/** A memoised evaluation: `match(event)` always equals the rule's own `match(event)`. */
export interface Memo {
  match(event: object): boolean;
}

/** The conjuncts of `node`: `and` flattened through `sel` names, `not (a or b)` spread to `not a`, `not b`. */
function conjuncts(node: IRNode, out: IRNode[]): IRNode[] {
  if (node.t === 'sel') return conjuncts(node.of, out);
  if (node.t === 'and') {
    for (const child of node.of) conjuncts(child, out);
    return out;
  }
  if (node.t === 'not') {
    let inner = node.of;
    while (inner.t === 'sel') inner = inner.of;
    if (inner.t === 'or') {
      for (const child of inner.of) conjuncts({ t: 'not', of: child }, out);
      return out;
    }
  }
  out.push(node);
  return out;
}

/** Memoised conjunction: every group must hold (fewest fields first, so the best-cached groups decide). */
class MemoGroups implements Memo {
  constructor(private readonly groups: Memo[]) {}

  match(event: object): boolean {
    for (let i = 0; i < this.groups.length; i++) if (!this.groups[i].match(event)) return false;
    return true;
  }
}

export class RuleMemo implements Memo {
  private readonly accessors: Accessor[];
  /** Nested maps, one level per field; the last level holds the results. */
  private root = new Map<unknown, unknown>();
  private entries = 0;
  private value: unknown = ABSENT;
  private caching = true;
  private calls = 0;
  private lookups = 0;
  private hits = 0;

  private constructor(
    private readonly rule: CompiledRule,
    fields: string[],
    private readonly budget: EntryBudget,
  ) {
    this.accessors = fields.map(makeAccessor);
  }

  /** A memo for `rule`, or null when its result may depend on values outside a fixed set of fields. */
  static of(rule: CompiledRule, budget = PROCESS_BUDGET): Memo | null {
    const fields = fieldsRead(rule.ir);
    if (fields === null || fields.size === 0) return null;
    const whole = (): RuleMemo => new RuleMemo(rule, [...fields].sort(), budget);
    // Group the conjuncts by the fields they read.
    const groups = new Map<string, { fields: string[]; nodes: IRNode[] }>();
    for (const node of conjuncts(rule.ir, [])) {
      const read = [...(fieldsRead(node) ?? [])].sort();
      const key = read.join('\n');
      const group = groups.get(key);
      if (group) group.nodes.push(node);
      else groups.set(key, { fields: read, nodes: [node] });
    }
    if (groups.size < 2) return whole();
    const parts: Array<{ size: number; memo: Memo }> = [];
    for (const { fields: read, nodes } of groups.values()) {
      const compiled = compileIR(nodes.length === 1 ? nodes[0] : { t: 'and', of: nodes });
      if (!compiled.ok) return whole();
      parts.push({ size: read.length, memo: read.length ? new RuleMemo(compiled.matcher, read, budget) : compiled.matcher });
    }
    parts.sort((a, b) => a.size - b.size);
    return new MemoGroups(parts.map((p) => p.memo));
  }

  private readonly take = (v: unknown): boolean => {
    if (this.value !== ABSENT || (typeof v === 'object' && v !== null) || Object.is(v, -0) || (typeof v === 'string' && v.length > MAX_KEY_LENGTH)) {
      this.value = MANY;
      return true; // stop visiting
    }
    this.value = v;
    return false;
  };

  /** Drop every entry, giving them back to the budget. */
  private clear(): void {
    this.root = new Map();
    this.budget.giveBack(this.entries);
    this.entries = 0;
  }

  /** Store `value` under `key` in `level` if the memo and the budget allow it. */
  private store(level: Map<unknown, unknown>, key: unknown, value: unknown): boolean {
    if (!this.budget.take()) return false;
    level.set(key, value);
    this.entries++;
    return true;
  }

  match(event: object): boolean {
    if (!this.caching && (++this.calls & 63) !== 0) return this.rule.match(event);
    if (this.entries >= MAX_ENTRIES) this.clear();
    let level = this.root;
    const last = this.accessors.length - 1;
    let key: unknown = ABSENT;
    for (let i = 0; ; i++) {
      this.value = ABSENT;
      this.accessors[i].each(event, this.take);
      key = this.value;
      // No value: absent, or present holding only empty arrays (exists and null tell them apart).
      if (key === ABSENT && this.accessors[i].present(event)) key = EMPTY;
      if (key === MANY) return this.rule.match(event);
      if (i === last) break;
      let next = level.get(key) as Map<unknown, unknown> | undefined;
      if (next === undefined) {
        next = new Map();
        if (!this.store(level, key, next)) return this.rule.match(event);
      }
      level = next;
    }
    this.lookups++;
    let r = level.get(key) as boolean | undefined;
    if (r !== undefined) this.hits++;
    else {
      r = this.rule.match(event);
      this.store(level, key, r);
    }
    if (this.lookups >= WINDOW) {
      this.caching = this.hits * 2 >= this.lookups;
      if (!this.caching) this.clear();
      this.lookups = 0;
      this.hits = 0;
    }
    return r;
  }
}

// Memoised evaluation of one compiled rule, keyed by the values the rule can read, for rules the index has
// to evaluate on every event (rules made only of `not …`). Realistic events repeat the values of the few
// fields such a rule reads (images, users), so most evaluations become one key build and one Map lookup.
//
// Promises (exactness): `match(event)` always equals `rule.match(event)`. This holds because the memo is
// keyed, field by field, by the single primitive value (or the absence of any value) that the matcher's
// own accessors find at each field the IR reads (fieldref targets included), compared with SameValueZero
// (so 1 and "1", null and absent stay apart), and a rule's result is a function of those values only. An
// event where some field yields several values, an object, or -0 (which SameValueZero equates with 0) is
// evaluated directly. A memo is refused for rules with keyword searches (they read every value). The cache
// is bounded and turns itself off while its hit rate is low, so the worst case is a few lookups per call.
import { makeAccessor } from '../compile/field-access.js';
import type { Accessor } from '../compile/field-access.js';
import type { CompiledRule } from '../compile/matcher.js';
import type { IRNode } from '../ir.js';

const MAX_ENTRIES = 4096;
const WINDOW = 1024;

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

export class RuleMemo {
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
  ) {
    this.accessors = fields.map(makeAccessor);
  }

  /** A memo for `rule`, or null when its result may depend on values outside a fixed set of fields. */
  static of(rule: CompiledRule): RuleMemo | null {
    const fields = fieldsRead(rule.ir);
    return fields === null || fields.size === 0 ? null : new RuleMemo(rule, [...fields].sort());
  }

  private readonly take = (v: unknown): boolean => {
    if (this.value !== ABSENT || (typeof v === 'object' && v !== null) || Object.is(v, -0)) {
      this.value = MANY;
      return true; // stop visiting
    }
    this.value = v;
    return false;
  };

  match(event: object): boolean {
    if (!this.caching && (++this.calls & 63) !== 0) return this.rule.match(event);
    let level = this.root;
    const last = this.accessors.length - 1;
    let key: unknown = ABSENT;
    for (let i = 0; ; i++) {
      this.value = ABSENT;
      this.accessors[i].each(event, this.take);
      key = this.value;
      if (key === MANY) return this.rule.match(event);
      if (i === last) break;
      let next = level.get(key) as Map<unknown, unknown> | undefined;
      if (next === undefined) {
        next = new Map();
        level.set(key, next);
      }
      level = next;
    }
    this.lookups++;
    let r = level.get(key) as boolean | undefined;
    if (r !== undefined) this.hits++;
    else {
      r = this.rule.match(event);
      if (++this.entries > MAX_ENTRIES) {
        this.root = new Map();
        this.entries = 0;
      } else level.set(key, r);
    }
    if (this.lookups >= WINDOW) {
      this.caching = this.hits * 2 >= this.lookups;
      if (!this.caching) {
        this.root = new Map();
        this.entries = 0;
      }
      this.lookups = 0;
      this.hits = 0;
    }
    return r;
  }
}

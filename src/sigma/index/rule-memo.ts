// Memoised evaluation of one compiled rule, keyed by the values the rule can read, for rules the index has
// to evaluate on every event (rules made only of `not …`). Realistic events repeat the values of the few
// fields such a rule reads (images, users), so most evaluations become one key build and one Map lookup.
//
// Promises (exactness): `match(event)` always equals `rule.match(event)`. This holds because the key lists,
// field by field and in the accessor's visiting order, the type and exact text of every value the matcher's
// accessors find at the fields the IR reads (fieldref targets included), and a rule's result is a function
// of those values only. Keys are unambiguous (each value is length-prefixed). A memo is refused for rules
// with keyword searches (they read every value), and an event where a read value is an object or is
// otherwise unrepresentable is evaluated directly. The cache is bounded and turns itself off while its hit
// rate is low, so the worst case costs one key build per evaluation.
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

export class RuleMemo {
  private readonly accessors: Accessor[];
  private readonly cache = new Map<string, boolean>();
  private key = '';
  private bad = false;
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
    return fields === null ? null : new RuleMemo(rule, [...fields].sort());
  }

  private readonly add = (v: unknown): boolean => {
    let s: string;
    if (typeof v === 'string') s = 's' + v.length + ':' + v;
    else if (typeof v === 'number') s = Object.is(v, -0) ? 'n-0' : 'n' + String(v);
    else if (typeof v === 'boolean') s = v ? 'T' : 'F';
    else if (v === null) s = 'N';
    else {
      this.bad = true;
      return true; // stop visiting
    }
    this.key += s + ',';
    return false;
  };

  match(event: object): boolean {
    if (!this.caching && (++this.calls & 63) !== 0) return this.rule.match(event);
    this.key = '';
    this.bad = false;
    for (let i = 0; i < this.accessors.length; i++) {
      this.accessors[i].each(event, this.add);
      if (this.bad) return this.rule.match(event);
      this.key += '|';
    }
    const key = this.key;
    this.lookups++;
    let r = this.cache.get(key);
    if (r !== undefined) this.hits++;
    else {
      r = this.rule.match(event);
      if (this.cache.size >= MAX_ENTRIES) this.cache.clear();
      this.cache.set(key, r);
    }
    if (this.lookups >= WINDOW) {
      this.caching = this.hits * 4 >= this.lookups;
      if (!this.caching) this.cache.clear();
      this.lookups = 0;
      this.hits = 0;
    }
    return r;
  }
}

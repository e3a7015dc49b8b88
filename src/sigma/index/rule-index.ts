// RuleIndex: the in-process "percolator". A keyed set of compiled rules that, for each event, evaluates only
// the rules that can possibly match.
//
// Soundness invariant: for every event e and every rule r in the index, r.match(e) ⇒ key(r) ∈
// candidates(e); hence match(e) returns exactly the keys whose rule matches e, as evaluating every rule
// would. It rests on witness.ts (every clause of a rule's requirement holds whenever the rule matches) and
// event-walk.ts (every value an accessor can find is visited under the field's canonical name); a rule is a
// candidate when each of its (at most 3) clauses has at least one atom that fired (exact values through a
// Map, substrings through a per-field scanner, presence through a list). A rule without a usable
// requirement that reads a fixed set of fields (rules made of `not …`) is keyed by the presence of those
// fields: when none is present the event looks like `{}` to the rule, whose result on `{}` is computed once
// (the same argument as rule-memo.ts: the result depends only on what the accessors find at the fields the
// rule reads, and the walk visits everything they could find); otherwise it is evaluated, memoised by the
// values it reads. Other rules without a requirement are evaluated always; rules that can never match are
// never evaluated; pure keyword rules are decided by the index alone (exact-keywords.ts).
//
// Incrementality: add/remove touch only the rule's own postings; a field's substring scanner is rebuilt
// lazily on the next event that needs it (or by prepare()), and only if that field's patterns changed.
import { foldCase } from '../case-fold.js';
import type { CompiledRule } from '../compile/matcher.js';
import { rememberNoSpacedKeys } from '../compile/field-access.js';
import { asString } from '../compile/value-tests.js';
import { canonicalField, FieldRoutes } from './event-walk.js';
import { FieldPostings, PatternSet } from './field-postings.js';
import type { Postings } from './field-postings.js';
import type { GramScanner } from './gram-scanner.js';
import { decidedByIndex } from './exact-keywords.js';
import { fieldsRead, RuleMemo } from './rule-memo.js';
import type { Memo } from './rule-memo.js';
import { ValueCache } from './value-cache.js';
import { EntryBudget } from './entry-budget.js';
import type { CachedValue } from './value-cache.js';
import { requirementOf } from './witness.js';
import type { Atom, Requirement } from './witness.js';

interface Entry<K> {
  key: K;
  rule: CompiledRule;
  requirement: Requirement;
  /** Memoised by the values the rule reads (rule-memo.ts), when possible; made on the rule's first
   * evaluation (undefined until then: most rules of a large set are rarely candidates). */
  memo: Memo | null | undefined;
  /** Pure keyword rules: being a candidate means matching (exact-keywords.ts). */
  decided: boolean;
}

/** The entry's rule on `event`, through its memo when it has one. */
function evaluate<K>(e: Entry<K>, event: object): boolean {
  if (e.memo === undefined) e.memo = RuleMemo.of(e.rule);
  return e.memo !== null ? e.memo.match(event) : e.rule.match(event);
}

/** Field names whose route is remembered; beyond, routes are made per value and get no value cache
 * (events with that many distinct keys are not the repetitive telemetry caches help). */
const MAX_ROUTES = 4096;

const NOTHING = new Int32Array(0);

/** Values the caches of all the fields of an index may hold together. */
const CACHED_VALUES = 1 << 16;

/** A field's postings (undefined: keyword patterns only) and the cache of its values' outcomes (only for
 * remembered routes). */
interface Route {
  postings: FieldPostings | undefined;
  cache: ValueCache | undefined;
}

export interface RuleIndexStats {
  rules: number;
  /** Rules evaluated for every event (no usable witness). */
  always: number;
  /** Rules that can never match (e.g. a condition that is constant false). */
  never: number;
  fields: number;
  exactValues: number;
  substringPatterns: number;
}

export class RuleIndex<K = string> {
  private readonly entries: Array<Entry<K> | undefined> = [];
  private readonly freeSlots: number[] = [];
  private readonly byKey = new Map<K, number>();
  private readonly fields = new Map<string, FieldPostings>();
  private readonly anySubs = new PatternSet();
  /** What the walk needs to know of each field name it met: its postings and its value cache. Cleared
   * whenever a field gains or loses its postings. */
  private readonly routes = new FieldRoutes<Route>(
    (path, remembered) => ({ postings: this.fields.get(path), cache: remembered ? new ValueCache(this.cacheBudget) : undefined }),
    MAX_ROUTES,
  );
  /** Shared by the value caches of the current routes (forgotten with them). */
  private cacheBudget = new EntryBudget(CACHED_VALUES);
  private anyVersion = 0;
  private readonly always = new Set<number>();
  /** Rules keyed by the presence of the fields they read that match an event holding none of them. */
  private readonly matchWhenAbsent = new Set<number>();
  private stamp = new Float64Array(64);
  private mask = new Uint8Array(64);
  private full = new Uint8Array(64);
  private epoch = 0;
  private readonly hits: number[] = [];
  private payload: Postings[] = [];
  /** Bumped by every change of postings: the value caches' entries belong to one version. */
  private version = 0;
  /** Whether lookUp collects postings into `found` (for a value cache) instead of marking them. */
  private recording = false;
  private readonly found: number[] = [];
  /** Scanner stamps of recorded lookups (negative, so never an epoch; -1 is a scanner's "never"). */
  private privateStamp = -1;

  get size(): number {
    return this.byKey.size;
  }

  has(key: K): boolean {
    return this.byKey.has(key);
  }

  /** Add a rule under `key`, replacing the rule already stored under that key. */
  add(key: K, rule: CompiledRule): void {
    this.remove(key);
    const slot = this.freeSlots.length ? (this.freeSlots.pop() as number) : this.entries.length;
    this.ensureCapacity(slot + 1);
    let requirement = requirementOf(rule.ir);
    const read = requirement === null ? fieldsRead(rule.ir) : null;
    if (read !== null && read.size > 0) {
      requirement = [[...read].map((field): Atom => ({ kind: 'present', field }))];
      if (rule.match({})) this.matchWhenAbsent.add(slot);
    }
    const decided = decidedByIndex(rule.ir, requirement);
    // Candidates are evaluated through a memo keyed by the values they read (images, users and the like
    // repeat; a memo whose hits are rare turns itself off).
    const memo = requirement !== 'never' && !decided ? undefined : null;
    this.entries[slot] = { key, rule, requirement, memo, decided };
    this.byKey.set(key, slot);
    this.stamp[slot] = -1;
    if (requirement === null) {
      this.always.add(slot);
      return;
    }
    if (requirement === 'never') return;
    this.full[slot] = (1 << requirement.length) - 1;
    requirement.forEach((clause, c) => {
      for (const atom of clause) this.post(atom, slot * 4 + c, true);
    });
  }

  /** Remove the rule stored under `key`; false if there is none. */
  remove(key: K): boolean {
    const slot = this.byKey.get(key);
    if (slot === undefined) return false;
    const entry = this.entries[slot] as Entry<K>;
    const req = entry.requirement;
    this.matchWhenAbsent.delete(slot);
    if (req === null) this.always.delete(slot);
    else if (req !== 'never') {
      req.forEach((clause, c) => {
        for (const atom of clause) this.post(atom, slot * 4 + c, false);
      });
    }
    this.entries[slot] = undefined;
    this.byKey.delete(key);
    this.freeSlots.push(slot);
    return true;
  }

  /** Keys of the rules that may match `event` (a superset of the rules that do). */
  candidates(event: object): K[] {
    this.collect(event);
    const out: K[] = [];
    for (const s of this.always) out.push((this.entries[s] as Entry<K>).key);
    for (const s of this.matchWhenAbsent) if (this.stamp[s] !== this.epoch) out.push((this.entries[s] as Entry<K>).key);
    for (const s of this.hits) out.push((this.entries[s] as Entry<K>).key);
    return out;
  }

  /** Number of candidate rules for `event` (no allocation; for statistics). */
  candidateCount(event: object): number {
    this.collect(event);
    let absent = 0;
    for (const s of this.matchWhenAbsent) if (this.stamp[s] !== this.epoch) absent++;
    return this.always.size + absent + this.hits.length;
  }

  /** Keys whose rule matches `event`. */
  match(event: object): K[] {
    this.collect(event);
    const out: K[] = [];
    for (const s of this.always) {
      const e = this.entries[s] as Entry<K>;
      if (evaluate(e, event)) out.push(e.key);
    }
    for (const s of this.matchWhenAbsent) if (this.stamp[s] !== this.epoch) out.push((this.entries[s] as Entry<K>).key);
    const hits = this.hits;
    for (let i = 0; i < hits.length; i++) {
      const e = this.entries[hits[i]] as Entry<K>;
      if (e.decided || evaluate(e, event)) out.push(e.key);
    }
    return out;
  }

  /** Build every scanner that is out of date now rather than on the next event that needs it. */
  prepare(): void {
    for (const f of this.fields.values()) if (f.subs.size) f.subs.compiled(this.anySubs, this.anyVersion);
    if (this.anySubs.size) this.anySubs.compiled(null, this.anyVersion);
  }

  stats(): RuleIndexStats {
    let never = 0;
    let exactValues = 0;
    let substringPatterns = this.anySubs.size;
    for (const e of this.entries) if (e && e.requirement === 'never') never++;
    for (const f of this.fields.values()) {
      exactValues += f.exact.size;
      substringPatterns += f.subs.size;
    }
    return { rules: this.size, always: this.always.size, never, fields: this.fields.size, exactValues, substringPatterns };
  }

  private ensureCapacity(n: number): void {
    if (n <= this.stamp.length) return;
    const cap = Math.max(n, this.stamp.length * 2);
    const grow = <T extends Float64Array | Uint8Array>(a: T, make: (len: number) => T): T => {
      const b = make(cap);
      b.set(a);
      return b;
    };
    this.stamp = grow(this.stamp, (l) => new Float64Array(l));
    this.mask = grow(this.mask, (l) => new Uint8Array(l));
    this.full = grow(this.full, (l) => new Uint8Array(l));
  }

  private post(atom: Atom, posting: number, add: boolean): void {
    this.version++;
    if (atom.kind === 'sub' && atom.field === null) {
      if (add) this.anySubs.add(atom.value, posting);
      else this.anySubs.remove(atom.value, posting);
      this.anyVersion++;
      return;
    }
    const name = canonicalField(atom.field as string);
    let fp = this.fields.get(name);
    if (!fp) {
      if (!add) return;
      fp = new FieldPostings();
      this.fields.set(name, fp);
      this.forgetRoutes();
    }
    if (atom.kind === 'present') {
      if (add) fp.present.push(posting);
      else fp.removePresent(posting);
    } else if (atom.kind === 'exact') {
      if (add) fp.addExact(atom.value, posting);
      else fp.removeExact(atom.value, posting);
    } else if (add) fp.subs.add(atom.value, posting, atom.at);
    else fp.subs.remove(atom.value, posting, atom.at);
    if (!add && fp.empty) {
      this.fields.delete(name);
      this.forgetRoutes();
    }
  }

  /** Drop every route (and its value cache): they are made again as keys are met. */
  private forgetRoutes(): void {
    this.routes.clear();
    this.cacheBudget = new EntryBudget(CACHED_VALUES);
  }

  private collect(event: object): void {
    this.hits.length = 0;
    this.epoch++;
    // The walk enumerated the event's keys: the matcher's field accessors need not do it again.
    if (!this.routes.walk(event, this.onValue)) rememberNoSpacedKeys(event);
  }

  private mark(posting: number): void {
    const slot = posting >> 2;
    const bit = 1 << (posting & 3);
    if (this.stamp[slot] !== this.epoch) {
      this.stamp[slot] = this.epoch;
      this.mask[slot] = bit;
    } else {
      if ((this.mask[slot] & bit) !== 0) return;
      this.mask[slot] |= bit;
    }
    if (this.mask[slot] === this.full[slot]) this.hits.push(slot);
  }

  private markAll(list: Postings): void {
    for (let i = 0; i < list.length; i++) this.mark(list[i]);
  }

  /** Postings found for a value: marked, or, while an outcome is being recorded, collected. */
  private emit(list: Postings): void {
    if (this.recording) for (let i = 0; i < list.length; i++) this.found.push(list[i]);
    else this.markAll(list);
  }

  private readonly onPattern = (p: number): void => {
    this.emit(this.payload[p]);
  };

  /** Scan the text of value `v` (a number's text only when some pattern could occur in it). */
  private scan(set: PatternSet, text: string, v: unknown): void {
    const scanner = this.scannerOf(set);
    if (!scanner || (typeof v === 'number' && !set.numeric)) return;
    this.payload = set.payload;
    scanner.scan(text, this.recording ? --this.privateStamp : this.epoch, this.onPattern);
  }

  /** The exact lookup and the substring scan of a primitive value `v` of a field with postings `fp`
   * (undefined: keyword patterns only). */
  private lookUp(fp: FieldPostings | undefined, v: CachedValue): void {
    if (typeof v === 'number') {
      this.lookUpNumber(fp, v);
      return;
    }
    const s = typeof v === 'string' ? v : asString(v);
    if (s === undefined) return;
    if (fp === undefined) {
      this.scan(this.anySubs, s, v);
      return;
    }
    if (fp.exact.size && fp.mayHaveExact(s)) {
      const list = fp.exact.get(foldCase(s));
      if (list !== undefined) this.emit(list);
    }
    if (fp.subs.size) this.scan(fp.subs, s, v);
    else if (this.anySubs.size) this.scan(this.anySubs, s, v);
  }

  /** lookUp for a number: its exact value found by the number itself, and its text built only when some
   * substring pattern of the field could occur in the text of a number. */
  private lookUpNumber(fp: FieldPostings | undefined, v: number): void {
    if (fp !== undefined) {
      const list = fp.exactOfNumber(v);
      if (list !== undefined) this.emit(list);
    }
    const set = fp !== undefined && fp.subs.size ? fp.subs : this.anySubs;
    if (set.size !== 0 && this.scannerOf(set) !== null && set.numeric) this.scan(set, asString(v) as string, v);
  }

  /** The set's scanner, rebuilt if out of date (a field's set includes the keyword patterns). */
  private scannerOf(set: PatternSet): GramScanner | null {
    return set.compiled(set === this.anySubs ? null : this.anySubs, this.anyVersion);
  }

  /** Every posting `lookUp` finds for `v`, recorded for the field's value cache. */
  private outcome(fp: FieldPostings | undefined, v: CachedValue): Int32Array {
    this.found.length = 0;
    this.recording = true;
    try {
      this.lookUp(fp, v);
    } finally {
      this.recording = false;
    }
    return this.found.length ? Int32Array.from(this.found) : NOTHING;
  }

  private readonly onValue = (route: Route, value: unknown): void => {
    const fp = route.postings;
    if (fp !== undefined && fp.present.length !== 0) this.markAll(fp.present);
    if (value === null || typeof value === 'object' || (fp === undefined && this.anySubs.size === 0)) return;
    // A primitive (the walk never visits undefined or functions; a symbol has no text and finds nothing).
    const v = value as CachedValue;
    const cache = route.cache;
    if (cache !== undefined && cache.wants(v, this.version)) {
      let known = cache.get(v);
      if (known === undefined) {
        known = this.outcome(fp, v);
        cache.set(v, known);
      }
      for (let i = 0; i < known.length; i++) this.mark(known[i]);
    } else this.lookUp(fp, v);
  };
}

// Per-field memory of what the candidate index found for a value: value → the postings its exact lookup and
// its substring scan produced, complete. Realistic events repeat the values of some fields (images, users,
// channels, event ids) and almost never repeat others (GUIDs, timestamps, process ids), so each field keeps
// its own cache and its own hit rate: caching turns itself off for a field (sampling one value in 64, and
// dropping its entries) while fewer than a quarter of its lookups hit.
// Promises: bounded (CACHE_ENTRIES values per field, and all the caches of an index together at most the
// entries of their shared budget; strings of at most CACHE_KEY_MAX characters, no bigints; a cache's table
// is allocated on its first entry and grows with its entries); entries belong to one version of the
// index's postings (`owner`) and are dropped as soon as it changes. Values are compared with ===: 1 and "1" stay apart, -0 is 0 (whose text is the same), NaN is
// never found.
import type { EntryBudget } from './entry-budget.js';

const CACHE_ENTRIES = 1024;
const CACHE_KEY_MAX = 256;
const WINDOW = 1024;
/** Open-addressed table: up to twice as many slots as entries, a value is found within PROBES slots of its
 * home. Tables start with MIN_SLOTS slots and double while they are more than half full. */
const SLOTS = CACHE_ENTRIES * 2;
const MIN_SLOTS = 64;
const PROBES = 8;

export type CachedValue = string | number | boolean | bigint;

/** Home slot of a value. Strings are hashed on their length and at most 12 characters (the last 8 and
 * 4 spread over the rest):
 * the values of an event are new strings whose full hash V8 would compute on every Map lookup, while
 * values of one field that differ only between the sampled characters merely share a neighbourhood
 * (lookups compare with ===, so the hash decides speed only, never the result). */
function home(v: string | number | boolean): number {
  let h: number;
  if (typeof v === 'string') {
    const n = v.length;
    h = Math.imul(n, 0x9e3779b1);
    if (n <= 12) for (let i = 0; i < n; i++) h = Math.imul(h ^ v.charCodeAt(i), 0x01000193);
    else {
      // Values of one field mostly differ towards their end (file names, numbers, suffixes): the last 8
      // characters, and 4 spread over the rest.
      const step = (n - 8) >> 2;
      for (let i = 0; i < 4; i++) h = Math.imul(h ^ v.charCodeAt(i * step), 0x01000193);
      for (let i = n - 8; i < n; i++) h = Math.imul(h ^ v.charCodeAt(i), 0x01000193);
    }
  } else if (typeof v === 'number') h = Math.imul((v | 0) ^ ((v / 4294967296) | 0), 0x85ebca6b) ^ 0x5bd1e995;
  else h = v ? 0x27d4eb2f : 0x165667b1;
  h ^= h >>> 15;
  return Math.imul(h, 0x2c1b3c6d) >>> 0; // the table takes its top bits
}

export class ValueCache {
  private keys: Array<string | number | boolean | undefined> = [];
  private outcomes: Array<Int32Array | undefined> = [];
  /** 32 - log2(slots): a value's home slot is the top bits of its hash. */
  private shift = 32;
  private entries = 0;
  private owner = -1;
  private caching = true;
  private calls = 0;
  private lookups = 0;
  private hits = 0;
  /** The value looked up or stored last and its outcome: values of one field often repeat from one event
   * to the next (a channel, a level, an image), and one comparison answers them without hashing. */
  private lastKey: CachedValue | undefined = undefined;
  private lastOutcome: Int32Array | undefined = undefined;

  constructor(private readonly budget: EntryBudget) {}

  /** Whether `value` should be looked up (and then stored) for version `owner` of the postings. */
  wants(value: CachedValue, owner: number): boolean {
    if (owner !== this.owner) {
      this.clear();
      this.owner = owner;
    }
    // Texts too long to be cached are never looked up (reading them would be wasted work).
    if (typeof value === 'string' ? value.length > CACHE_KEY_MAX : typeof value === 'bigint') return false;
    return this.caching || (++this.calls & 63) === 0;
  }

  get(value: CachedValue): Int32Array | undefined {
    this.lookups++;
    if (value === this.lastKey) {
      this.hits++;
      this.adapt();
      return this.lastOutcome;
    }
    const keys = this.keys;
    let known: Int32Array | undefined;
    if (keys.length !== 0) {
      const mask = keys.length - 1;
      let s = home(value as string | number | boolean) >>> this.shift;
      for (let i = 0; i < PROBES; i++, s = (s + 1) & mask) {
        const k = keys[s];
        if (k === value) {
          known = this.outcomes[s];
          this.hits++;
          this.lastKey = value;
          this.lastOutcome = known;
          break;
        }
        if (k === undefined) break;
      }
    }
    this.adapt();
    return known;
  }

  set(value: CachedValue, found: Int32Array): void {
    if (this.entries >= CACHE_ENTRIES) this.clear();
    if (!this.budget.take(this.owner)) return;
    if (this.entries * 2 >= this.keys.length && this.keys.length < SLOTS) this.grow();
    this.lastKey = value;
    this.lastOutcome = found;
    if (this.place(value as string | number | boolean, found)) this.entries++;
    else this.budget.giveBack(1, this.owner);
  }

  /** Put an entry in the table; true if it took a free slot (false: it replaced the one at its home). */
  private place(value: string | number | boolean, found: Int32Array): boolean {
    const keys = this.keys;
    const mask = keys.length - 1;
    const h = home(value) >>> this.shift;
    let s = h;
    let free = false;
    for (let i = 0; i < PROBES; i++, s = (s + 1) & mask) {
      if (keys[s] === undefined) {
        free = true;
        break;
      }
    }
    // A full neighbourhood: the value replaces the one at its home slot.
    if (!free) s = h;
    keys[s] = value;
    this.outcomes[s] = found;
    return free;
  }

  /** Double the table (or allocate it) and put the entries back. */
  private grow(): void {
    const oldKeys = this.keys;
    const oldOutcomes = this.outcomes;
    const slots = oldKeys.length === 0 ? MIN_SLOTS : oldKeys.length * 2;
    this.keys = new Array<string | number | boolean | undefined>(slots).fill(undefined);
    this.outcomes = new Array<Int32Array | undefined>(slots).fill(undefined);
    this.shift = 32 - Math.log2(slots);
    let kept = 0;
    for (let s = 0; s < oldKeys.length; s++) {
      const k = oldKeys[s];
      if (k !== undefined && this.place(k, oldOutcomes[s] as Int32Array)) kept++;
    }
    this.budget.giveBack(this.entries - kept, this.owner);
    this.entries = kept;
  }

  private clear(): void {
    this.lastKey = undefined;
    this.lastOutcome = undefined;
    if (this.entries === 0) return;
    this.keys.fill(undefined);
    this.outcomes.fill(undefined);
    this.budget.giveBack(this.entries, this.owner);
    this.entries = 0;
  }

  private adapt(): void {
    if (this.lookups < WINDOW) return;
    this.caching = this.hits * 4 >= this.lookups;
    if (!this.caching) this.clear();
    this.lookups = 0;
    this.hits = 0;
  }
}

// Per-field memory of what the candidate index found for a value: value → the postings its exact lookup and
// its substring scan produced, complete. Realistic events repeat the values of some fields (images, users,
// channels, event ids) and almost never repeat others (GUIDs, timestamps, process ids), so each field keeps
// its own cache and its own hit rate: caching turns itself off for a field (sampling one value in 64, and
// dropping its entries) while fewer than a quarter of its lookups hit.
// Promises: bounded (CACHE_ENTRIES values per field; strings of at most CACHE_KEY_MAX characters, no
// bigints); entries belong to one version of the index's postings (`owner`) and are dropped as soon as it
// changes. Values are compared with ===: 1 and "1" stay apart, -0 is 0 (whose text is the same), NaN is
// never found.
const CACHE_ENTRIES = 1024;
const CACHE_KEY_MAX = 256;
const WINDOW = 1024;
/** Open-addressed table: twice as many slots as entries, a value is found within PROBES slots of its home. */
const SLOTS = CACHE_ENTRIES * 2;
const PROBES = 8;

export type CachedValue = string | number | boolean | bigint;

/** Home slot of a value. Strings are hashed on their length and at most 24 characters (the last 12 and
 * 12 spread over the rest):
 * the values of an event are new strings whose full hash V8 would compute on every Map lookup, while
 * values of one field that differ only between the sampled characters merely share a neighbourhood
 * (lookups compare with ===, so the hash decides speed only, never the result). */
function home(v: string | number | boolean): number {
  let h: number;
  if (typeof v === 'string') {
    const n = v.length;
    h = Math.imul(n, 0x9e3779b1);
    if (n <= 24) for (let i = 0; i < n; i++) h = Math.imul(h ^ v.charCodeAt(i), 0x01000193);
    else {
      // Values of one field mostly differ towards their end (file names, numbers, suffixes).
      const head = n - 12;
      for (let i = 0; i < 12; i++) h = Math.imul(h ^ v.charCodeAt(((i * head) / 12) | 0), 0x01000193);
      for (let i = head; i < n; i++) h = Math.imul(h ^ v.charCodeAt(i), 0x01000193);
    }
  } else if (typeof v === 'number') h = Math.imul((v | 0) ^ ((v / 4294967296) | 0), 0x85ebca6b) ^ 0x5bd1e995;
  else h = v ? 0x27d4eb2f : 0x165667b1;
  h ^= h >>> 15;
  return Math.imul(h, 0x2c1b3c6d) >>> 21; // 11 bits: SLOTS = 2048
}

export class ValueCache {
  private readonly keys = new Array<string | number | boolean | undefined>(SLOTS).fill(undefined);
  private readonly outcomes = new Array<Int32Array | undefined>(SLOTS).fill(undefined);
  private entries = 0;
  private owner = -1;
  private caching = true;
  private calls = 0;
  private lookups = 0;
  private hits = 0;

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
    const keys = this.keys;
    let s = home(value as string | number | boolean);
    let known: Int32Array | undefined;
    for (let i = 0; i < PROBES; i++, s = (s + 1) & (SLOTS - 1)) {
      const k = keys[s];
      if (k === value) {
        known = this.outcomes[s];
        this.hits++;
        break;
      }
      if (k === undefined) break;
    }
    this.adapt();
    return known;
  }

  set(value: CachedValue, found: Int32Array): void {
    if (this.entries >= CACHE_ENTRIES) this.clear();
    const h = home(value as string | number | boolean);
    let s = h;
    for (let i = 0; i < PROBES; i++, s = (s + 1) & (SLOTS - 1)) {
      if (this.keys[s] === undefined) {
        this.entries++;
        break;
      }
    }
    // A full neighbourhood: the value replaces the one at its home slot.
    if (this.keys[s] !== undefined) s = h;
    this.keys[s] = value as string | number | boolean;
    this.outcomes[s] = found;
  }

  private clear(): void {
    if (this.entries === 0) return;
    this.keys.fill(undefined);
    this.outcomes.fill(undefined);
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

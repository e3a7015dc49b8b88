// Per-field memory of what the candidate index found for a value: value → the postings its exact lookup and
// its substring scan produced, complete. Realistic events repeat the values of some fields (images, users,
// channels, event ids) and almost never repeat others (GUIDs, timestamps, process ids), so each field keeps
// its own cache and its own hit rate: caching turns itself off for a field (sampling one value in 64, and
// dropping its entries) while fewer than a quarter of its lookups hit.
// Promises: bounded (CACHE_ENTRIES values per field; strings of at most CACHE_KEY_MAX characters); entries
// belong to one version of the index's postings (`owner`) and are dropped as soon as it changes. Keys are
// compared as Map keys (SameValueZero): 1 and "1" stay apart, -0 is 0 (whose text is the same).
const CACHE_ENTRIES = 1024;
const CACHE_KEY_MAX = 256;
const WINDOW = 1024;

export type CachedValue = string | number | boolean | bigint;

export class ValueCache {
  private readonly entries = new Map<CachedValue, Int32Array>();
  private owner = -1;
  private caching = true;
  private calls = 0;
  private lookups = 0;
  private hits = 0;

  /** Whether `value` should be looked up (and then stored) for version `owner` of the postings. */
  wants(value: CachedValue, owner: number): boolean {
    if (owner !== this.owner) {
      this.entries.clear();
      this.owner = owner;
    }
    // Texts too long to be cached are never looked up (hashing them would be wasted work).
    if (typeof value === 'string' && value.length > CACHE_KEY_MAX) return false;
    return this.caching || (++this.calls & 63) === 0;
  }

  get(value: CachedValue): Int32Array | undefined {
    this.lookups++;
    const known = this.entries.get(value);
    if (known !== undefined) this.hits++;
    this.adapt();
    return known;
  }

  set(value: CachedValue, found: Int32Array): void {
    if (this.entries.size >= CACHE_ENTRIES) this.entries.clear();
    this.entries.set(value, found);
  }

  private adapt(): void {
    if (this.lookups < WINDOW) return;
    this.caching = this.hits * 4 >= this.lookups;
    if (!this.caching) this.entries.clear();
    this.lookups = 0;
    this.hits = 0;
  }
}

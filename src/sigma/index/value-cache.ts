// Per-field memory of complete scan results: value text → the patterns of one compiled scanner that occur
// in it. Realistic events repeat the values of some fields (images, users, channels) and almost never
// repeat others (GUIDs, timestamps), so each field keeps its own cache and its own hit rate: caching turns
// itself off for a field (sampling one value in 64, and dropping its entries) while fewer than a quarter
// of its lookups hit. Promises: bounded (CACHE_ENTRIES values of at most CACHE_KEY_MAX characters per
// field); entries belong to one scanner (`owner`) and are dropped when the field's scanner is replaced.
const CACHE_ENTRIES = 1024;
const CACHE_KEY_MAX = 256;
const WINDOW = 1024;

export class ValueCache {
  private readonly entries = new Map<string, Int32Array>();
  private owner: object | null = null;
  private caching = true;
  private calls = 0;
  private lookups = 0;
  private hits = 0;

  /** Whether `text` should be looked up (and then stored) for a scanner `owner`. */
  wants(text: string, owner: object): boolean {
    if (owner !== this.owner) {
      this.entries.clear();
      this.owner = owner;
    }
    // Texts too long to be cached are never looked up (hashing them would be wasted work).
    return text.length <= CACHE_KEY_MAX && (this.caching || (++this.calls & 63) === 0);
  }

  get(text: string): Int32Array | undefined {
    this.lookups++;
    const known = this.entries.get(text);
    if (known !== undefined) this.hits++;
    this.adapt();
    return known;
  }

  set(text: string, found: Int32Array): void {
    if (this.entries.size >= CACHE_ENTRIES) this.entries.clear();
    this.entries.set(text, found);
  }

  private adapt(): void {
    if (this.lookups < WINDOW) return;
    this.caching = this.hits * 4 >= this.lookups;
    if (!this.caching) this.entries.clear();
    this.lookups = 0;
    this.hits = 0;
  }
}

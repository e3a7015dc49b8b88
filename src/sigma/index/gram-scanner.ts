// A multi-pattern substring scanner tuned for mostly non-matching texts: each ASCII pattern is anchored
// on one of its q-grams (q = 8, 4 or the whole pattern when shorter; the gram shared by the fewest other
// patterns). The scan rolls the last 8 (case-folded) characters of the text, prefiltered by an
// L1-resident table of anchor-final character pairs, through a hashed bitmap, and verifies the anchored
// patterns only on a bitmap hit. Patterns with non-ASCII characters go to an Aho-Corasick automaton that
// only runs on texts that contain non-ASCII characters (an ASCII text can never contain them, its
// folded form being ASCII too). Before all that, one cheap pass over the text looks for the patterns'
// key characters (rare in machine-made values), so GUIDs, times and hashes are mostly not scanned at all.
// Promises: `scan(text, stamp, report)` calls `report(p)` for every pattern p (given folded, case-fold.ts)
// that occurs in `foldCase(text)` where its placement says (anywhere, at the start or at the end; patterns
// with non-ASCII characters: anywhere), and for no other ASCII pattern, exactly once per stamp (any
// number but -1); an ASCII text is folded on the fly without allocating, any other text is folded with
// foldCase first, so the folding equals the matcher's.
import { foldCase } from '../case-fold.js';
import { AhoCorasick } from './aho-corasick.js';

export function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 128) return false;
  return true;
}

/** Prefilter bit of each anchor length (2, 3, 4, 8). */
const PAIR_BIT: Record<number, number> = { 1: 16, 2: 1, 3: 2, 4: 4, 8: 8 };

const PRE_LOG = 17;
const MAX_ANCHOR_CHOICES = 12;

/** ASCII lowercase table. */
const FOLD = Uint8Array.from({ length: 128 }, (_, c) => (c >= 65 && c <= 90 ? c + 32 : c));

/** How common each (lowercase ASCII) character is in machine-made values (GUIDs, hashes, times, numbers,
 * paths): each pattern's key character is its least common one, so that such values seldom hold any key. */
const COMMONNESS = Uint8Array.from({ length: 128 }, (_, c) => {
  if (c >= 48 && c <= 57) return 4; // digits
  if (c >= 97 && c <= 102) return 3; // hex letters
  if ('-:.{}\\/_ ,='.includes(String.fromCharCode(c))) return 2;
  return c >= 103 && c <= 122 ? 0 : 1; // other letters, other characters
});

function commonness(c: number): number {
  return COMMONNESS[c];
}

/** The raw ASCII codes that fold to the (lowercase) code c. */
function caseVariants(c: number): number[] {
  return c >= 97 && c <= 122 ? [c, c - 32] : [c];
}

/** Anchor length of a pattern: 8 for long patterns, 4 for medium ones, the whole pattern when shorter. */
function anchorLength(n: number): number {
  return n >= 8 ? 8 : n >= 4 ? 4 : n;
}

/** Append to `out` the hashes of the anchor-length grams of ASCII pattern p: all of them, or for long
 * patterns a spread sample of MAX_ANCHOR_CHOICES (enough to find a rare gram, and keeps builds fast). */
function gramHashes(p: string, out: number[]): void {
  const q = anchorLength(p.length);
  const n = p.length - q + 1;
  const step = n > MAX_ANCHOR_CHOICES ? n / MAX_ANCHOR_CHOICES : 1;
  let lo = 0;
  let hi = 0;
  let next = 0; // the next gram to take is the one starting at floor(next * step)
  for (let k = 0; k < p.length && next < MAX_ANCHOR_CHOICES; k++) {
    hi = ((hi << 7) | (lo >>> 21)) & 0xfffffff;
    lo = ((lo << 7) | p.charCodeAt(k)) & 0xfffffff;
    if (k - q + 1 === Math.floor(next * step)) {
      out.push(gramHash(lo, hi, q));
      next++;
    }
  }
}

/** Hash of the q-gram ending at text[end] (q ≤ 8), from the rolling windows lo (last 4) and hi (4 before). */
function gramHash(lo: number, hi: number, q: number): number {
  if (q === 8) return Math.imul(Math.imul(hi, 0x85ebca6b) ^ lo, 0x9e3779b1);
  const mask = q === 4 ? 0xfffffff : (1 << (7 * q)) - 1;
  return Math.imul(((lo & mask) << 3) | q, 0x9e3779b1);
}

/** Home bucket of a bitmap slot in the anchor table. */
function anchorBucket(slot: number, mask: number): number {
  return (Math.imul(slot, 0x9e3779b1) >>> 8) & mask;
}

function windows(s: string, end: number): [number, number] {
  let lo = 0;
  let hi = 0;
  for (let i = Math.max(0, end - 7); i <= end; i++) {
    hi = ((hi << 7) | (lo >>> 21)) & 0xfffffff;
    lo = ((lo << 7) | s.charCodeAt(i)) & 0xfffffff;
  }
  return [lo, hi];
}

export class GramScanner {
  readonly patternCount: number;
  private readonly patterns: readonly string[];
  private readonly bits: Int32Array;
  private readonly shift: number;
  /** bitmap slot → (pattern, anchor end offset in the pattern) pairs, verified on every hit: an
   * open-addressed table of (slot, first pair, pair count) triples over the flat `anchorPairs`. */
  private readonly anchorTable: Int32Array;
  private readonly anchorMask: number;
  private readonly anchorPairs: Int32Array;
  /** Prefilter of the short anchors (1–3 characters), L1-resident: flags for each (previous char, char)
   * pair (raw, unfolded codes) that ends some anchor of that length (see PAIR_BIT). */
  private readonly pairs = new Uint8Array(1 << 14);
  /** Prefilter of the anchors of length 4 and 8: a bitmap over the hash of their last four characters. */
  private readonly pre = new Int32Array((1 << PRE_LOG) >>> 5);
  /** Patterns of one character by code, of two characters by (first << 7 | second); lowercase codes. */
  private readonly singles: Array<Int32Array | undefined> = new Array<Int32Array | undefined>(128).fill(undefined);
  private readonly doubles = new Map<number, Int32Array>();
  /** Keys: every ASCII pattern holds one of its characters or, when all of them are common in
   * machine-made values, a pair of adjacent characters (lowercase codes, pairs by first << 7 | second), so
   * an ASCII text in which no key occurs (folded) holds no pattern and is not scanned. */
  private readonly keys = new Uint8Array(128);
  private readonly keyPairs = new Uint8Array(1 << 14);
  /** Bit 0: some anchor of length 4; bit 1: some anchor of length 8. */
  private long = 0;
  private readonly wide: AhoCorasick | null;
  private readonly wideIds: number[];
  private readonly seen: Float64Array;

  /** Where each pattern must occur (witness.ts placements: anywhere, start, end). Patterns with non-ASCII
   * characters are reported wherever they occur (more reports only weaken the index). */
  private readonly placedAt: Uint8Array;

  constructor(patterns: readonly string[], placement?: readonly number[]) {
    this.patterns = patterns;
    this.placedAt = placement ? Uint8Array.from(placement) : new Uint8Array(patterns.length);
    this.patternCount = patterns.length;
    this.seen = new Float64Array(patterns.length).fill(-1);
    const ascii: number[] = [];
    const wide: number[] = [];
    patterns.forEach((p, i) => {
      if (p.length === 0) throw new Error('GramScanner: empty pattern');
      (isAscii(p) ? ascii : wide).push(i);
    });
    this.wideIds = wide;
    this.wide = wide.length ? new AhoCorasick(wide.map((i) => patterns[i])) : null;
    // How many patterns contain each gram (anchors prefer grams shared by few patterns). Grams are counted
    // by hash bucket, which only affects the choice of anchor, never correctness.
    const hashes: number[] = [];
    const hashStart = new Int32Array(ascii.length + 1);
    ascii.forEach((i, a) => {
      gramHashes(patterns[i], hashes);
      hashStart[a + 1] = hashes.length;
    });
    let countLog = 8;
    while (1 << countLog < hashes.length * 2) countLog++;
    const countShift = 32 - countLog;
    const counts = new Int32Array(1 << countLog);
    for (let k = 0; k < hashes.length; k++) counts[hashes[k] >>> countShift]++;
    const anchors: Array<[number, number, number]> = []; // pattern, hash, end offset
    ascii.forEach((i, a) => {
      const p = patterns[i];
      this.addKey(p);
      const q = anchorLength(p.length);
      let best = hashStart[a];
      for (let k = best + 1; k < hashStart[a + 1]; k++) if (counts[hashes[k] >>> countShift] < counts[hashes[best] >>> countShift]) best = k;
      best -= hashStart[a];
      const grams = p.length - q + 1;
      const end = (grams > MAX_ANCHOR_CHOICES ? Math.floor(best * (grams / MAX_ANCHOR_CHOICES)) : best) + q - 1;
      const [lo, hi] = windows(p, end);
      if (q <= 2) {
        // Whole-pattern anchors of one or two characters: direct tables, no hashing.
        const key = q === 1 ? p.charCodeAt(0) : (p.charCodeAt(0) << 7) | p.charCodeAt(1);
        if (q === 1) this.singles[key] = Int32Array.from([...(this.singles[key] ?? []), i]);
        else this.doubles.set(key, Int32Array.from([...(this.doubles.get(key) ?? []), i]));
      } else anchors.push([i, gramHash(lo, hi, q), end]);
      if (q >= 4) {
        const h = Math.imul(lo, 0x9e3779b1) >>> (32 - PRE_LOG);
        this.pre[h >>> 5] |= 1 << (h & 31);
        this.long |= q === 8 ? 2 : 1;
      } else {
        const last = p.charCodeAt(end);
        for (const b of caseVariants(last)) {
          if (q === 1) for (let a = 0; a < 128; a++) this.pairs[(a << 7) | b] |= PAIR_BIT[1];
          else for (const a of caseVariants(p.charCodeAt(end - 1))) this.pairs[(a << 7) | b] |= PAIR_BIT[q];
        }
      }
    });
    let log = 12;
    while (1 << log < anchors.length * 32 && log < 18) log++;
    this.shift = 32 - log;
    this.bits = new Int32Array((1 << log) >>> 5);
    const groups = new Map<number, number[]>();
    for (const [i, h, end] of anchors) {
      const slot = h >>> this.shift;
      this.bits[slot >>> 5] |= 1 << (slot & 31);
      const list = groups.get(slot);
      if (list) list.push(i, end);
      else groups.set(slot, [i, end]);
    }
    let size = 8;
    while (size < groups.size * 2) size *= 2;
    this.anchorMask = size - 1;
    this.anchorTable = new Int32Array(size * 3).fill(-1);
    this.anchorPairs = new Int32Array(anchors.length * 2);
    let at = 0;
    for (const [slot, list] of groups) {
      let t = anchorBucket(slot, this.anchorMask);
      while (this.anchorTable[t * 3] !== -1) t = (t + 1) & this.anchorMask;
      this.anchorTable[t * 3] = slot;
      this.anchorTable[t * 3 + 1] = at;
      this.anchorTable[t * 3 + 2] = list.length >> 1;
      this.anchorPairs.set(list, at);
      at += list.length;
    }
  }

  /** Report every pattern occurring in foldCase(text), each once per `stamp` (new for every event). */
  scan(text: string, stamp: number, report: (pattern: number) => void): void {
    if (!this.mayHold(text)) return;
    if (!this.scanAscii(text, stamp, report)) {
      const lower = foldCase(text);
      this.scanAscii(lower, stamp, report, true);
      if (this.wide) this.wide.scan(lower, stamp, (k) => this.hit(this.wideIds[k], stamp, report));
    }
  }

  /** Key a pattern (see `keys`) on its least common character, or on its least common pair. */
  private addKey(p: string): void {
    let key = p.charCodeAt(0);
    for (let k = 1; k < p.length; k++) if (commonness(p.charCodeAt(k)) < commonness(key)) key = p.charCodeAt(k);
    if (commonness(key) < 2 || p.length === 1) {
      this.keys[key] = 1;
      return;
    }
    let at = 1;
    const cost = (k: number): number => commonness(p.charCodeAt(k - 1)) + commonness(p.charCodeAt(k));
    for (let k = 2; k < p.length; k++) if (cost(k) < cost(at)) at = k;
    this.keyPairs[(p.charCodeAt(at - 1) << 7) | p.charCodeAt(at)] = 1;
  }

  /** False when `text` is ASCII and holds no key: then it holds no pattern (ASCII patterns hold their key,
   * and the lowercase of an ASCII text is ASCII, so it cannot hold the others). */
  private mayHold(text: string): boolean {
    const keys = this.keys;
    const keyPairs = this.keyPairs;
    let prev = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 128) return true;
      const f = FOLD[c];
      if (keys[f] !== 0 || keyPairs[(prev << 7) | f] !== 0) return true;
      prev = f;
    }
    return false;
  }

  private hit(p: number, stamp: number, report: (pattern: number) => void): void {
    if (this.seen[p] === stamp) return;
    this.seen[p] = stamp;
    report(p);
  }

  /** Scan an ASCII text (or, with `lowered`, an already lowercased text); false if non-ASCII was met. */
  private scanAscii(text: string, stamp: number, report: (pattern: number) => void, lowered = false): boolean {
    const n = text.length;
    const pairs = this.pairs;
    const pre = this.pre;
    const longFlags = this.long << 2;
    let prev = 0;
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < n; i++) {
      let c = text.charCodeAt(i);
      if (c >= 128) {
        if (!lowered) return false;
        c = 0x7f;
      }
      const short = pairs[(prev << 7) | c];
      prev = c;
      hi = ((hi << 7) | (lo >>> 21)) & 0xfffffff;
      lo = ((lo << 7) | FOLD[c]) & 0xfffffff;
      let flags = short;
      if (longFlags !== 0 && i >= 3) {
        const h = Math.imul(lo, 0x9e3779b1) >>> (32 - PRE_LOG);
        if ((pre[h >>> 5] & (1 << (h & 31))) !== 0) flags |= longFlags;
      }
      if (flags !== 0) this.probe(text, i, flags, lo, hi, stamp, report);
    }
    return true;
  }

  /** Some anchor may end at text[i] (lo/hi: the last 4 and the 4 previous folded characters). */
  private probe(text: string, i: number, flags: number, lo: number, hi: number, stamp: number, report: (pattern: number) => void): void {
    const bits = this.bits;
    const shift = this.shift;
    if ((flags & 8) !== 0 && i >= 7) {
      const s = Math.imul(Math.imul(hi, 0x85ebca6b) ^ lo, 0x9e3779b1) >>> shift;
      if ((bits[s >>> 5] & (1 << (s & 31))) !== 0) this.verify(text, i, s, stamp, report);
    }
    if ((flags & 4) !== 0 && i >= 3) {
      const s = Math.imul((lo << 3) | 4, 0x9e3779b1) >>> shift;
      if ((bits[s >>> 5] & (1 << (s & 31))) !== 0) this.verify(text, i, s, stamp, report);
    }
    if ((flags & 2) !== 0 && i >= 2) {
      const s = Math.imul(((lo & 0x1fffff) << 3) | 3, 0x9e3779b1) >>> shift;
      if ((bits[s >>> 5] & (1 << (s & 31))) !== 0) this.verify(text, i, s, stamp, report);
    }
    if ((flags & 1) !== 0 && i >= 1) {
      const list = this.doubles.get(lo & 0x3fff);
      if (list !== undefined) this.verifyList(list, text, i - 1, stamp, report);
    }
    if ((flags & 16) !== 0) {
      const list = this.singles[lo & 0x7f];
      if (list !== undefined) this.verifyList(list, text, i, stamp, report);
    }
  }

  /** Whether an occurrence of pattern p at `start` is where the pattern must occur. */
  private placed(p: number, start: number, length: number, textLength: number): boolean {
    const at = this.placedAt[p];
    return at === 0 || (at === 1 ? start === 0 : start + length === textLength);
  }

  /** Patterns (all of the same length) that would start at text[start]. */
  private verifyList(list: Int32Array, text: string, start: number, stamp: number, report: (pattern: number) => void): void {
    for (let k = 0; k < list.length; k++) {
      const p = list[k];
      if (this.seen[p] === stamp) continue;
      const pat = this.patterns[p];
      let ok = this.placed(p, start, pat.length, text.length);
      for (let j = 0; ok && j < pat.length; j++) {
        let c = text.charCodeAt(start + j);
        if (c >= 65 && c <= 90) c += 32;
        if (c !== pat.charCodeAt(j)) ok = false;
      }
      if (ok) this.hit(p, stamp, report);
    }
  }

  /** Verify the anchors of a bitmap slot whose bit is set (so the slot is in the table: the probe ends there). */
  private verify(text: string, end: number, slot: number, stamp: number, report: (pattern: number) => void): void {
    const table = this.anchorTable;
    let t = anchorBucket(slot, this.anchorMask);
    for (let k = table[t * 3]; k !== slot; k = table[t * 3]) {
      if (k === -1) return;
      t = (t + 1) & this.anchorMask;
    }
    const pairs = this.anchorPairs;
    const from = table[t * 3 + 1];
    const to = from + table[t * 3 + 2] * 2;
    for (let k = from; k < to; k += 2) {
      const p = pairs[k];
      if (this.seen[p] === stamp) continue;
      const pat = this.patterns[p];
      const start = end - pairs[k + 1];
      if (start < 0 || start + pat.length > text.length || !this.placed(p, start, pat.length, text.length)) continue;
      let ok = true;
      for (let j = 0; j < pat.length; j++) {
        let c = text.charCodeAt(start + j);
        if (c >= 65 && c <= 90) c += 32;
        if (c !== pat.charCodeAt(j)) {
          ok = false;
          break;
        }
      }
      if (ok) this.hit(p, stamp, report);
    }
  }
}

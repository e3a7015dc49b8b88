// Per-field posting lists of the candidate index: exact values (a Map), substrings placed anywhere, at the
// start or at the end (a q-gram scanner with an Aho-Corasick fallback for non-ASCII patterns) and
// presence. A posting is an integer `slot * 4 + clause` naming one clause of one rule. Promises: `add`/`remove` are O(postings touched) and never rebuild
// anything; a field's scanner is rebuilt at most once per change, when it is next needed.
import { asString } from '../compile/value-tests.js';
import { GramScanner } from './gram-scanner.js';
import { ANYWHERE } from './witness.js';
import type { Placement } from './witness.js';

export type Postings = number[];

/** Remove `posting` from `list`; false if it is not there. */
function dropPosting(list: Postings, posting: number): boolean {
  const i = list.indexOf(posting);
  if (i < 0) return false;
  list.splice(i, 1);
  return true;
}

function removePosting(map: Map<string, Postings>, key: string, posting: number): boolean {
  const list = map.get(key);
  if (!list || !dropPosting(list, posting)) return false;
  if (list.length === 0) map.delete(key);
  return true;
}

/** The number whose text (asString) a text reads as, Python's spellings of the infinities and NaN
 * included; for every number n, numberOfText(asString(n)) is n (or 0 for -0, whose text is `0`). */
function numberOfText(text: string): number {
  return text === 'inf' ? Infinity : text === '-inf' ? -Infinity : text === 'nan' ? NaN : Number(text);
}

/** The number whose text is `text`, or undefined when no number has that text (`1.0`, `04`, `+4`). The
 * only number that can is numberOfText(text), and it does when its text reads back as `text`. */
function numberSpelled(text: string): number | undefined {
  if (!canOccurInNumber(text)) return undefined;
  const n = numberOfText(text);
  return asString(n) === text ? n : undefined;
}

/** Whether `p` (folded) can occur in foldCase(String(n)) for some number n: digits, `.`, `e`, signs,
 * or a piece of `-infinity` / `nan`. */
export function canOccurInNumber(p: string): boolean {
  return /^[0-9.e+-]+$/.test(p) || '-infinity'.includes(p) || 'nan'.includes(p);
}

/** A pattern's key in a PatternSet: its placement (witness.ts: anywhere, start, end), ':', its text. */
function patternKey(pattern: string, at: Placement): string {
  return `${at}:${pattern}`;
}

/** A substring pattern of a PatternSet: its text (folded), where it must occur, whether it can occur in
 * the text of a number, and its postings. */
interface Pattern {
  text: string;
  at: Placement;
  numeric: boolean;
  postings: Postings;
}

/** Substring patterns with their postings, compiled to an automaton on demand. */
export class PatternSet {
  /** Patterns by key (patternKey). */
  private readonly patterns = new Map<string, Pattern>();
  private automaton: GramScanner | null = null;
  /** Postings of each pattern of the compiled scanner, by pattern number. */
  payload: Postings[] = [];
  private dirty = false;
  private extraVersion = -1;
  /** Whether some pattern of the compiled scanner can occur in the decimal text of a number. */
  numeric = false;

  add(pattern: string, posting: number, at: Placement = ANYWHERE): void {
    const key = patternKey(pattern, at);
    const known = this.patterns.get(key);
    if (known) known.postings.push(posting);
    else this.patterns.set(key, { text: pattern, at, numeric: canOccurInNumber(pattern), postings: [posting] });
    this.dirty = true;
  }

  remove(pattern: string, posting: number, at: Placement = ANYWHERE): void {
    const key = patternKey(pattern, at);
    const known = this.patterns.get(key);
    if (!known || !dropPosting(known.postings, posting)) return;
    if (known.postings.length === 0) this.patterns.delete(key);
    this.dirty = true;
  }

  get size(): number {
    return this.patterns.size;
  }

  /** Compile (if needed) including extra pattern sets (the keyword patterns that apply to every field). */
  compiled(extra: PatternSet | null, extraVersion: number): GramScanner | null {
    if (this.dirty || this.automaton === null || this.extraVersion !== extraVersion) {
      const merged = new Map<string, Pattern>(this.patterns);
      if (extra) {
        for (const [key, p] of extra.patterns) {
          const own = merged.get(key);
          merged.set(key, own ? { ...own, postings: [...own.postings, ...p.postings] } : p);
        }
      }
      const all = [...merged.values()];
      this.payload = all.map((p) => p.postings);
      this.numeric = all.some((p) => p.numeric);
      this.automaton = all.length ? new GramScanner(all.map((p) => p.text), all.map((p) => p.at)) : null;
      this.dirty = false;
      this.extraVersion = extraVersion;
    }
    return this.automaton;
  }

  /** Whether `compiled` would rebuild (exposed for tests of incrementality). */
  get stale(): boolean {
    return this.dirty;
  }
}

export class FieldPostings {
  readonly exact = new Map<string, Postings>();
  /** Number of exact values of each length (index 256: 256 or longer), and an upper bound of the longest. */
  private readonly lengths = new Int32Array(257);
  private longest = -1;
  /** The exact values that are the text of some number (numberSpelled), by that number (Map keys are
   * compared with SameValueZero: NaN finds NaN, -0 finds 0, whose texts are the same), so that a number's
   * exact lookup needs no text. */
  private readonly numbers = new Map<number, string>();

  addExact(value: string, posting: number): void {
    const list = this.exact.get(value);
    if (list) list.push(posting);
    else {
      this.exact.set(value, [posting]);
      this.lengths[Math.min(value.length, 256)]++;
      const n = numberSpelled(value);
      if (n !== undefined) this.numbers.set(n, value);
      if (value.length > this.longest) this.longest = value.length;
    }
  }

  /** The postings of the exact value that is the text of number `n`, if there is one. */
  exactOfNumber(n: number): Postings | undefined {
    const text = this.numbers.get(n);
    return text === undefined ? undefined : this.exact.get(text);
  }

  /** False when no exact value can equal foldCase(s) (folding keeps a string's length), so the caller can
   * skip folding and hashing the value. */
  mayHaveExact(s: string): boolean {
    const n = s.length;
    if (n > this.longest) return false;
    return this.lengths[Math.min(n, 256)] > 0 || n >= 256;
  }
  readonly subs = new PatternSet();
  present: Postings = [];

  removeExact(value: string, posting: number): void {
    if (removePosting(this.exact, value, posting) && !this.exact.has(value)) {
      this.lengths[Math.min(value.length, 256)]--;
      const n = numberSpelled(value);
      if (n !== undefined) this.numbers.delete(n);
    }
  }

  removePresent(posting: number): void {
    dropPosting(this.present, posting);
  }

  get empty(): boolean {
    return this.exact.size === 0 && this.subs.size === 0 && this.present.length === 0;
  }
}

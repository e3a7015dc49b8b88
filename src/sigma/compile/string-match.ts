// Compiled Sigma string comparisons without regexes. Promises: literals are case-folded once at compile
// time (case-fold.ts); equals/prefix/suffix/contains use plain string operations; general wildcard patterns
// use a two-pointer glob matcher that is O(n·m) worst case (never exponential); case-insensitive equals/
// prefix/suffix tests fold the compared ASCII characters in place (no folded copy; exact, see
// foldedEquals), other case-insensitive tests fold the event value through a small cache so repeated tests
// on one value fold it once (long values too, the last one).
import { foldCase } from '../case-fold.js';
import { ANY, ONE } from '../detection/sigma-string.js';
import type { StrPart } from '../ir.js';

const FOLD_CACHE_LIMIT = 1024;
const FOLD_CACHE_MAX_LENGTH = 4096;
const foldedValues = new Map<string, string>();

/** Longer values (up to LONG_VALUE_MAX characters) are remembered one at a time: the tests of a rule on
 * one long command line fold it once. */
const LONG_VALUE_MAX = 4 * 1024 * 1024;
let longValue = '';
let longFolded = '';

/** foldCase with a bounded memo (at most 1,024 strings of ≤ 4 KiB, and the last longer one): repeated
 * tests on one event value fold it once. */
export function foldValue(s: string): string {
  if (s.length > FOLD_CACHE_MAX_LENGTH) {
    if (s.length > LONG_VALUE_MAX) return foldCase(s);
    if (s !== longValue) {
      longFolded = foldCase(s);
      longValue = s;
    }
    return longFolded;
  }
  let l = foldedValues.get(s);
  if (l === undefined) {
    if (foldedValues.size >= FOLD_CACHE_LIMIT) foldedValues.clear();
    l = foldCase(s);
    foldedValues.set(s, l);
  }
  return l;
}

export type StringTest = (s: string) => boolean;

// Folding in place is exact because foldCase maps every character on its own, maps ASCII to ASCII one to
// one and never changes a string's length. So while the characters compared are ASCII, the corresponding
// characters of foldCase(s) are their ASCII folds, at the same offsets from the compared end; at the first
// non-ASCII character the test falls back to folding the whole value.

function foldAscii(c: number): number {
  return c >= 65 && c <= 90 ? c + 32 : c;
}

/** foldValue(s) === lit for a folded literal. */
function foldedEquals(s: string, lit: string): boolean {
  const n = lit.length;
  if (s.length !== n) return false;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128) return foldValue(s) === lit;
    if (foldAscii(c) !== lit.charCodeAt(i)) return false;
  }
  return true;
}

/** foldValue(s).startsWith(lit) for a folded literal. */
function foldedStartsWith(s: string, lit: string): boolean {
  const n = Math.min(lit.length, s.length);
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128) return foldValue(s).startsWith(lit);
    if (foldAscii(c) !== lit.charCodeAt(i)) return false;
  }
  return s.length >= lit.length;
}

/** foldValue(s).endsWith(lit) for a folded literal. */
function foldedEndsWith(s: string, lit: string): boolean {
  const n = Math.min(lit.length, s.length);
  for (let k = 1; k <= n; k++) {
    const c = s.charCodeAt(s.length - k);
    if (c >= 128) return foldValue(s).endsWith(lit);
    if (foldAscii(c) !== lit.charCodeAt(lit.length - k)) return false;
  }
  return s.length >= lit.length;
}

export type StrShape =
  | { kind: 'eq' | 'prefix' | 'suffix' | 'contains'; lit: string }
  | { kind: 'any' }
  | { kind: 'glob' };

/** Collapse runs of `*` (they mean the same as one). */
export function normalizeParts(parts: StrPart[]): StrPart[] {
  const out: StrPart[] = [];
  for (const p of parts) {
    if (p === ANY && out[out.length - 1] === ANY) continue;
    if (typeof p === 'string' && typeof out[out.length - 1] === 'string') out[out.length - 1] = (out[out.length - 1] as string) + p;
    else if (p !== '') out.push(p);
  }
  return out;
}

export function shapeOf(input: StrPart[]): StrShape {
  const parts = normalizeParts(input);
  const n = parts.length;
  if (n === 0) return { kind: 'eq', lit: '' };
  if (parts.includes(ONE)) return { kind: 'glob' };
  const stars = parts.filter((p) => p === ANY).length;
  if (stars === 0) return { kind: 'eq', lit: parts[0] as string };
  if (n === 1) return { kind: 'any' };
  if (n === 2 && parts[0] === ANY) return { kind: 'suffix', lit: parts[1] as string };
  if (n === 2 && parts[1] === ANY) return { kind: 'prefix', lit: parts[0] as string };
  if (n === 3 && parts[0] === ANY && parts[2] === ANY) return { kind: 'contains', lit: parts[1] as string };
  return { kind: 'glob' };
}

/** Code units of the character at s[i]: 2 for a surrogate pair, else 1. */
function charUnits(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c < 0xd800 || c > 0xdbff || i + 1 >= s.length) return 1;
  const d = s.charCodeAt(i + 1);
  return d >= 0xdc00 && d <= 0xdfff ? 2 : 1;
}

/** Glob over code units: pattern entries are char codes, -1 for `*`, -2 for `?`. A `?` takes one
 * character (a surrogate pair whole), and `*` gives characters back whole, so a pair is never split. */
function globMatch(p: Int32Array, s: string): boolean {
  let pi = 0;
  let si = 0;
  let star = -1;
  let mark = 0;
  const pn = p.length;
  const sn = s.length;
  while (si < sn) {
    if (pi < pn && p[pi] === -2) {
      pi++;
      si += charUnits(s, si);
    } else if (pi < pn && p[pi] === s.charCodeAt(si)) {
      pi++;
      si++;
    } else if (pi < pn && p[pi] === -1) {
      star = pi++;
      mark = si;
    } else if (star >= 0) {
      pi = star + 1;
      mark += charUnits(s, mark);
      si = mark;
    } else return false;
  }
  while (pi < pn && p[pi] === -1) pi++;
  return pi === pn;
}

export function compileString(parts: StrPart[], cased: boolean): StringTest {
  const fold = (x: string): string => (cased ? x : foldCase(x));
  const shape = shapeOf(parts);
  const prep = cased ? (s: string) => s : foldValue;
  switch (shape.kind) {
    case 'any':
      return () => true;
    case 'eq': {
      const lit = fold(shape.lit);
      return cased ? (s) => s === lit : (s) => foldedEquals(s, lit);
    }
    case 'prefix': {
      const lit = fold(shape.lit);
      return cased ? (s) => s.startsWith(lit) : (s) => foldedStartsWith(s, lit);
    }
    case 'suffix': {
      const lit = fold(shape.lit);
      return cased ? (s) => s.endsWith(lit) : (s) => foldedEndsWith(s, lit);
    }
    case 'contains': {
      const lit = fold(shape.lit);
      return (s) => prep(s).includes(lit);
    }
    case 'glob': {
      const codes: number[] = [];
      for (const p of parts) {
        if (p === ANY) {
          if (codes[codes.length - 1] !== -1) codes.push(-1);
        } else if (p === ONE) codes.push(-2);
        else {
          const lit = fold(p);
          for (let i = 0; i < lit.length; i++) codes.push(lit.charCodeAt(i));
        }
      }
      const pat = Int32Array.from(codes);
      return (s) => globMatch(pat, prep(s));
    }
  }
}

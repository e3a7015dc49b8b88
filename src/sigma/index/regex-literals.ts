// Required literals of a `re` value, for the candidate index: strings one of which every matching value
// must contain. Promises (soundness: the analysis may only ever weaken): if the regex matches value v, then
// `foldCase(v)` contains at least one of the returned (folded, ASCII-only) literals; null when no
// literal of at least `minLength` characters (MIN_LENGTH by default) is certain. The analysis reads a
// top-level alternation as one set of literals per branch, keeps only runs of plain characters that are not
// made optional or repeated by a quantifier, multiplies a run out through a group of plain alternatives
// (`-(W|R)` gives `-w`, `-r`; at most MAX_ALTERNATIVES literals), and skips other groups, classes, escapes
// that are classes and anchors entirely. Runs also stop at non-ASCII characters. Under a case-insensitive
// regex an ASCII letter may match a non-ASCII one (RE2 matches `k` with the Kelvin sign and `s` with the
// long s), which foldCase maps to that ASCII letter, so the literals hold there too. The pattern is read in
// its canonical spelling (python-syntax.ts); a pattern Python refuses has no literals.
import { foldCase } from '../case-fold.js';
import { repetitionAt } from '../regex/python-repeat.js';
import { canonicalRegex } from '../regex/python-syntax.js';
import type { RegexSpec } from '../regex/safe-regex.js';

export const MIN_LENGTH = 3;

/** Index just after the group or class that starts at `i` (source[i] is '(' or '['). */
function skipBracket(src: string, i: number): number {
  if (src[i] === '[') {
    let k = i + 1;
    if (src[k] === '^') k++;
    if (src[k] === ']') k++;
    for (; k < src.length; k++) {
      if (src[k] === '\\') k++;
      else if (src[k] === ']') return k + 1;
    }
    return -1;
  }
  let depth = 0;
  for (let k = i; k < src.length; k++) {
    const c = src[k];
    if (c === '\\') k++;
    else if (c === '[') {
      const e = skipBracket(src, k);
      if (e < 0) return -1;
      k = e - 1;
    } else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return k + 1;
  }
  return -1;
}

/** Length of the quantifier at i (0 if none) and whether it allows zero repetitions. */
function quantifier(src: string, i: number): { len: number; optional: boolean } {
  const c = src[i];
  let len = 0;
  let optional = false;
  if (c === '*' || c === '?') [len, optional] = [1, true];
  else if (c === '+') len = 1;
  else if (c === '{') {
    const r = repetitionAt(src, i);
    if (r) [len, optional] = [r.length, Number(r.min) === 0];
  }
  if (len && (src[i + len] === '?' || src[i + len] === '+')) len++; // lazy or possessive
  return { len, optional };
}

/** Index just after the escape that starts at `i` (src[i] is a backslash) of a canonical pattern
 * (python-syntax.ts): `\xHH` and `\uXXXX` take their hex digits along, so that they are never read as
 * literal text; every other escape is two characters. */
function escapeEnd(src: string, i: number): number {
  const e = src[i + 1];
  return i + (e === 'x' ? 4 : e === 'u' ? 6 : 2);
}

/** At most this many literals are carried through groups of alternatives (`(W|R)` doubles them). */
const MAX_ALTERNATIVES = 16;

/** The characters of one plain literal of a group's alternative, or null when it is not plain. */
function plainLiteral(src: string): string | null {
  let out = '';
  for (let k = 0; k < src.length; k++) {
    let c = src[k];
    if (c === '\\') {
      c = src[++k];
      if (c === undefined || /[A-Za-z0-9]/.test(c)) return null;
    } else if ('.^$*+?{}()[]|'.includes(c)) return null;
    if (c.charCodeAt(0) >= 128) return null;
    out += c;
  }
  return out;
}

/** The alternatives of a group `(a|b)` or `(?:a|b)` (src is the group with its parentheses) when each is a
 * plain literal; null for any other group (lookarounds, named groups, nested structure). */
function groupAlternatives(group: string): string[] | null {
  let body = group.slice(1, -1);
  if (body.startsWith('?:')) body = body.slice(2);
  else if (body.startsWith('?')) return null;
  const alts: string[] = [];
  // An escaped `|` splits wrongly, but leaves a part ending in a lone backslash, which is not plain.
  for (const part of body.split('|')) {
    const lit = plainLiteral(part);
    if (lit === null) return null;
    alts.push(lit);
  }
  return alts;
}

function shortest(xs: string[]): number {
  let n = Infinity;
  for (const x of xs) if (x.length < n) n = x.length;
  return n;
}

/** The best set of certain literals of one top-level branch (every match contains one of them): runs of
 * plain characters, multiplied out through groups of plain alternatives; [''] if none; null when the
 * branch cannot be read. */
function branchLiterals(src: string): string[] | null {
  let best: string[] = [''];
  let run: string[] = [''];
  const flush = (): void => {
    if (shortest(run) > shortest(best)) best = run;
    run = [''];
  };
  const append = (alts: string[]): void => {
    const out: string[] = [];
    for (const r of run) for (const a of alts) out.push(r + a);
    run = out;
  };
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    let alts: string[] | null = null;
    let next = i + 1;
    if (c === '(' || c === '[') {
      next = skipBracket(src, i);
      if (next < 0) return null;
      if (c === '(') alts = groupAlternatives(src.slice(i, next));
      if (alts !== null && run.length * alts.length > MAX_ALTERNATIVES) alts = null;
    } else if (c === '\\') {
      const e = src[i + 1];
      if (e === undefined) return null;
      next = escapeEnd(src, i);
      if (!/[A-Za-z0-9]/.test(e)) alts = [e];
    } else if (c === ')' || c === '|') return null; // unbalanced: give up
    else if (!'.^$*+?'.includes(c) && !(c === '{' && quantifier(src, i).len)) alts = [c];
    const q = quantifier(src, next);
    if (alts !== null && alts.length === 1 && alts[0].length === 1 && alts[0].charCodeAt(0) >= 128) alts = null;
    if (alts === null || q.optional) flush();
    else {
      append(alts);
      if (q.len) flush();
    }
    i = next + q.len;
  }
  flush();
  return best;
}

function topLevelBranches(src: string): string[] | null {
  const out: string[] = [];
  let start = 0;
  for (let k = 0; k < src.length; k++) {
    const c = src[k];
    if (c === '\\') k++;
    else if (c === '(' || c === '[') {
      const e = skipBracket(src, k);
      if (e < 0) return null;
      k = e - 1;
    } else if (c === '|') {
      out.push(src.slice(start, k));
      start = k + 1;
    }
  }
  out.push(src.slice(start));
  return out;
}

/** Folded literals, one of which every value the regex matches contains; null if unknown. */
export function regexLiterals(spec: RegexSpec, minLength = MIN_LENGTH): string[] | null {
  const r = canonicalRegex(spec);
  if (!r.ok) return null;
  const branches = topLevelBranches(r.spec.source);
  if (!branches) return null;
  const out = new Set<string>();
  for (const b of branches) {
    const lits = branchLiterals(b);
    if (lits === null || shortest(lits) < Math.max(1, minLength)) return null;
    for (const lit of lits) out.add(foldCase(lit));
  }
  return [...out];
}

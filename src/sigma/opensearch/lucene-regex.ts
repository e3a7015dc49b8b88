// Translating a Sigma `re` value (PCRE-like, unanchored search) into a Lucene regexp (anchored to the whole
// term) for OpenSearch. Promises: the translation either matches exactly the same strings (without
// newlines; for `\d`, `\w` and `\s`, on ASCII: Lucene's classes are ASCII, the matcher's Unicode) or is
// refused with a reason: shorthand classes become explicit classes, `(?:` becomes `(`, an empty
// alternative becomes `()` (Lucene would read the character after a bare `|` as a literal), lazy
// quantifiers become greedy (same truth value), a leading `^` / trailing `$` become anchors (the `$` also
// before a final newline, as the matcher reads it) and anything else unanchored gets `.*` around it; under
// `i`, a character class with a range also lists the other case of the ASCII letters it covers (Lucene 9
// folds single characters only, never ranges); lookaround, backreferences, word boundaries and inner
// anchors are refused, and so are results longer than OpenSearch's `index.max_regex_length` (1,000) and
// unanchored regexes with a bounded repeat wider than MAX_REPEAT_SPAN (whose automaton exceeds OpenSearch's
// default determinization budget). Lucene-only operator characters (`# @ & < > ~ "`) are escaped when
// literal. The value is first checked and spelled canonically as Python reads it (canonicalRegex), as the
// matcher and the index read it.
import { canonicalRegex } from '../regex/python-syntax.js';
import { repetitionAt } from '../regex/python-repeat.js';

export type LuceneRegex = { ok: true; source: string; caseInsensitive: boolean } | { ok: false; message: string };

const SHORTHAND: Record<string, string> = {
  d: '0-9',
  w: 'a-zA-Z0-9_',
  s: ' \t\n\r\f\v', // the characters themselves: in Lucene `\t` is the letter t
};
const CONTROL: Record<string, string> = { t: '\t', n: '\n', r: '\r', f: '\f', v: '\v' };
const LUCENE_EXTRA = new Set(['#', '@', '&', '<', '>', '~', '"']);
/** OpenSearch's default `index.max_regex_length`. */
const MAX_LUCENE_REGEX_LENGTH = 1000;
/** Widest bounded repeat (max - min) of an unanchored regex: beyond, the automaton Lucene determinizes for
 * `.*…{m,n}…` takes more work than OpenSearch's default `max_determinized_states` allows (a heuristic:
 * `[^"]{0,64}` fits, `.{2,128}` and `[^\\]{1,256}` do not). */
const MAX_REPEAT_SPAN = 64;
const LETTERS = Array.from({ length: 26 }, (_, n) => [String.fromCharCode(65 + n), String.fromCharCode(97 + n)]).flat();

/** Index of the `]` closing the class opened at src[start] (Python syntax: a `]` first is a character). */
function classEnd(src: string, start: number): number {
  let k = start + 1;
  if (src[k] === '^') k++;
  if (src[k] === ']') k++;
  for (; k < src.length; k++) {
    if (src[k] === '\\') k++;
    else if (src[k] === ']') return k;
  }
  return -1;
}

/** ASCII letters to add to the class `text` (with its brackets) so that Lucene, which folds single
 * characters only, matches as the matcher does under `i`: the letters `i` adds to a class with a range
 * (or, negated, removes from it). None when the class has no range; null when the class cannot be read
 * here (the translation is then refused rather than left to fold differently). */
function otherCaseLetters(text: string): string | null {
  const body = text.slice(1, -1).replace(/^\^/, '');
  if (!/[^\\]-[^\]]/.test(body)) return '';
  try {
    const plain = new RegExp(text);
    const folded = new RegExp(text, 'i');
    return LETTERS.filter((l) => plain.test(l) !== folded.test(l)).join('');
  } catch {
    return null;
  }
}

export function toLuceneRegex(input: string, flags: { i: boolean; m: boolean; s: boolean }): LuceneRegex {
  const canonical = canonicalRegex({ source: input, ...flags });
  if (!canonical.ok) return canonical;
  let src = canonical.spec.source;
  const { i, m, s: dotAll } = canonical.spec;
  if (m) return { ok: false, message: 'multiline regex flag is not supported by Lucene' };
  let anchoredStart = false;
  let anchoredEnd = false;
  if (src.startsWith('^')) {
    anchoredStart = true;
    src = src.slice(1);
  }
  if (src.endsWith('$') && !src.endsWith('\\$')) {
    anchoredEnd = true;
    src = src.slice(0, -1);
  }
  let out = '';
  let inClass = false;
  let depth = 0;
  let topLevelAlt = false;
  let classExtra = '';
  /** Whether an alternative starts here (start, after `(` or `|`): an empty one becomes `()`. */
  let altStart = true;
  let widestRepeat = 0;
  for (let k = 0; k < src.length; k++) {
    const c = src[k];
    if (!inClass && altStart && (c === '|' || c === ')')) out += '()';
    altStart = false;
    if (c === '\\') {
      const n = src[k + 1];
      k++;
      if (n === undefined) return { ok: false, message: 'regex ends with a backslash' };
      const lower = n.toLowerCase();
      if (SHORTHAND[lower]) {
        if (n === lower) out += inClass ? SHORTHAND[lower] : `[${SHORTHAND[lower]}]`;
        else if (inClass) return { ok: false, message: `negated class \\${n} inside [] is not supported` };
        else out += `[^${SHORTHAND[lower]}]`;
      } else if (n === 'b' || n === 'B' || n === 'A' || n === 'Z' || n === 'z' || /[1-9]/.test(n)) {
        return { ok: false, message: `\\${n} (anchors, word boundaries, backreferences) is not supported by Lucene` };
      } else if (n === 't' || n === 'n' || n === 'r' || n === 'f' || n === 'v') {
        out += CONTROL[n]; // the character itself: in Lucene `\t` is the letter t
      } else if (n === 'x' && /^[0-9a-fA-F]{2}$/.test(src.slice(k + 1, k + 3))) {
        out += escapeLiteral(String.fromCharCode(parseInt(src.slice(k + 1, k + 3), 16)), inClass);
        k += 2;
      } else if (n === 'u' && /^[0-9a-fA-F]{4}$/.test(src.slice(k + 1, k + 5))) {
        out += escapeLiteral(String.fromCharCode(parseInt(src.slice(k + 1, k + 5), 16)), inClass);
        k += 4;
      } else if (/[a-zA-Z0-9]/.test(n)) {
        return { ok: false, message: `escape \\${n} is not supported by Lucene` };
      } else {
        out += escapeLiteral(n, inClass);
      }
      continue;
    }
    if (inClass) {
      if (c === ']') {
        inClass = false;
        out += classExtra;
      }
      // `[` inside a class is a character (Python has no POSIX classes).
      out += c === '"' || c === '[' || LUCENE_EXTRA.has(c) ? '\\' + c : c;
      continue;
    }
    switch (c) {
      case '[': {
        inClass = true;
        const end = classEnd(src, k);
        const extra = i && end > 0 ? otherCaseLetters(src.slice(k, end + 1)) : '';
        if (extra === null) return { ok: false, message: `the character class ${src.slice(k, end + 1)} cannot be made case-insensitive for Lucene` };
        classExtra = extra;
        out += c;
        if (src[k + 1] === '^') {
          out += '^';
          k++;
        }
        if (src[k + 1] === ']') {
          out += '\\]';
          k++;
        }
        break;
      }
      case '(':
        if (src[k + 1] === '?') {
          if (src[k + 2] === ':') {
            k += 2;
          } else return { ok: false, message: 'lookaround and inline groups are not supported by Lucene' };
        }
        depth++;
        out += '(';
        altStart = true;
        break;
      case ')':
        depth--;
        out += ')';
        break;
      case '|':
        if (depth === 0) topLevelAlt = true;
        out += '|';
        altStart = true;
        break;
      case '^':
      case '$':
        return { ok: false, message: 'anchors inside a regex are not supported by Lucene' };
      case '*':
      case '+':
      case '?':
        out += c;
        if (src[k + 1] === '?') k++; // lazy → greedy: same truth value for a whole-value test
        break;
      case '{': {
        const r = repetitionAt(src, k);
        if (r) {
          const max = /^,(\d+)$/.exec(r.rest);
          if (max) widestRepeat = Math.max(widestRepeat, Number(max[1]) - Number(r.min));
          out += `{${r.min}${r.rest}}`; // Lucene needs the minimum written
          k += r.length - 1;
          if (src[k + 1] === '?') k++;
        } else out += '\\{';
        break;
      }
      case '}':
        out += '\\}';
        break;
      case '.':
        out += dotAll ? '.' : '[^\n]'; // Lucene's `.` also matches a newline
        break;
      default:
        out += escapeLiteral(c, false);
    }
  }
  if (inClass || depth !== 0) return { ok: false, message: 'unbalanced regex' };
  if (altStart && topLevelAlt) out += '()'; // a trailing empty alternative
  if (topLevelAlt && (anchoredStart || anchoredEnd)) return { ok: false, message: 'anchored top-level alternation is not supported' };
  if (!anchoredStart && widestRepeat > MAX_REPEAT_SPAN) {
    return { ok: false, message: `a bounded repeat ${widestRepeat} wide in an unanchored regex needs a larger automaton than OpenSearch builds by default (at most ${MAX_REPEAT_SPAN})` };
  }
  const body = topLevelAlt ? `(${out})` : out;
  // A trailing `$` also holds before a newline that ends the value, as in the matcher (safe-regex.ts).
  const source = (anchoredStart ? '' : '.*') + body + (anchoredEnd ? '\n?' : '.*');
  if (source.length > MAX_LUCENE_REGEX_LENGTH) {
    return { ok: false, message: `the Lucene regexp is ${source.length} characters long; OpenSearch allows ${MAX_LUCENE_REGEX_LENGTH} (index.max_regex_length)` };
  }
  return { ok: true, source, caseInsensitive: i };
}

function escapeLiteral(c: string, inClass: boolean): string {
  if (inClass) return c === ']' || c === '\\' || c === '-' || c === '^' || LUCENE_EXTRA.has(c) ? '\\' + c : c;
  return /[.?+*|{}[\]()\\]/.test(c) || LUCENE_EXTRA.has(c) ? '\\' + c : c;
}

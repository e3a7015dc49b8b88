// Python's regular expression syntax in RE2's: what a Sigma `re` value means (the reference semantics read it
// with Python's `re`) spelled so that RE2 runs it the same way, where RE2 can. Promises: the translation
// changes only `\uXXXX`, `\Z`, an unescaped `$` outside multiline mode, the classes `\d`, `\w`, `\s` (and
// their negations outside brackets; `\w` and `\W` are never folded by `i`), Python's `{,n}` and `{,}`
// repetitions and a `[` inside brackets (a character: Python has no POSIX classes); everything else is
// copied as written.
import { repetitionAt } from './python-repeat.js';

const UNICODE_ESCAPE = /u(?:([0-9A-Fa-f]{4})|\{([0-9A-Fa-f]{1,6})\})/y;

/** Python's Unicode classes in RE2's syntax: \d any decimal digit (also JavaScript's with the `u` flag), \w
 * any letter, number or `_`, \s what str.isspace() accepts. */
export const DIGIT = '\\p{Nd}';
const WORD = '\\p{L}\\p{N}_';
const SPACE = '\\t\\n\\x0b\\f\\r\\x1c-\\x1f\\x85\\p{Z}';
// \w and \W keep case-sensitive (Python does not fold a category: ignoring case, `\W` still matches U+0345,
// which RE2's folding would join to the letter ι).
const UNICODE_CLASS: Record<string, string> = {
  d: DIGIT,
  D: '\\P{Nd}',
  w: `(?-i:[${WORD}])`,
  W: `(?-i:[^${WORD}])`,
  s: `[${SPACE}]`,
  S: `[^${SPACE}]`,
};
/** Inside a class only the positive forms (and \D) can be spelled; `[\W…]` and `[\S…]` stay ASCII. */
const UNICODE_IN_CLASS: Record<string, string> = { d: DIGIT, D: '\\P{Nd}', w: WORD, s: SPACE };

/** The pattern in RE2's syntax, read as Python's `re` reads it: `\uXXXX` and `\u{X…}` are characters
 * (RE2 spells them `\x{…}`), `\Z` is the end of the text (`\z`), outside multiline mode `$` also
 * matches before a newline that ends the text (RE2's `$` is the very end), and `\d`, `\w`, `\s` are
 * Unicode classes (RE2's are ASCII; `\b` stays ASCII, RE2 has no other). Other escapes and character
 * classes are copied as they are. */
export function re2Source(source: string, multiline: boolean): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      UNICODE_ESCAPE.lastIndex = i + 1;
      const u = UNICODE_ESCAPE.exec(source);
      if (u) {
        out += `\\x{${u[1] ?? u[2]}}`;
        i += u[0].length;
      } else {
        const e = source[++i] ?? '';
        const unicode = inClass ? UNICODE_IN_CLASS[e] : UNICODE_CLASS[e];
        out += unicode ?? (e === 'Z' && !inClass ? '\\z' : c + e);
      }
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      // Python has no POSIX classes: `[[:alpha:]]` is a set holding `[`, `:`, `a`… then a `]`.
      out += c === '[' ? '\\[' : c;
    } else if (c === '{') {
      // Written with its minimum: RE2 reads `{,n}` as text.
      const r = repetitionAt(source, i);
      out += r ? `{${r.min}${r.rest}}` : c;
      if (r) i += r.length - 1;
    } else if (c === '[') {
      inClass = true;
      out += c;
      // A ']' first in a class (after an optional '^') is a literal.
      if (source[i + 1] === '^') out += source[++i];
      if (source[i + 1] === ']') out += source[++i];
    } else out += c === '$' && !multiline ? '(?:\\n?\\z)' : c;
  }
  return out;
}

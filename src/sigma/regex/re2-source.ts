// A Sigma `re` value in RE2's syntax: the canonical spelling of python-syntax.ts (Python's reading, already
// checked: repetitions written with their minimum, literal brackets and braces escaped, no comments or
// inline flags) turned into what RE2 runs the same way, where RE2 can. Promises: the translation changes
// only `\uXXXX` (a lone surrogate), `\Z`, an unescaped `$` outside multiline mode, and the classes `\d`,
// `\w`, `\s` and their negations (`\w` and `\W` are never folded by `i`; a positive class holding `\W` or
// `\S` becomes an alternation, a negated one is refused); everything else is copied as written.
const UNICODE_ESCAPE = /u([0-9A-Fa-f]{4})/y;

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
/** `\uXXXX` at source[i] (the backslash) in RE2's spelling, with its length after the backslash. */
function unicodeEscape(source: string, i: number): { text: string; length: number } | null {
  UNICODE_ESCAPE.lastIndex = i + 1;
  const u = UNICODE_ESCAPE.exec(source);
  return u ? { text: `\\x{${u[1]}}`, length: u[0].length } : null;
}

/** Inside a class the positive forms (and \D) are spelled in place; `\W` and `\S` are taken out of the
 * class into an alternative (classClause). */
const UNICODE_IN_CLASS: Record<string, string> = { d: DIGIT, D: '\\P{Nd}', w: WORD, s: SPACE };
const NEGATED_IN_CLASS: Record<string, string> = { W: UNICODE_CLASS.W, S: UNICODE_CLASS.S };

/** The class that starts at source[start] (`[`) in RE2's syntax, and the index after it. A positive class
 * holding `\W` or `\S` becomes an alternation (`[a\W]` is `(?:[a]|\W)`); a negated one cannot be
 * spelled without set subtraction and is refused. */
function classClause(source: string, start: number): { text: string; end: number } {
  let i = start + 1;
  let out = '[';
  const negated = source[i] === '^';
  if (negated) out += source[i++];
  const extra: string[] = [];
  for (; i < source.length && source[i] !== ']'; i++) {
    const c = source[i];
    if (c !== '\\') {
      out += c;
      continue;
    }
    const u = unicodeEscape(source, i);
    if (u) {
      out += u.text;
      i += u.length;
      continue;
    }
    const e = source[++i] ?? '';
    if (NEGATED_IN_CLASS[e] !== undefined) {
      if (negated) throw new Error(`a negated class holding \\${e} cannot be matched here`);
      extra.push(NEGATED_IN_CLASS[e]);
    } else out += UNICODE_IN_CLASS[e] ?? c + e;
  }
  const set = out === '[' ? [] : [out + ']'];
  const text = extra.length === 0 ? out + ']' : `(?:${[...set, ...extra].join('|')})`;
  return { text, end: i + 1 };
}

/** The canonical pattern in RE2's syntax: `\uXXXX` is a character (RE2 spells it `\x{…}`), `\Z` is the end
 * of the text (`\z`), outside multiline mode `$` also matches before a newline that ends the text (RE2's
 * `$` is the very end), and `\d`, `\w`, `\s` are Unicode classes (RE2's are ASCII; `\b` stays ASCII, RE2
 * has no other). Other escapes are copied as they are. */
export function re2Source(source: string, multiline: boolean): string {
  let out = '';
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      const u = unicodeEscape(source, i);
      if (u) {
        out += u.text;
        i += u.length;
      } else {
        const e = source[++i] ?? '';
        out += UNICODE_CLASS[e] ?? (e === 'Z' ? '\\z' : c + e);
      }
    } else if (c === '[') {
      const clause = classClause(source, i);
      out += clause.text;
      i = clause.end - 1;
    } else out += c === '$' && !multiline ? '(?:\\n?\\z)' : c;
  }
  return out;
}

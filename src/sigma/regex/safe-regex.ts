// Regular expressions for the `re` modifier that can never stall matching. Promises: every pattern runs on
// an RE2 automaton (re2js, pure JS), so matching is linear in the input whatever the pattern, with or
// without `i`; a leading inline flag group such as `(?i)` becomes flags; patterns RE2 cannot run in linear
// time (lookaround, backreferences) or that compile to an oversized program are refused with a clear
// message instead of being matched unsafely; patterns are read as Python's `re` reads them (re2Source;
// ignoring case, `ı` and `İ` are `i`). Matching is an unanchored search (sigma-notes §4).
import { RE2JS } from 're2js';

export const MAX_PROGRAM_SIZE = 20_000;

export interface RegexSpec {
  source: string;
  i: boolean;
  m: boolean;
  s: boolean;
}

export type SafeRegex = { test(input: string): boolean; source: string };

export type RegexResult = { ok: true; regex: SafeRegex } | { ok: false; message: string };

/** Move a leading `(?imsx)` group into flags. */
export function splitInlineFlags(spec: RegexSpec): RegexSpec & { x: boolean } {
  const m = /^\(\?([imsx]+)\)/.exec(spec.source);
  if (!m) return { ...spec, x: false };
  return {
    source: spec.source.slice(m[0].length),
    i: spec.i || m[1].includes('i'),
    m: spec.m || m[1].includes('m'),
    s: spec.s || m[1].includes('s'),
    x: m[1].includes('x'),
  };
}

/** The pattern in RE2's syntax, read as Python's `re` reads it: `\uXXXX` and `\u{X…}` are characters
 * (RE2 spells them `\x{…}`), `\Z` is the end of the text (`\z`), outside multiline mode `$` also
 * matches before a newline that ends the text (RE2's `$` is the very end), and `\d`, `\w`, `\s` are
 * Unicode classes (RE2's are ASCII; `\b` stays ASCII, RE2 has no other). Other escapes and character
 * classes are copied as they are. */
const UNICODE_ESCAPE = /u(?:([0-9A-Fa-f]{4})|\{([0-9A-Fa-f]{1,6})\})/y;

/** Python's Unicode classes in RE2's syntax: \d any decimal digit, \w any letter, number or `_`, \s what
 * str.isspace() accepts. */
const DIGIT = '\\p{Nd}';
const WORD = '\\p{L}\\p{N}_';
const SPACE = '\\t\\n\\x0b\\f\\r\\x1c-\\x1f\\x85\\p{Z}';
const UNICODE_CLASS: Record<string, string> = { d: DIGIT, D: '\\P{Nd}', w: `[${WORD}]`, W: `[^${WORD}]`, s: `[${SPACE}]`, S: `[^${SPACE}]` };
/** Inside a class only the positive forms (and \D) can be spelled; `[\W…]` and `[\S…]` stay ASCII. */
const UNICODE_IN_CLASS: Record<string, string> = { d: DIGIT, D: '\\P{Nd}', w: WORD, s: SPACE };

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
      out += c;
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

const TURKISH_I = /[\u0130\u0131]/g;
const HAS_TURKISH_I = /[\u0130\u0131]/;

export function compileSafeRegex(spec: RegexSpec): RegexResult {
  const r = splitInlineFlags(spec);
  if (r.x) return { ok: false, message: 'regex: the verbose flag (?x) is not supported' };
  let flags = 0;
  if (r.i) flags |= RE2JS.CASE_INSENSITIVE;
  if (r.m) flags |= RE2JS.MULTILINE;
  if (r.s) flags |= RE2JS.DOTALL;
  try {
    // Ignoring case, Python's `re` makes `ı` and `İ` one letter with `i` (RE2 keeps them apart): both are
    // read as `i`, in the pattern and in the value.
    const source = r.i ? r.source.replace(TURKISH_I, 'i') : r.source;
    const re = RE2JS.compile(re2Source(source, r.m), flags);
    if (re.programSize() > MAX_PROGRAM_SIZE) {
      return { ok: false, message: `regex is too large (program size ${re.programSize()}, limit ${MAX_PROGRAM_SIZE})` };
    }
    const test = r.i ? (input: string) => re.test(HAS_TURKISH_I.test(input) ? input.replace(TURKISH_I, 'i') : input) : (input: string) => re.test(input);
    return { ok: true, regex: { test, source: spec.source } };
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    const hint = /\(\?[=!<]|\\[1-9]/.test(r.source)
      ? ' (lookaround and backreferences are refused: they cannot be matched in guaranteed linear time)'
      : '';
    return { ok: false, message: `regex cannot be compiled safely: ${msg}${hint}` };
  }
}

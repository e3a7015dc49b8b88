// Regular expressions for the `re` modifier that can never stall matching. Promises: every pattern runs on
// an RE2 automaton (re2js, pure JS), so matching is linear in the input whatever the pattern, with or
// without `i`; a leading inline flag group such as `(?i)` becomes flags; patterns RE2 cannot run in linear
// time (lookaround, backreferences) or that compile to an oversized program are refused with a clear
// message instead of being matched unsafely; patterns are read as Python's `re` reads them (re2Source;
// ignoring case, `ı` and `İ` are `i`). Matching is an unanchored search (sigma-notes §4).
import { RE2JS } from 're2js';
import { re2Source } from './re2-source.js';

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

// Regular expressions for the `re` modifier that can never stall matching. Promises: every pattern runs on
// an RE2 automaton (re2js, pure JS), so matching is linear in the input whatever the pattern, with or
// without `i`; a pattern is checked and read as Python's `re` reads it (canonicalRegex: leading inline
// flags such as `(?i)` become flags; what Python refuses, or what cannot run in linear time such as
// lookaround and backreferences, is refused with a clear message), then spelled for RE2 (re2Source;
// ignoring case, `ı` and `İ` are `i`); a pattern that compiles to an oversized program is refused too.
// Matching is an unanchored search (sigma-notes §4).
import { RE2JS } from 're2js';
import { canonicalRegex } from './python-syntax.js';
import { re2Source } from './re2-source.js';

export const MAX_PROGRAM_SIZE = 20_000;

export interface RegexSpec {
  source: string;
  i: boolean;
  m: boolean;
  s: boolean;
}

/** A compiled regex; `programSize` is the size of its RE2 program (its matching cost per character). */
export type SafeRegex = { test(input: string): boolean; source: string; programSize: number };

export type RegexResult = { ok: true; regex: SafeRegex } | { ok: false; message: string };

const TURKISH_I = /[\u0130\u0131]/g;
const HAS_TURKISH_I = /[\u0130\u0131]/;

export function compileSafeRegex(spec: RegexSpec): RegexResult {
  const canonical = canonicalRegex(spec);
  if (!canonical.ok) return canonical;
  const r = canonical.spec;
  let flags = 0;
  if (r.i) flags |= RE2JS.CASE_INSENSITIVE;
  if (r.m) flags |= RE2JS.MULTILINE;
  if (r.s) flags |= RE2JS.DOTALL;
  try {
    // Ignoring case, Python's `re` makes `ı` and `İ` one letter with `i` (RE2 keeps them apart): both are
    // read as `i`, in the pattern and in the value.
    const source = r.i ? r.source.replace(TURKISH_I, 'i') : r.source;
    const re = RE2JS.compile(re2Source(source, r.m), flags);
    const programSize = re.programSize();
    if (programSize > MAX_PROGRAM_SIZE) {
      return { ok: false, message: `regex is too large (program size ${programSize}, limit ${MAX_PROGRAM_SIZE})` };
    }
    const test = r.i ? (input: string) => re.test(HAS_TURKISH_I.test(input) ? input.replace(TURKISH_I, 'i') : input) : (input: string) => re.test(input);
    return { ok: true, regex: { test, source: spec.source, programSize } };
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    const count = /invalid repeat count: `([^`]*)`/.exec(msg);
    // Python accepts any count; the linear-time matcher takes at most 1000, counting nested repeats as
    // their product.
    if (count) return { ok: false, message: `regex repeat ${count[1]} is too large: at most 1000 repetitions are supported (nested repeats multiply)` };
    return { ok: false, message: `regex cannot be compiled safely: ${msg}` };
  }
}

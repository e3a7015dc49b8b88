// Tests of one event value against one IR test. Promises: strings are matched as strings; numbers and
// booleans are matched through their decimal/`true`/`false` string form for string tests; numeric tests
// accept numbers and numeric strings; objects never match a value test. Compile-time errors (unsafe
// regex) are returned, not thrown; each regex is compiled once (cached by test object and by source).
import { compileString, foldValue } from './string-match.js';
import { compileSafeRegex } from '../regex/safe-regex.js';
import type { RegexResult } from '../regex/safe-regex.js';
import { inCidr, parseIp } from '../detection/ip.js';
import { numberText } from '../detection/number-text.js';
import type { Test } from '../ir.js';
import type { CompareOp } from '../detection/value-expr.js';
import { timePart } from './time-parts.js';
import { pythonFloat } from './python-float.js';

export type ValueTest = (v: unknown) => boolean;

/** String form used by string-like tests, or undefined for values that have none. A whole number is written
 * as JavaScript writes it, in digits below 1e21 and with an exponent beyond (once read, `1e+300` and the
 * same number written in 301 digits are one number), any other number as Python writes a float. */
export function asString(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : numberText(v);
  if (typeof v === 'bigint') return String(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return undefined;
}

function asNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  return typeof v === 'string' ? pythonFloat(v) : undefined;
}

export function compare(op: CompareOp | 'eq', a: number, b: number): boolean {
  switch (op) {
    case 'gt':
      return a > b;
    case 'gte':
      return a >= b;
    case 'lt':
      return a < b;
    case 'lte':
      return a <= b;
    default:
      return a === b;
  }
}

/** Compile a value test; null/exists/fieldref are event-level and handled by the matcher. */
/** Compiled regexes by IR test object: load-time checks and the (lazy) matcher compile each regex once;
 * and by source and flags (bounded), for the same regex in several rules (compiled regexes are stateless). */
const regexes = new WeakMap<Test, RegexResult>();
const regexesBySource = new Map<string, RegexResult>();
const MAX_SHARED_REGEXES = 4096;
/** Bound on the summed program sizes of the shared regexes (a program instruction takes about 85 bytes),
 * so regexes of refused or tested rules cannot pile up. */
const MAX_SHARED_PROGRAM = 1_000_000;
let sharedProgram = 0;

export function cachedRegex(test: Extract<Test, { op: 're' }>): RegexResult {
  let r = regexes.get(test);
  if (r !== undefined) return r;
  const key = `${test.i ? 'i' : ''}${test.m ? 'm' : ''}${test.s ? 's' : ''}/${test.source}`;
  r = regexesBySource.get(key);
  if (r === undefined) {
    r = compileSafeRegex(test);
    const size = r.ok ? r.regex.programSize : 0;
    if (regexesBySource.size >= MAX_SHARED_REGEXES || sharedProgram + size > MAX_SHARED_PROGRAM) {
      regexesBySource.clear();
      sharedProgram = 0;
    }
    regexesBySource.set(key, r);
    sharedProgram += size;
  }
  regexes.set(test, r);
  return r;
}

export function compileValueTest(test: Test): { ok: true; fn: ValueTest } | { ok: false; message: string } {
  switch (test.op) {
    case 'str': {
      const t = compileString(test.parts, test.cased);
      return {
        ok: true,
        fn: (v) => {
          const s = typeof v === 'string' ? v : asString(v);
          return s !== undefined && t(s);
        },
      };
    }
    case 'num': {
      const { n, text } = test;
      return { ok: true, fn: (v) => v === n || (typeof v === 'string' && v === text) || (typeof v === 'bigint' && String(v) === text) };
    }
    case 'bool': {
      const text = test.b ? 'true' : 'false';
      return { ok: true, fn: (v) => v === test.b || (typeof v === 'string' && foldValue(v) === text) };
    }
    case 're': {
      const r = cachedRegex(test);
      if (!r.ok) return r;
      const re = r.regex;
      return {
        ok: true,
        fn: (v) => {
          const s = typeof v === 'string' ? v : asString(v);
          return s !== undefined && re.test(s);
        },
      };
    }
    case 'cidr': {
      const net = test.cidr;
      return {
        ok: true,
        fn: (v) => {
          if (typeof v !== 'string') return false;
          const ip = parseIp(v);
          return ip !== null && inCidr(ip, net);
        },
      };
    }
    case 'cmp': {
      const { cmp, n } = test;
      return {
        ok: true,
        fn: (v) => {
          const x = asNumber(v);
          return x !== undefined && compare(cmp, x, n);
        },
      };
    }
    case 'time': {
      const { part, cmp, n } = test;
      return {
        ok: true,
        fn: (v) => {
          const x = timePart(v, part);
          return x !== undefined && compare(cmp, x, n);
        },
      };
    }
    default:
      return { ok: false, message: `internal: ${test.op} is not a value test` };
  }
}

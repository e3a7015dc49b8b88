// A small in-process interpreter of the OpenSearch DSL subset emitted by compile-dsl.ts, with OpenSearch
// semantics for `keyword`-mapped fields (whole values; objects flattened to dotted paths; null values not
// indexed; `case_insensitive` folds ASCII letters only, and in a regexp single characters only, never
// ranges; `?`, `.` and classes take one code point; Lucene's parser reads the character after a bare `|`
// as a literal, so an empty alternative is an error here), an `ip` subfield (IP_SUBFIELD, malformed values
// ignored) and a numeric subfield (NUMERIC_SUBFIELD, numbers and numeric texts). Used only by tests, to check
// the DSL compiler against the JS matcher without a cluster.
import { makeAccessor } from '../../src/sigma/compile/field-access.js';
import type { Accessor } from '../../src/sigma/compile/field-access.js';
import { inCidr, parseCidr, parseIp } from '../../src/sigma/detection/ip.js';

export const IP_SUBFIELD = 'ip';
export const NUMERIC_SUBFIELD = 'num';

const accessors = new Map<string, Accessor>();
function accessor(field: string): Accessor {
  let a = accessors.get(field);
  if (!a) accessors.set(field, (a = makeAccessor(field)));
  return a;
}
const regexes = new Map<string, RegExp>();
function cachedRegex(source: string, flags: string): RegExp {
  const key = `${flags}/${source}`;
  let r = regexes.get(key);
  if (!r) regexes.set(key, (r = new RegExp(source, flags)));
  return r;
}

type Dsl = Record<string, unknown>;

function present(event: object, field: string): boolean {
  return accessor(field).each(event, (v) => v !== null);
}

function spec(q: unknown): [string, Record<string, unknown>] {
  const [field, s] = Object.entries(q as Record<string, unknown>)[0];
  return [field, typeof s === 'object' && s !== null ? (s as Record<string, unknown>) : { value: s }];
}

/** OpenSearch's case_insensitive: ASCII letters only. */
function fold(s: string, ci: unknown): string {
  return ci ? s.replace(/[A-Z]/g, (c) => c.toLowerCase()) : s;
}

const JS_SYNTAX = /[\\^$.*+?()[\]{}|/]/;

function wildcardToRegex(w: string): string {
  let out = '';
  for (let i = 0; i < w.length; i++) {
    const c = w[i];
    if (c === '\\') out += literal(w[++i] ?? '\\');
    else if (c === '*') out += '[\\s\\S]*';
    else if (c === '?') out += '[\\s\\S]';
    else out += literal(c);
  }
  return out;
}

/** A character as a literal of a JS `u` regex. */
function literal(c: string): string {
  return JS_SYNTAX.test(c) ? '\\' + c : c;
}

/** A character of a Lucene regexp as JS source; under case_insensitive an ASCII letter stands for both of
 * its cases (`inClass`: as class members). */
function regexChar(c: string, ci: boolean, inClass: boolean): string {
  if (ci && /^[a-zA-Z]$/.test(c)) {
    const both = c.toLowerCase() + c.toUpperCase();
    return inClass ? both : `[${both}]`;
  }
  return inClass ? (c === ']' || c === '\\' || c === '-' || c === '^' ? '\\' + c : c) : literal(c);
}

/** Lucene regexp source → JS `u` source: a backslash makes the next character literal; under
 * case_insensitive single letters match both cases and ranges stay as written. */
function luceneRegexToJs(src: string, ci: boolean): string {
  const chars = Array.from(src);
  let out = '';
  let altStart = true; // at the start, after `(` or `|`
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (altStart && (c === '|' || c === ')') && !(c === ')' && chars[i - 1] === '(')) {
      throw new Error(`dsl-eval: Lucene would misread the empty alternative before ${i} of ${JSON.stringify(src)}`);
    }
    altStart = c === '(' || c === '|';
    if (c === '\\') {
      out += regexChar(chars[++i] ?? '\\', ci, false);
    } else if (c === '[') {
      let j = i + 1;
      let cls = '[';
      if (chars[j] === '^') {
        cls += '^';
        j++;
      }
      for (; j < chars.length && chars[j] !== ']'; j++) {
        let lo = chars[j];
        if (lo === '\\') lo = chars[++j];
        if (chars[j + 1] === '-' && chars[j + 2] !== undefined && chars[j + 2] !== ']') {
          let hi = chars[j + 2];
          j += 2;
          if (hi === '\\') hi = chars[++j];
          cls += `${regexChar(lo, false, true)}-${regexChar(hi, false, true)}`;
        } else cls += regexChar(lo, ci, true);
      }
      out += `${cls}]`;
      i = j;
    } else if (c === '$' || c === '^' || c === '/') {
      out += '\\' + c; // no anchors in Lucene: literal characters
    } else if (/[()|*+?{}.]/.test(c) || /[0-9,]/.test(c)) {
      out += c;
    } else out += regexChar(c, ci, false);
  }
  if (altStart && chars.length > 0) throw new Error(`dsl-eval: Lucene would misread the empty alternative at the end of ${JSON.stringify(src)}`);
  return out;
}

type Eval = (event: object) => boolean;

function anyValue(field: string, test: (v: unknown) => boolean): Eval {
  const a = accessor(field);
  return (e) => a.each(e, (v) => v !== null && typeof v !== 'object' && test(v));
}

function compileQuery(q: Dsl): Eval {
  const [kind, body] = Object.entries(q)[0];
  switch (kind) {
    case 'match_all':
      return () => true;
    case 'match_none':
      return () => false;
    case 'exists': {
      const field = (body as { field: string }).field;
      return (e) => present(e, field);
    }
    case 'bool': {
      const b = body as { filter?: Dsl[]; should?: Dsl[]; must_not?: Dsl[]; minimum_should_match?: number };
      const filter = (b.filter ?? []).map(compileQuery);
      const mustNot = (b.must_not ?? []).map(compileQuery);
      const should = (b.should ?? []).map(compileQuery);
      const need = b.should ? (b.minimum_should_match ?? (b.filter || b.must_not ? 0 : 1)) : 0;
      return (e) => {
        for (const f of filter) if (!f(e)) return false;
        for (const f of mustNot) if (f(e)) return false;
        let n = 0;
        for (const f of should) if (n < need && f(e)) n++;
        return n >= need;
      };
    }
    case 'term': {
      const [field, s] = spec(body);
      if (field.endsWith(`.${IP_SUBFIELD}`)) {
        const net = parseCidr(String(s.value));
        if (!net) throw new Error(`dsl-eval: not a CIDR: ${String(s.value)}`);
        return anyValue(field.slice(0, -IP_SUBFIELD.length - 1), (v) => {
          const ip = typeof v === 'string' ? parseIp(v) : null; // malformed values are ignored
          return ip !== null && inCidr(ip, net);
        });
      }
      const want = fold(String(s.value), s.case_insensitive);
      return anyValue(field, (v) => fold(String(v), s.case_insensitive) === want);
    }
    case 'prefix': {
      const [field, s] = spec(body);
      const want = fold(String(s.value), s.case_insensitive);
      return anyValue(field, (v) => fold(String(v), s.case_insensitive).startsWith(want));
    }
    case 'wildcard': {
      const [field, s] = spec(body);
      const re = cachedRegex(`^${wildcardToRegex(fold(String(s.value), s.case_insensitive))}$`, 'u');
      return anyValue(field, (v) => re.test(fold(String(v), s.case_insensitive)));
    }
    case 'regexp': {
      const [field, s] = spec(body);
      const re = cachedRegex(`^(?:${luceneRegexToJs(String(s.value), s.case_insensitive === true)})$`, 'su');
      return anyValue(field, (v) => re.test(String(v)));
    }
    case 'range': {
      const [field, s] = spec(body);
      if (!field.endsWith(`.${NUMERIC_SUBFIELD}`)) throw new Error(`dsl-eval: a range on ${field}, not on a numeric subfield`);
      return anyValue(field.slice(0, -NUMERIC_SUBFIELD.length - 1), (v) => {
        // A double field takes numbers and numeric texts; anything else is ignored (ignore_malformed).
        const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(v) ? Number(v) : NaN;
        if (Number.isNaN(n)) return false;
        return Object.entries(s).every(([op, x]) => (op === 'gt' ? n > (x as number) : op === 'gte' ? n >= (x as number) : op === 'lt' ? n < (x as number) : n <= (x as number)));
      });
    }
    default:
      throw new Error(`dsl-eval: unsupported query ${kind}`);
  }
}

const compiled = new WeakMap<Dsl, Eval>();

/** Evaluate a DSL query against one event (the query is compiled once and cached). */
export function evalDsl(q: Dsl, event: object): boolean {
  let f = compiled.get(q);
  if (!f) compiled.set(q, (f = compileQuery(q)));
  return f(event);
}

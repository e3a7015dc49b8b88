// A small in-process interpreter of the OpenSearch DSL subset emitted by compile-dsl.ts, with OpenSearch
// semantics for `keyword`-mapped fields (whole values; objects flattened to dotted paths; null values not
// indexed). Used only by tests, to check the DSL compiler against the JS matcher without a cluster.
import { makeAccessor } from '../../src/sigma/compile/field-access.js';
import type { Accessor } from '../../src/sigma/compile/field-access.js';

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

function fold(s: string, ci: unknown): string {
  return ci ? s.toLowerCase() : s;
}

function wildcardToRegex(w: string): string {
  let out = '';
  for (let i = 0; i < w.length; i++) {
    const c = w[i];
    if (c === '\\') out += (w[++i] ?? '\\').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    else if (c === '*') out += '[\\s\\S]*';
    else if (c === '?') out += '[\\s\\S]';
    else out += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return out;
}

/** Lucene regexp source → JS source: a backslash makes the next character literal, except the classes
 * \d \s \w and their negations. */
function luceneRegexToJs(src: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === '\\') {
      const n = src[++i] ?? '\\';
      out += /[dswDSW]/.test(n) ? '\\' + n : /[a-zA-Z0-9]/.test(n) ? n : '\\' + n;
    } else if (inClass) {
      if (c === ']') inClass = false;
      out += c;
    } else if (c === '[') {
      inClass = true;
      out += c;
      if (src[i + 1] === '^') out += src[++i];
    } else if (c === '$' || c === '^' || c === '/') {
      out += '\\' + c; // no anchors in Lucene: literal characters
    } else out += c;
  }
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
      const re = cachedRegex(`^${wildcardToRegex(String(s.value))}$`, s.case_insensitive ? 'i' : '');
      return anyValue(field, (v) => re.test(String(v)));
    }
    case 'regexp': {
      const [field, s] = spec(body);
      const re = cachedRegex(`^(?:${luceneRegexToJs(String(s.value))})$`, (s.case_insensitive ? 'i' : '') + 's');
      return anyValue(field, (v) => re.test(String(v)));
    }
    case 'range': {
      const [field, s] = spec(body);
      return anyValue(field, (v) => {
        const n = Number(v);
        if (typeof v === 'boolean' || Number.isNaN(n) || (typeof v === 'string' && v.trim() === '')) return false;
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

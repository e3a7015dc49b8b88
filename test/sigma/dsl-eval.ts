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

function values(event: object, field: string): unknown[] {
  const out: unknown[] = [];
  accessor(field).each(event, (v) => {
    if (v !== null && typeof v !== 'object') out.push(v);
    return false;
  });
  return out;
}

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

export function evalDsl(q: Dsl, event: object): boolean {
  const [kind, body] = Object.entries(q)[0];
  switch (kind) {
    case 'match_all':
      return true;
    case 'match_none':
      return false;
    case 'exists':
      return present(event, (body as { field: string }).field);
    case 'bool': {
      const b = body as { filter?: Dsl[]; should?: Dsl[]; must_not?: Dsl[]; minimum_should_match?: number };
      if (b.filter && !b.filter.every((x) => evalDsl(x, event))) return false;
      if (b.must_not && b.must_not.some((x) => evalDsl(x, event))) return false;
      if (b.should) {
        const need = b.minimum_should_match ?? (b.filter || b.must_not ? 0 : 1);
        if (b.should.filter((x) => evalDsl(x, event)).length < need) return false;
      }
      return true;
    }
    case 'term': {
      const [field, s] = spec(body);
      const want = fold(String(s.value), s.case_insensitive);
      return values(event, field).some((v) => fold(String(v), s.case_insensitive) === want);
    }
    case 'prefix': {
      const [field, s] = spec(body);
      const want = fold(String(s.value), s.case_insensitive);
      return values(event, field).some((v) => fold(String(v), s.case_insensitive).startsWith(want));
    }
    case 'wildcard': {
      const [field, s] = spec(body);
      const re = cachedRegex(`^${wildcardToRegex(String(s.value))}$`, s.case_insensitive ? 'i' : '');
      return values(event, field).some((v) => re.test(String(v)));
    }
    case 'regexp': {
      const [field, s] = spec(body);
      const re = cachedRegex(`^(?:${String(s.value)})$`, (s.case_insensitive ? 'i' : '') + 's');
      return values(event, field).some((v) => re.test(String(v)));
    }
    case 'range': {
      const [field, s] = spec(body);
      return values(event, field).some((v) => {
        const n = Number(v);
        if (typeof v === 'boolean' || Number.isNaN(n) || (typeof v === 'string' && v.trim() === '')) return false;
        return Object.entries(s).every(([op, x]) => (op === 'gt' ? n > (x as number) : op === 'gte' ? n >= (x as number) : op === 'lt' ? n < (x as number) : n <= (x as number)));
      });
    }
    default:
      throw new Error(`dsl-eval: unsupported query ${kind}`);
  }
}

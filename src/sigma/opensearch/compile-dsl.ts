// IR → OpenSearch query DSL. Promises: the query selects exactly the documents the JS matcher matches,
// assuming string fields are mapped as `keyword` (whole values, case-insensitive via `case_insensitive`),
// with an `ip` subfield for `cidr` and a numeric subfield for `gt`/`gte`/`lt`/`lte` when the caller names
// them (a range on a keyword compares text, and an `ip` field cannot hold the `-` Windows writes for "no
// address"); constructs without a faithful DSL form (time-part modifiers, fieldref, regexes Lucene cannot
// express or OpenSearch would refuse, keyword searches without configured keyword fields, cidr or numeric
// comparisons without their subfield, queries over the cluster's clause limit) are refused with a reason
// instead of being approximated. Search identifiers become `_name`d clauses (matched_queries of a search).
import { ANY, ONE } from '../detection/sigma-string.js';
import type { IRNode, StrPart, Test } from '../ir.js';
import { toLuceneRegex } from './lucene-regex.js';

export type Dsl = Record<string, unknown>;

export interface DslOptions {
  /** Fields searched by keyword (field-less) detections; without them keyword rules are refused. */
  keywordFields?: string[];
  /** Most leaf clauses a query may hold: OpenSearch refuses bigger ones (`indices.query.bool.max_clause_count`,
   * 1,024 by default), so they are refused here with that reason. */
  maxClauses?: number;
  /** Name of the `ip` subfield every field compared by `cidr` has (a multi-field of type `ip` with
   * `ignore_malformed`, e.g. `ip` for `IpAddress.ip`); without it `cidr` is refused. */
  ipSubfield?: string;
  /** Name of the numeric subfield (type `double`, `ignore_malformed`) every field compared by
   * `gt`/`gte`/`lt`/`lte` has; without it those comparisons are refused. */
  numericSubfield?: string;
  /** The document field a rule's field is stored under (default: the same name), e.g. when the caller
   * encodes dots so that `a` and `a.b` can both be keyword fields. Not applied to `keywordFields`. */
  fieldName?: (field: string) => string;
  /**
   * Case-insensitive string tests: with `foldedField` and `fold`, they compare the folded value (`fold`,
   * the matcher's case fold) with the document field `foldedField(field)`, which the caller fills with
   * the folded values, case-sensitively; exact for every letter. Without them they use the field's
   * `case_insensitive`, which folds ASCII letters only.
   */
  foldedField?: (docField: string) => string;
  fold?: (text: string) => string;
}

export const DEFAULT_MAX_CLAUSES = 1024;

/** Leaf queries of a DSL tree (what the clause limit counts). */
function leafCount(q: Dsl): number {
  const bool = q.bool as { filter?: Dsl[]; should?: Dsl[]; must_not?: Dsl[] } | undefined;
  if (!bool) return 1;
  let n = 0;
  for (const list of [bool.filter, bool.should, bool.must_not]) if (list) for (const c of list) n += leafCount(c);
  return n;
}

export type DslResult = { ok: true; query: Dsl } | { ok: false; errors: string[] };

function escapeWildcard(parts: StrPart[]): string {
  return parts.map((p) => (p === ANY ? '*' : p === ONE ? '?' : (p as string).replace(/[\\*?]/g, '\\$&'))).join('');
}

function normalize(parts: StrPart[]): StrPart[] {
  const out: StrPart[] = [];
  for (const p of parts) {
    if (p === '') continue;
    if (p === ANY && out[out.length - 1] === ANY) continue;
    if (typeof p === 'string' && typeof out[out.length - 1] === 'string') out[out.length - 1] = (out[out.length - 1] as string) + p;
    else out.push(p);
  }
  return out;
}

const or = (should: Dsl[]): Dsl => (should.length === 1 ? should[0] : { bool: { should, minimum_should_match: 1 } });
const notq = (q: Dsl): Dsl => ({ bool: { must_not: [q] } });

class DslCompiler {
  errors: string[] = [];
  constructor(private readonly options: DslOptions) {}

  /** The query for one field test: `name` is the rule's field (for messages), `field` the document field queried. */
  fieldTest(name: string, test: Test, field = name): Dsl {
    switch (test.op) {
      case 'str': {
        const { foldedField, fold } = this.options;
        if (!test.cased && foldedField && fold) {
          const folded = test.parts.map((p) => (typeof p === 'string' ? fold(p) : p));
          return this.fieldTest(name, { op: 'str', parts: folded, cased: true }, foldedField(field));
        }
        const parts = normalize(test.parts);
        const ci = !test.cased;
        const wild = parts.some((p) => p === ANY || p === ONE);
        if (!wild) return { term: { [field]: { value: parts.join(''), case_insensitive: ci } } };
        if (parts.length === 1 && parts[0] === ANY) return { exists: { field } };
        if (parts.length === 2 && parts[1] === ANY && typeof parts[0] === 'string') {
          return { prefix: { [field]: { value: parts[0], case_insensitive: ci } } };
        }
        return { wildcard: { [field]: { value: escapeWildcard(parts), case_insensitive: ci } } };
      }
      case 'num':
        return { term: { [field]: test.n } };
      case 'bool':
        // The matcher also takes the strings "true"/"false" in any case; a keyword field holds JSON
        // booleans as "true"/"false".
        return { term: { [field]: { value: test.b ? 'true' : 'false', case_insensitive: true } } };
      case 'null':
        return notq({ exists: { field } });
      case 'exists':
        return test.b ? { exists: { field } } : notq({ exists: { field } });
      case 're': {
        const r = toLuceneRegex(test.source, test);
        if (!r.ok) {
          this.errors.push(`${name}: regex /${test.source}/: ${r.message}`);
          return { match_none: {} };
        }
        return { regexp: { [field]: { value: r.source, flags: 'NONE', case_insensitive: r.caseInsensitive } } };
      }
      case 'cidr': {
        const sub = this.options.ipSubfield;
        if (!sub) {
          this.errors.push(`${name}: cidr needs an ip-typed subfield of the field (ipSubfield)`);
          return { match_none: {} };
        }
        return { term: { [`${field}.${sub}`]: test.text } };
      }
      case 'cmp': {
        const sub = this.options.numericSubfield;
        if (!sub) {
          this.errors.push(`${name}: ${test.cmp} needs a numeric subfield of the field (numericSubfield); on a keyword it would compare text`);
          return { match_none: {} };
        }
        return { range: { [`${field}.${sub}`]: { [test.cmp]: test.n } } };
      }
      case 'time':
        this.errors.push(`${name}: the ${test.part} modifier has no OpenSearch DSL equivalent`);
        return { match_none: {} };
      case 'fieldref':
        this.errors.push(`${name}: fieldref needs a script query and is not compiled`);
        return { match_none: {} };
    }
  }

  private doc(field: string): string {
    return this.options.fieldName ? this.options.fieldName(field) : field;
  }

  node(n: IRNode): Dsl {
    switch (n.t) {
      case 'const':
        return n.v ? { match_all: {} } : { match_none: {} };
      case 'and':
        return { bool: { filter: n.of.map((c) => this.node(c)) } };
      case 'or':
        return or(n.of.map((c) => this.node(c)));
      case 'not':
        return notq(this.node(n.of));
      case 'sel':
        return { bool: { filter: [this.node(n.of)], _name: n.name } };
      case 'match': {
        if (n.test.op === 'null') {
          // null: "no non-null value" on at least one of the fields
          return or((n.fields ?? []).map((f) => this.fieldTest(f, n.test, this.doc(f))));
        }
        if (n.fields) return or(n.fields.map((f) => this.fieldTest(f, n.test, this.doc(f))));
        const fields = this.options.keywordFields;
        if (!fields || fields.length === 0) {
          this.errors.push('keyword search: configure keywordFields to compile keyword detections');
          return { match_none: {} };
        }
        return or(fields.map((f) => this.fieldTest(f, n.test)));
      }
    }
  }
}

export function compileDsl(ir: IRNode, options: DslOptions = {}): DslResult {
  const c = new DslCompiler(options);
  const query = c.node(ir);
  const max = options.maxClauses ?? DEFAULT_MAX_CLAUSES;
  const clauses = leafCount(query);
  if (clauses > max) c.errors.push(`the query needs ${clauses} clauses; OpenSearch allows ${max} (indices.query.bool.max_clause_count)`);
  return c.errors.length ? { ok: false, errors: c.errors } : { ok: true, query };
}

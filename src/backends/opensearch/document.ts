// How rules and events look inside OpenSearch. Every field a rule reads is one `keyword` field of the
// percolator index (dots, `%` and a leading `_` escaped, so `user` and `user.name` can both be fields
// and no event field can shadow a metadata field), with an `ip` subfield for `cidr` and a `num` subfield
// for numeric comparisons. An event is percolated as its projection onto those fields: the values read
// with the same accessors as the embedded matcher (flat or nested keys, arrays fanned out), scalars only,
// so an event can never clash with the mapping; field-less (keyword) searches read one more field that
// holds every scalar value of the event. A field compared case-insensitively also has a folded twin
// (`<field>%f`) holding its values case-folded by the matcher's own fold, compared case-sensitively:
// OpenSearch's `case_insensitive` folds ASCII letters only, and its automata cost far more to build.
import { eachLeaf, foldCase, makeAccessor, type Accessor, type DslOptions, type IRNode } from '../../sigma/index.js';

export const IP_SUBFIELD = 'ip';
export const NUMERIC_SUBFIELD = 'num';
// The service's own fields start with `%` followed by a letter, which no escaped rule field can (every
// `%` of a rule field becomes `%25`), so a rule field named `query` or `rule_id` never clashes with them.
/** The field holding every scalar value of an event, for keyword (field-less) searches. */
export const KEYWORDS_FIELD = '%keywords';
/** The percolator field (the rule's query) of a stored query document. */
export const QUERY_FIELD = '%query';
export const RULE_ID_FIELD = '%rule_id';
export const RULE_VERSION_FIELD = '%rule_version';
/** Values kept per field of one event (an event with more is cut there; see docs/opensearch.md). */
const MAX_VALUES_PER_FIELD = 1_000;

/** The twin of a document field holding its values case-folded. */
export const foldedField = (docField: string) => `${docField}%f`;

/** The document field a rule field is stored under. */
export function documentField(field: string): string {
  const escaped = field.replace(/%/g, '%25').replace(/\./g, '%2E');
  return escaped.startsWith('_') ? `%5F${escaped.slice(1)}` : escaped;
}

/** The DSL compiler's options for this document layout. */
export const DSL_OPTIONS: DslOptions = {
  keywordFields: [KEYWORDS_FIELD],
  ipSubfield: IP_SUBFIELD,
  numericSubfield: NUMERIC_SUBFIELD,
  fieldName: documentField,
  foldedField,
  fold: foldCase,
};

const IP_MAPPING = { type: 'ip', ignore_malformed: true };
const NUMERIC_MAPPING = { type: 'double', ignore_malformed: true };
const KEYWORD_MAPPING = { type: 'keyword' };

/**
 * The fields a detection reads (rule field names): those it compares case-insensitively, by `cidr` and
 * by number; and whether it searches keywords (values of any field), case-insensitively or not.
 */
export interface FieldUse {
  fields: Set<string>;
  folded: Set<string>;
  ip: Set<string>;
  numeric: Set<string>;
  keywords: boolean;
  keywordsFolded: boolean;
}

export const noFieldUse = (): FieldUse => ({ fields: new Set(), folded: new Set(), ip: new Set(), numeric: new Set(), keywords: false, keywordsFolded: false });

/**
 * The document fields a use needs, with their mappings: a keyword per field, with the `ip` and `num`
 * subfields only where a rule compares addresses or numbers (every subfield costs the node a parse of
 * every value it is sent); the folded twins; the keywords field and its twin.
 */
export function mappingsOf(use: FieldUse): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  for (const f of use.fields) {
    const fields: Record<string, unknown> = {};
    if (use.ip.has(f)) fields[IP_SUBFIELD] = IP_MAPPING;
    if (use.numeric.has(f)) fields[NUMERIC_SUBFIELD] = NUMERIC_MAPPING;
    out.set(documentField(f), Object.keys(fields).length > 0 ? { ...KEYWORD_MAPPING, fields } : KEYWORD_MAPPING);
  }
  for (const f of use.folded) out.set(foldedField(documentField(f)), KEYWORD_MAPPING);
  if (use.keywords) out.set(KEYWORDS_FIELD, KEYWORD_MAPPING);
  if (use.keywordsFolded) out.set(foldedField(KEYWORDS_FIELD), KEYWORD_MAPPING);
  return out;
}

export function fieldsOf(ir: IRNode, into: FieldUse = noFieldUse()): FieldUse {
  switch (ir.t) {
    case 'const':
      break;
    case 'and':
    case 'or':
      for (const c of ir.of) fieldsOf(c, into);
      break;
    case 'not':
    case 'sel':
      fieldsOf(ir.of, into);
      break;
    case 'match': {
      const folded = ir.test.op === 'str' && !ir.test.cased;
      if (ir.fields) {
        for (const f of ir.fields) {
          into.fields.add(f);
          if (folded) into.folded.add(f);
          if (ir.test.op === 'cidr') into.ip.add(f);
          if (ir.test.op === 'cmp') into.numeric.add(f);
        }
      } else {
        into.keywords = true;
        if (folded) into.keywordsFolded = true;
      }
      break;
    }
  }
  return into;
}

const isScalar = (v: unknown): v is Scalar => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** Projects events onto the fields of one percolator index's rules. */
export class EventProjection {
  /** Per rule field: its document field, its folded twin when one is needed, and its accessor. */
  private readonly fields: Array<[string, string | undefined, Accessor]>;
  private readonly keywords: boolean;
  private readonly keywordsFolded: boolean;

  constructor(use: FieldUse) {
    this.fields = [...use.fields].sort().map((f) => [documentField(f), use.folded.has(f) ? foldedField(documentField(f)) : undefined, makeAccessor(f)]);
    this.keywords = use.keywords;
    this.keywordsFolded = use.keywordsFolded;
  }

  /** The event's document; `keywords: false` leaves out the keywords field (no keyword rule is a candidate). */
  project(event: object, keywords = true): Record<string, unknown> {
    const doc: Record<string, unknown> = {};
    for (const [name, folded, accessor] of this.fields) {
      const values: Scalar[] = [];
      accessor.each(event, (v) => {
        if (isScalar(v)) values.push(v);
        return values.length >= MAX_VALUES_PER_FIELD;
      });
      put(doc, name, folded, values);
    }
    if (this.keywords && keywords) {
      const values: Scalar[] = [];
      eachLeaf(event, (v) => {
        if (isScalar(v)) values.push(v);
        return values.length >= MAX_VALUES_PER_FIELD;
      });
      put(doc, KEYWORDS_FIELD, this.keywordsFolded ? foldedField(KEYWORDS_FIELD) : undefined, values);
    }
    return doc;
  }
}

type Scalar = string | number | boolean;

function put(doc: Record<string, unknown>, name: string, folded: string | undefined, values: Scalar[]): void {
  if (values.length === 0) return;
  doc[name] = values.length === 1 ? values[0] : values;
  if (folded) {
    // A keyword field holds numbers and booleans as their JSON text; the fold applies to that text.
    const texts = values.map((v) => foldCase(typeof v === 'string' ? v : String(v)));
    doc[folded] = texts.length === 1 ? texts[0] : texts;
  }
}

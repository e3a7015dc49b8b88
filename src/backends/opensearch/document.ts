// How rules and events look inside OpenSearch. Every field a rule reads is one `keyword` field of the
// percolator index (dots, `%` and a leading `_` escaped, so `user` and `user.name` can both be fields
// and no event field can shadow a metadata field), with an `ip` subfield for `cidr` and a `num` subfield
// for numeric comparisons. An event is percolated as its projection onto those fields: the values read
// with the same accessors as the embedded matcher (flat or nested keys, arrays fanned out), scalars only,
// so an event can never clash with the mapping; field-less (keyword) searches read one more field that
// holds every scalar value of the event.
import { eachLeaf, makeAccessor, type Accessor, type DslOptions, type IRNode } from '../../sigma/index.js';

export const IP_SUBFIELD = 'ip';
export const NUMERIC_SUBFIELD = 'num';
/** The field holding every scalar value of an event, for keyword (field-less) searches. */
export const KEYWORDS_FIELD = '%keywords';
/** Values kept per field of one event (an event with more is cut there; see docs/opensearch.md). */
const MAX_VALUES_PER_FIELD = 1_000;

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
};

/** The mapping of one rule field. */
export function fieldMapping(): Record<string, unknown> {
  return {
    type: 'keyword',
    fields: {
      [IP_SUBFIELD]: { type: 'ip', ignore_malformed: true },
      [NUMERIC_SUBFIELD]: { type: 'double', ignore_malformed: true },
    },
  };
}

/** The fields a detection reads, and whether it searches keywords (values of any field). */
export interface FieldUse {
  fields: Set<string>;
  keywords: boolean;
}

export function fieldsOf(ir: IRNode, into: FieldUse = { fields: new Set(), keywords: false }): FieldUse {
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
    case 'match':
      if (ir.fields) for (const f of ir.fields) into.fields.add(f);
      else into.keywords = true;
      break;
  }
  return into;
}

const isScalar = (v: unknown) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** Projects events onto the fields of one percolator index's rules. */
export class EventProjection {
  private readonly accessors: Array<[string, Accessor]>;

  constructor(
    use: FieldUse,
    private readonly keywords = use.keywords,
  ) {
    this.accessors = [...use.fields].sort().map((f) => [documentField(f), makeAccessor(f)]);
  }

  project(event: object): Record<string, unknown> {
    const doc: Record<string, unknown> = {};
    for (const [name, accessor] of this.accessors) {
      const values: unknown[] = [];
      accessor.each(event, (v) => {
        if (isScalar(v)) values.push(v);
        return values.length >= MAX_VALUES_PER_FIELD;
      });
      if (values.length > 0) doc[name] = values.length === 1 ? values[0] : values;
    }
    if (this.keywords) {
      const values: unknown[] = [];
      eachLeaf(event, (v) => {
        if (isScalar(v)) values.push(v);
        return values.length >= MAX_VALUES_PER_FIELD;
      });
      if (values.length > 0) doc[KEYWORDS_FIELD] = values;
    }
    return doc;
  }
}

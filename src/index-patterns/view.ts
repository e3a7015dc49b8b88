// The public shape of an index pattern (the ingest token appears only when created or rotated).
import { Type } from '@fastify/type-provider-typebox';
import { StringEnum, Timestamp, Uuid } from '../http/schemas.js';
import { percolatorIndexName } from '../backends/backend.js';
import { effectiveEntityFields } from './entity-fields.js';
import type { IndexPatternRow } from './store.js';

export const PATTERN_NAME_RULE = '^[a-z0-9][a-z0-9._-]{0,99}$';

export const FieldMappingSchema = Type.Object(
  {
    sigma_field: Type.String({ minLength: 1, maxLength: 256 }),
    target_field: Type.String({ minLength: 1, maxLength: 256 }),
  },
  { additionalProperties: false },
);

const FieldList = Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: 50 });
export const EntityFieldsSchema = Type.Object(
  { source_ip: Type.Optional(FieldList), user: Type.Optional(FieldList), host: Type.Optional(FieldList) },
  { additionalProperties: false },
);

/** Bounds: 200 placeholder names of up to 100 characters (no `%`), each with 1 to 1000 values of up to
 * 1000 characters. */
export const PlaceholdersSchema = Type.Record(
  Type.String(),
  Type.Array(Type.String({ minLength: 1, maxLength: 1000 }), { minItems: 1, maxItems: 1000 }),
  {
    maxProperties: 200,
    description:
      'Values of Sigma %placeholder% names (the expand modifier): name → values, OR-linked. Values are Sigma strings: * and ? are wildcards, \\* and \\? literal.',
  },
);

const ScopeValue = Type.String({ minLength: 1, maxLength: 100, pattern: '^[a-z0-9][a-z0-9_.-]*$' });
export const LogsourceScopeEntrySchema = Type.Object(
  { product: Type.Optional(ScopeValue), category: Type.Optional(ScopeValue), service: Type.Optional(ScopeValue) },
  { additionalProperties: false, minProperties: 1 },
);
export const LogsourceScopeSchema = Type.Union([Type.Array(LogsourceScopeEntrySchema, { maxItems: 100 }), Type.Null()], {
  description: 'The log sources the events come from ([{product: "windows"}, {category: "process_creation"}]); null or [] = any',
});

export const IndexPatternSchema = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    description: Type.String(),
    timestamp_field: Type.String(),
    default_mapping: StringEnum(['identity', 'none'] as const),
    field_mappings: Type.Array(FieldMappingSchema),
    preset: Type.Union([Type.String(), Type.Null()]),
    is_default: Type.Boolean(),
    retention_days: Type.Integer(),
    entity_fields: Type.Object({ source_ip: Type.Array(Type.String()), user: Type.Array(Type.String()), host: Type.Array(Type.String()) }),
    placeholders: Type.Record(Type.String(), Type.Array(Type.String())),
    logsource_scope: Type.Union([Type.Array(LogsourceScopeEntrySchema), Type.Null()]),
    percolator_index: Type.String(),
    ingest_token_prefix: Type.String({ description: 'The first characters of the ingest token, to recognise it' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { description: 'An index pattern: where events arrive and how Sigma fields map onto them' },
);

export const IndexPatternWithTokenSchema = Type.Object({
  ...IndexPatternSchema.properties,
  ingest_token: Type.String({ description: 'Shown only in this response' }),
});

export function patternView(row: IndexPatternRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    timestamp_field: row.timestamp_field,
    default_mapping: row.default_mapping,
    field_mappings: row.field_mappings,
    preset: row.preset,
    is_default: row.is_default,
    retention_days: row.retention_days,
    entity_fields: effectiveEntityFields(row.entity_fields),
    placeholders: row.placeholders ?? {},
    logsource_scope: row.logsource_scope && row.logsource_scope.length > 0 ? row.logsource_scope : null,
    percolator_index: percolatorIndexName(row.name),
    ingest_token_prefix: row.ingest_token_prefix,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

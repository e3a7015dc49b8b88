// The shapes of rule exceptions on the wire (they validate input, serialise output and make the OpenAPI
// description): an exception as answered, the fields a new one is made of, and its view of a row.
import { Type } from '@fastify/type-provider-typebox';
import { Nullable, StringEnum, Timestamp, Uuid } from '../../http/schemas.js';
import { EXCEPTION_OPERATORS, isExpired } from './matcher.js';
import type { ExceptionRow } from './store.js';

export const Value = Type.Union([Type.String({ minLength: 1, maxLength: 4096 }), Type.Array(Type.String({ maxLength: 4096 }), { minItems: 1, maxItems: 1000 })]);
export const Field = Type.String({ minLength: 1, maxLength: 256 });
export const Reason = Type.String({ maxLength: 2000 });
export const ExpiresAt = Type.String({ format: 'date-time', description: 'When the exception stops applying (must be in the future); it stays listed, as expired' });

/** The fields of a new exception (creation and preview take them). */
export const newExceptionFields = {
  field: Field,
  operator: StringEnum(EXCEPTION_OPERATORS),
  value: Value,
  reason: Type.Optional(Reason),
  enabled: Type.Optional(Type.Boolean()),
  expires_at: Type.Optional(ExpiresAt),
};

const exceptionFields = {
    id: Uuid,
    rule_id: Uuid,
    field: Type.String(),
    operator: StringEnum(EXCEPTION_OPERATORS),
    value: Type.Union([Type.String(), Type.Array(Type.String())]),
    reason: Type.String(),
    enabled: Type.Boolean(),
    created_by: Type.String(),
    created_at: Timestamp,
    updated_at: Timestamp,
    expires_at: Nullable(Timestamp),
    expired: Type.Boolean({ description: 'Past expires_at: it suppresses nothing any more' }),
    hit_count: Type.Integer({ description: 'Matches it suppressed at ingest' }),
    last_hit_at: Nullable(Timestamp),
};

export const ExceptionSchema = Type.Object(exceptionFields, { description: 'A rule exception' });

/** A created exception, with how many open alerts it closed when asked to. */
export const CreatedExceptionSchema = Type.Object(
  { ...exceptionFields, closed_alerts: Type.Optional(Type.Integer({ description: 'Open alerts closed as false positives (with close_matching)' })) },
  { description: 'A rule exception, as created' },
);

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export const exceptionView = (row: ExceptionRow) => ({
  id: row.id,
  rule_id: row.rule_id,
  field: row.field,
  operator: row.operator,
  value: row.value,
  reason: row.reason,
  enabled: row.enabled,
  created_by: row.created_by,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
  expires_at: iso(row.expires_at),
  expired: isExpired({ expires_at: iso(row.expires_at) }),
  hit_count: Number(row.hit_count),
  last_hit_at: iso(row.last_hit_at),
});

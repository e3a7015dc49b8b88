// Schema building blocks shared by every route: errors, ids, timestamps, string enums.
import { Type, type TSchema } from '@fastify/type-provider-typebox';

/** A string restricted to the given values (rendered as a plain JSON-Schema enum). */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

export const Uuid = Type.String({ format: 'uuid' });
export const Timestamp = Type.String({ format: 'date-time' });

export const FieldErrorSchema = Type.Object({ field: Type.String(), message: Type.String() });

export const ErrorBody = Type.Object(
  {
    detail: Type.String(),
    status_code: Type.Integer(),
    errors: Type.Optional(Type.Array(FieldErrorSchema)),
  },
  { $id: 'Error', description: 'Every error: a human-readable detail and the HTTP status.' },
);

export const IdParams = Type.Object({ id: Uuid });

/** Standard error responses for a route, so the OpenAPI document lists them. */
export function errorResponses(...codes: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const code of codes) out[code] = Type.Ref('Error');
  return out;
}

export const Empty = Type.Null({ description: 'No content' });

/** A value that may be null. */
export const Nullable = <T extends TSchema>(schema: T, options: Record<string, unknown> = {}) => Type.Union([schema, Type.Null()], options);

/** Bulk requests: 1 to 1000 ids. */
export const BulkIds = Type.Object(
  { ids: Type.Array(Type.String({ maxLength: 100 }), { minItems: 1, maxItems: 1000 }) },
  { additionalProperties: false },
);
export const BulkFailure = Type.Object({ id: Type.String(), error: Type.String() });
export const BulkSkip = Type.Object({ id: Type.String(), reason: Type.String() });

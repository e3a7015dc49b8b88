// The API shape of a threat-intel feed (list items and the creation answer).
import { Type } from '@fastify/type-provider-typebox';
import { Nullable, StringEnum, Uuid } from '../http/schemas.js';
import { FEED_FORMATS } from './formats/index.js';
import { INDICATOR_TYPES } from './indicators.js';
import type { FeedRow } from './store.js';

export const FeedSchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  format: StringEnum(FEED_FORMATS),
  type: Nullable(StringEnum(INDICATOR_TYPES)),
  risk_score: Type.Integer({ minimum: 0, maximum: 100, description: 'score of indicators that carry none of their own' }),
  indicators: Type.Integer({ description: 'valid indicators stored (after de-duplication)' }),
  rejected: Type.Integer({ description: 'entries of the upload rejected as invalid' }),
  indicator_types: Type.Record(Type.String(), Type.Integer(), { description: 'indicators per type' }),
  created_by: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
});

export const CreatedFeedSchema = Type.Object({
  ...FeedSchema.properties,
  skipped: Type.Integer({ description: 'entries that are not indicators (context attributes, revoked or expired indicators, unsupported types)' }),
  problems: Type.Array(Type.Object({ at: Type.String(), reason: Type.String() }), { description: 'the first rejected entries and why' }),
});

export function feedView(row: FeedRow) {
  return {
    id: row.id,
    name: row.name,
    format: row.format as (typeof FEED_FORMATS)[number],
    type: row.type as (typeof INDICATOR_TYPES)[number] | null,
    risk_score: row.risk_score,
    indicators: row.indicator_count,
    rejected: row.rejected_count,
    indicator_types: row.type_counts,
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
  };
}

// The public shapes of channels and deliveries: a channel's secret settings read "***", its health
// says whether its last attempts failed.
import { Type } from '@fastify/type-provider-typebox';
import { SEVERITIES, type Severity } from '../alerts/severity.js';
import { Nullable, StringEnum, Timestamp, Uuid } from '../http/schemas.js';
import { CHANNEL_TYPES, maskedConfig } from './channel-types.js';
import { UNHEALTHY_AFTER, type ChannelRow } from './channel-store.js';
import { DELIVERY_STATUSES, type DeliveryRow } from './delivery-store.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const HEALTHS = ['healthy', 'unhealthy', 'unknown'] as const;

export const ChannelSchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  type: StringEnum(CHANNEL_TYPES),
  config: Type.Record(Type.String(), Type.Unknown(), { description: 'The settings of the type; secret ones read "***"' }),
  enabled: Type.Boolean(),
  min_severity: StringEnum(SEVERITIES),
  index_patterns: Nullable(Type.Array(Type.String({ description: 'An index pattern name it admits (none: all)' }))),
  rule_tags: Nullable(Type.Array(Type.String({ description: 'A rule tag it admits, any of them (none: all)' }))),
  max_per_rule: Type.Integer({ description: 'Messages per rule per window; the rest go out as one digest' }),
  window_seconds: Type.Integer(),
  health: StringEnum(HEALTHS, { description: `unhealthy after ${UNHEALTHY_AFTER} failed attempts in a row; unknown before any attempt` }),
  last_delivered_at: Nullable(Timestamp),
  last_error: Nullable(Type.String()),
  failing_since: Nullable(Timestamp),
  created_by: Nullable(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export function channelView(row: ChannelRow, secretNames: string[]) {
  const health: (typeof HEALTHS)[number] =
    row.consecutive_failures >= UNHEALTHY_AFTER ? 'unhealthy' : row.last_delivered_at || row.consecutive_failures > 0 ? 'healthy' : 'unknown';
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    config: maskedConfig(row.type, row.config, secretNames),
    enabled: row.enabled,
    min_severity: row.min_severity as Severity,
    index_patterns: row.index_patterns,
    rule_tags: row.rule_tags,
    max_per_rule: row.max_per_rule,
    window_seconds: row.throttle_window_seconds,
    health,
    last_delivered_at: iso(row.last_delivered_at),
    last_error: row.last_error,
    failing_since: iso(row.failing_since),
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export const DeliverySchema = Type.Object({
  id: Uuid,
  channel_id: Uuid,
  alert_id: Nullable(Uuid),
  rule_id: Nullable(Uuid),
  kind: StringEnum(['alert', 'digest', 'test'] as const),
  status: StringEnum(DELIVERY_STATUSES),
  attempts: Type.Integer(),
  last_error: Nullable(Type.String()),
  last_status_code: Nullable(Type.Integer()),
  next_retry_at: Nullable(Timestamp),
  give_up_at: Timestamp,
  digest: Nullable(Type.Record(Type.String(), Type.Unknown())),
  created_at: Timestamp,
  delivered_at: Nullable(Timestamp),
});

export function deliveryView(row: DeliveryRow) {
  return {
    id: row.id,
    channel_id: row.channel_id,
    alert_id: row.alert_id,
    rule_id: row.rule_id,
    kind: row.kind,
    status: row.status,
    attempts: row.attempts,
    last_error: row.last_error,
    last_status_code: row.last_status_code,
    next_retry_at: row.status === 'pending' ? row.next_attempt_at.toISOString() : null,
    give_up_at: row.give_up_at.toISOString(),
    digest: row.digest,
    created_at: row.created_at.toISOString(),
    delivered_at: iso(row.delivered_at),
  };
}

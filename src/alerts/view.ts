// The public shape of an alert (list item and full record), of the answer to a status change, and of
// a comment. Optional entities, enrichment and acknowledgement are left out when the alert has none.
import { Type } from '@fastify/type-provider-typebox';
import { exactNumbersIn, wireValue, withNumbersOf } from '../http/exact-json.js';
import { Nullable, StringEnum, Timestamp, Uuid } from '../http/schemas.js';
import { SEVERITIES } from './severity.js';
import type { AlertDetailRow, AlertRow, CommentRow } from './queries.js';

export const ALERT_STATUSES = ['new', 'acknowledged', 'resolved', 'false_positive'] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];

export const AlertStatusSchema = StringEnum(ALERT_STATUSES);

const EnrichmentSchema = Type.Object(
  {
    risk_level: Type.String(),
    risk_score: Type.Integer(),
    indicators: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: true, description: 'Threat-intelligence enrichment: the indicators the event carries and the risk they add up to' },
);

const CorrelationSchema = Type.Object(
  {
    rule_id: Uuid,
    type: Type.String({ description: 'The correlation type (event_count, value_count, temporal, ...)' }),
    group: Type.Record(Type.String(), Type.Unknown(), { description: 'The group-by values of the window that fired (a missing field is null)' }),
    window_start: Timestamp,
    window_end: Timestamp,
    value: Type.Number({ description: 'The count, distinct count, number of rules seen, sum, average or percentile the condition held for' }),
    event_count: Type.Integer({ description: 'Rule matches in the window' }),
    event_ids: Type.Array(Type.String(), { description: 'Contributing events (their content hashes), at most 100' }),
    base_alert_ids: Type.Array(Uuid, { description: 'Alerts the contributing events raised of their own, where those exist' }),
  },
  { additionalProperties: true, description: 'A correlation alert: the window that fired' },
);

const alertProperties = {
  id: Uuid,
  rule_id: Uuid,
  rule_title: Type.String(),
  severity: StringEnum(SEVERITIES),
  level: Type.String({ description: 'The Sigma level of the rule' }),
  status: AlertStatusSchema,
  tags: Type.Array(Type.String()),
  index_pattern: Type.String({ description: 'Name of the index pattern the event was ingested through' }),
  event_time: Timestamp,
  created_at: Timestamp,
  updated_at: Timestamp,
  source_ip: Type.Optional(Type.String()),
  user: Type.Optional(Type.String()),
  host: Type.Optional(Type.String()),
  enrichment: Type.Optional(EnrichmentSchema),
  acknowledged_at: Type.Optional(Timestamp),
  acknowledged_by: Type.Optional(Type.String()),
  correlation: Type.Optional(CorrelationSchema),
  occurrences: Type.Integer({ description: 'Matches this alert stands for: 1, or more when its rule suppresses repeated matches into it' }),
  last_seen_at: Timestamp,
  assignee: Nullable(Uuid, { description: 'The user who owns the alert (null: no one)' }),
  assignee_name: Type.Optional(Type.String({ description: "The assignee's username" })),
  suppression_group: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), { description: "The values of the rule's group-by fields that this alert takes further matches of (a missing field is null)" }),
  ),
};

export const AlertSchema = Type.Object(alertProperties, { description: 'An alert (list item: without the event)' });

export const AlertDetailSchema = Type.Object(
  {
    ...alertProperties,
    event: Type.Record(Type.String(), Type.Unknown(), { description: 'The matched event as stored' }),
    matched_conditions: Type.Array(Type.Record(Type.String(), Type.Unknown()), {
      description: 'For each selection that held: {<selection name>: {<field>: <event value>}}',
    }),
    comments_count: Type.Integer(),
    event_ids: Type.Array(Type.String(), { description: 'The events (content hashes) this alert stands for, the first 100, oldest first' }),
  },
  { description: 'An alert with its event, the selections that matched and the number of comments' },
);

export const StatusChangeSchema = Type.Object({
  id: Uuid,
  status: AlertStatusSchema,
  acknowledged_at: Nullable(Timestamp),
  acknowledged_by: Nullable(Type.String()),
  assignee: Nullable(Uuid),
  comment_added: Type.Boolean(),
});

export const CommentSchema = Type.Object(
  { id: Uuid, alert_id: Uuid, user: Type.String(), text: Type.String(), created_at: Timestamp },
  { description: 'A comment on an alert' },
);

export function alertView(row: AlertRow) {
  return {
    id: row.id,
    rule_id: row.rule_id,
    rule_title: row.rule_title,
    severity: row.severity,
    level: row.level,
    status: row.status,
    tags: row.tags,
    index_pattern: row.index_pattern,
    event_time: row.event_time.toISOString(),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    ...(row.source_ip !== null ? { source_ip: row.source_ip } : {}),
    ...(row.user !== null ? { user: row.user } : {}),
    ...(row.host !== null ? { host: row.host } : {}),
    ...(row.enrichment !== null ? { enrichment: row.enrichment } : {}),
    ...(row.acknowledged_at !== null ? { acknowledged_at: row.acknowledged_at.toISOString() } : {}),
    ...(row.acknowledged_by !== null ? { acknowledged_by: row.acknowledged_by } : {}),
    ...(row.correlation ? { correlation: row.correlation } : {}),
    occurrences: row.occurrences,
    last_seen_at: row.last_seen_at.toISOString(),
    assignee: row.assignee,
    ...(row.assignee_name ? { assignee_name: row.assignee_name } : {}),
    ...(row.suppression_group ? { suppression_group: row.suppression_group } : {}),
  };
}

export function alertDetailView(row: AlertDetailRow, eventIds: string[]) {
  // Numbers past a double's precision go out with their digits as sent (exact-json.ts), in the event
  // and among the values the rule matched (read from it).
  const numbers = exactNumbersIn(row.event);
  return { ...alertView(row), event: wireValue(row.event), matched_conditions: withNumbersOf(row.matched_conditions, numbers), comments_count: row.comments_count, event_ids: eventIds };
}

export function commentView(row: CommentRow) {
  return { id: row.id, alert_id: row.alert_id, user: row.user, text: row.text, created_at: row.created_at.toISOString() };
}

// SQL for notification channels: the row as stored (its secret settings sealed in secrets_enc) and
// the health bookkeeping the sender updates after each attempt (which says when a channel turns
// unhealthy and when it recovers).
import type { Queryable } from '../db/database.js';
import type { ChannelType } from './channel-types.js';

export interface ChannelRow {
  id: string;
  name: string;
  type: ChannelType;
  config: Record<string, unknown>;
  secrets_enc: string | null;
  enabled: boolean;
  min_severity: string;
  index_patterns: string[] | null;
  rule_tags: string[] | null;
  max_per_rule: number;
  throttle_window_seconds: number;
  failing_since: Date | null;
  consecutive_failures: number;
  last_delivered_at: Date | null;
  last_error: string | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
  [key: string]: unknown;
}

export const CHANNEL_COLUMNS = `id, name, type, config, secrets_enc, enabled, min_severity, index_patterns, rule_tags, max_per_rule,
  throttle_window_seconds, failing_since, consecutive_failures, last_delivered_at, last_error, created_by, created_at, updated_at`;

export async function findChannel(db: Queryable, id: string): Promise<ChannelRow | undefined> {
  const [row] = await db.query<ChannelRow>(`SELECT ${CHANNEL_COLUMNS} FROM notification_channels WHERE id = $1`, [id]);
  return row;
}

/** What a channel is saved with (all settings; the secret ones already sealed). */
export interface ChannelValues {
  name: string;
  type: ChannelType;
  config: Record<string, unknown>;
  secretsEnc: string | null;
  enabled: boolean;
  minSeverity: string;
  minSeverityRank: number;
  indexPatterns: string[] | null;
  ruleTags: string[] | null;
  maxPerRule: number;
  windowSeconds: number;
}

const valuesOf = (v: ChannelValues) => [
  v.name, v.type, JSON.stringify(v.config), v.secretsEnc, v.enabled, v.minSeverity, v.minSeverityRank, v.indexPatterns, v.ruleTags, v.maxPerRule, v.windowSeconds,
];

export async function insertChannel(db: Queryable, id: string, values: ChannelValues, createdBy: string): Promise<ChannelRow> {
  const [row] = await db.query<ChannelRow>(
    `INSERT INTO notification_channels (id, name, type, config, secrets_enc, enabled, min_severity, min_severity_rank, index_patterns, rule_tags,
       max_per_rule, throttle_window_seconds, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING ${CHANNEL_COLUMNS}`,
    [id, ...valuesOf(values), createdBy],
  );
  return row;
}

export async function updateChannel(db: Queryable, id: string, values: ChannelValues): Promise<ChannelRow> {
  const [row] = await db.query<ChannelRow>(
    `UPDATE notification_channels SET name = $2, type = $3, config = $4, secrets_enc = $5, enabled = $6, min_severity = $7, min_severity_rank = $8,
       index_patterns = $9, rule_tags = $10, max_per_rule = $11, throttle_window_seconds = $12, updated_at = now()
     WHERE id = $1 RETURNING ${CHANNEL_COLUMNS}`,
    [id, ...valuesOf(values)],
  );
  return row;
}

export async function deleteChannel(db: Queryable, id: string): Promise<boolean> {
  return (await db.query('DELETE FROM notification_channels WHERE id = $1 RETURNING id', [id])).length > 0;
}

/** What an attempt's outcome changed in its channel's health: nothing, or the turn of a period. */
export type HealthTurn = 'unhealthy' | 'recovered' | null;

/**
 * Records an attempt's outcome on its channel; answers 'unhealthy' for the failure that made it so and
 * 'recovered' for the first delivery after it was, each once per unhealthy period whichever instance
 * records it (the row's own update decides).
 */
export async function recordChannelOutcome(db: Queryable, id: string, error: string | null): Promise<HealthTurn> {
  if (error === null) {
    const [row] = await db.query<{ was: number }>(
      `UPDATE notification_channels c SET consecutive_failures = 0, failing_since = NULL, last_delivered_at = now(), last_error = NULL
         FROM (SELECT id, consecutive_failures AS was FROM notification_channels WHERE id = $1 FOR UPDATE) before
        WHERE c.id = before.id RETURNING before.was`,
      [id],
    );
    return row && row.was >= UNHEALTHY_AFTER ? 'recovered' : null;
  }
  const [row] = await db.query<{ consecutive_failures: number }>(
    `UPDATE notification_channels SET consecutive_failures = consecutive_failures + 1, failing_since = coalesce(failing_since, now()), last_error = $2
     WHERE id = $1 RETURNING consecutive_failures`,
    [id, error.slice(0, 1000)],
  );
  return row?.consecutive_failures === UNHEALTHY_AFTER ? 'unhealthy' : null;
}

/** Failed attempts in a row after which a channel reads as unhealthy. */
export const UNHEALTHY_AFTER = 3;

// Migration 16: notifications. A channel is where alerts are sent (a webhook, a chat, mail, syslog),
// with what it admits (minimum severity, index patterns, rule tags) and how much it lets through per rule;
// its secret settings are kept sealed (secrets_enc). A delivery is one alert (or digest, or test message)
// for one channel: written in the alert's own transaction (the outbox), claimed by one instance for a
// short lease while it sends, retried with backoff until it is delivered or given up.
export const sql = `
CREATE TABLE notification_channels (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  type text NOT NULL,
  config jsonb NOT NULL,
  secrets_enc text,
  enabled boolean NOT NULL DEFAULT true,
  min_severity text NOT NULL,
  min_severity_rank integer NOT NULL,
  index_patterns text[],
  rule_tags text[],
  max_per_rule integer NOT NULL,
  throttle_window_seconds integer NOT NULL,
  failing_since timestamptz,
  consecutive_failures integer NOT NULL DEFAULT 0,
  last_delivered_at timestamptz,
  last_error text,
  created_by text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX notification_channels_name_idx ON notification_channels (lower(name));

CREATE TABLE notification_deliveries (
  id uuid PRIMARY KEY,
  channel_id uuid NOT NULL REFERENCES notification_channels (id) ON DELETE CASCADE,
  alert_id uuid REFERENCES alerts (id) ON DELETE CASCADE,
  rule_id uuid,
  kind text NOT NULL DEFAULT 'alert',
  status text NOT NULL DEFAULT 'pending',
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  give_up_at timestamptz NOT NULL DEFAULT now() + interval '24 hours',
  leased_until timestamptz,
  last_error text,
  last_status_code integer,
  digest jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz
);
CREATE UNIQUE INDEX notification_deliveries_alert_idx ON notification_deliveries (channel_id, alert_id) WHERE alert_id IS NOT NULL;
CREATE INDEX notification_deliveries_due_idx ON notification_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX notification_deliveries_channel_idx ON notification_deliveries (channel_id, created_at DESC);
CREATE INDEX notification_deliveries_held_idx ON notification_deliveries (channel_id, rule_id, created_at) WHERE status = 'held';
`;

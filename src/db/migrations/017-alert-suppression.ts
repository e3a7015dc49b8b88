// Migration 17: alert suppression. A rule may fold its repeated matches into one open alert per group
// (rule_suppressions: which fields make the group, for how long an alert takes more); the alert then
// counts its matches (occurrences, last_seen_at) and links every event it took (alert_events, keyed
// like an alert so a re-delivered event is never counted twice).
export const sql = `
CREATE TABLE rule_suppressions (
  rule_id uuid PRIMARY KEY REFERENCES rules (id) ON DELETE CASCADE,
  group_by jsonb NOT NULL,
  window_seconds integer NOT NULL,
  updated_by text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE alerts ADD COLUMN occurrences integer NOT NULL DEFAULT 1;
ALTER TABLE alerts ADD COLUMN last_seen_at timestamptz;
ALTER TABLE alerts ADD COLUMN suppression_key text;
ALTER TABLE alerts ADD COLUMN suppression_group jsonb;
CREATE INDEX alerts_suppression_idx ON alerts (rule_id, suppression_key, created_at DESC) WHERE suppression_key IS NOT NULL;
CREATE INDEX alerts_repeated_idx ON alerts (occurrences) WHERE occurrences > 1;

CREATE TABLE alert_events (
  alert_id uuid NOT NULL REFERENCES alerts (id) ON DELETE CASCADE,
  rule_id uuid NOT NULL,
  index_pattern_id uuid,
  event_hash text NOT NULL,
  event_time timestamptz NOT NULL,
  seen_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE UNIQUE INDEX alert_events_key ON alert_events (rule_id, index_pattern_id, event_hash);
CREATE INDEX alert_events_alert_idx ON alert_events (alert_id, seen_at);
`;

// Migration 4: alerts (one per rule and stored event, by an idempotent key), their comments, and the
// alert change log every live stream follows: a trigger writes one row per new alert and per status
// change and wakes listeners with NOTIFY, so no code path can forget to announce a change.
export const sql = `
CREATE TABLE alerts (
  id uuid PRIMARY KEY,
  rule_id uuid NOT NULL,
  rule_title text NOT NULL,
  rule_version integer,
  severity text NOT NULL CHECK (severity IN ('critical', 'high', 'medium', 'low', 'informational')),
  severity_rank smallint NOT NULL,
  level text NOT NULL,
  tags jsonb NOT NULL DEFAULT '[]'::jsonb,
  status text NOT NULL DEFAULT 'new' CHECK (status IN ('new', 'acknowledged', 'resolved', 'false_positive')),
  index_pattern_id uuid,
  index_pattern text NOT NULL,
  event_hash text NOT NULL,
  event_time timestamptz NOT NULL,
  event jsonb NOT NULL,
  matched_conditions jsonb NOT NULL DEFAULT '[]'::jsonb,
  source_ip text,
  "user" text,
  host text,
  enrichment jsonb,
  risk_score smallint,
  acknowledged_at timestamptz,
  acknowledged_by text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX alerts_idempotency_key ON alerts (rule_id, index_pattern_id, event_hash);
CREATE INDEX alerts_created_idx ON alerts (created_at DESC, id DESC);
CREATE INDEX alerts_status_idx ON alerts (status, created_at DESC);
CREATE INDEX alerts_severity_idx ON alerts (severity_rank, created_at DESC);
CREATE INDEX alerts_rule_idx ON alerts (rule_id, created_at DESC);

CREATE TABLE alert_comments (
  id uuid PRIMARY KEY,
  alert_id uuid NOT NULL REFERENCES alerts (id) ON DELETE CASCADE,
  "user" text NOT NULL,
  text text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX alert_comments_alert_idx ON alert_comments (alert_id, created_at);

CREATE TABLE alert_changes (
  seq bigserial PRIMARY KEY,
  alert_id uuid NOT NULL,
  kind text NOT NULL CHECK (kind IN ('created', 'updated')),
  status text NOT NULL,
  changed_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX alert_changes_time_idx ON alert_changes (changed_at);

CREATE FUNCTION record_alert_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO alert_changes (alert_id, kind, status) VALUES (NEW.id, 'created', NEW.status);
  ELSIF NEW.status IS DISTINCT FROM OLD.status THEN
    INSERT INTO alert_changes (alert_id, kind, status) VALUES (NEW.id, 'updated', NEW.status);
  ELSE
    RETURN NULL;
  END IF;
  PERFORM pg_notify('vigil_alert_changes', '');
  RETURN NULL;
END
$$;
CREATE TRIGGER alerts_record_change AFTER INSERT OR UPDATE ON alerts FOR EACH ROW EXECUTE FUNCTION record_alert_change();
`;

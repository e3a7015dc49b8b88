// Migration 7: what keeps the alerts list and stats fast at a million alerts.
// - Every list order is `<sort key>, created_at, id` in one direction, so each sort field has a B-tree
//   index in exactly that order (nullable keys twice, because their empty values sort last in both
//   directions); the same indexes answer the equality filters with the default newest-first order.
// - Search goes through a trigram index over the searched text when pg_trgm is available (PGlite loads
//   it; on PostgreSQL it comes with the contrib package); without it search still works, by scanning.
// - alert_counts keeps alert counts per (rule, index pattern, status, severity), so the total of an
//   unfiltered list, of lists filtered only by those, and the stats never count a million rows.
//   Statement triggers append signed deltas (no row is ever updated, so concurrent ingests and triage
//   never wait on each other or deadlock); readers fold the deltas into one row per key now and then.
// - event_counts does the same for stored events per UTC hour of arrival, so the stats count events
//   (all, and the last day's) without reading millions of rows; the index on received_at counts the
//   one partial hour at the start of the last day.
export const sql = `
DROP INDEX IF EXISTS alerts_status_idx;
DROP INDEX IF EXISTS alerts_severity_idx;
DROP INDEX IF EXISTS alerts_rule_idx;
CREATE INDEX alerts_status_idx ON alerts (status, created_at, id);
CREATE INDEX alerts_severity_idx ON alerts (severity_rank, created_at, id);
CREATE INDEX alerts_rule_idx ON alerts (rule_id, created_at, id);
CREATE INDEX alerts_updated_idx ON alerts (updated_at, id);
CREATE INDEX alerts_rule_title_idx ON alerts (rule_title, created_at, id);
CREATE INDEX alerts_index_pattern_idx ON alerts (index_pattern, created_at, id);
CREATE INDEX alerts_host_asc_idx ON alerts (host ASC NULLS LAST, created_at, id);
CREATE INDEX alerts_host_desc_idx ON alerts (host DESC NULLS LAST, created_at DESC, id DESC);
CREATE INDEX alerts_user_asc_idx ON alerts ("user" ASC NULLS LAST, created_at, id);
CREATE INDEX alerts_user_desc_idx ON alerts ("user" DESC NULLS LAST, created_at DESC, id DESC);
CREATE INDEX alerts_source_ip_asc_idx ON alerts (source_ip ASC NULLS LAST, created_at, id);
CREATE INDEX alerts_source_ip_desc_idx ON alerts (source_ip DESC NULLS LAST, created_at DESC, id DESC);
CREATE INDEX alerts_risk_asc_idx ON alerts (risk_score ASC NULLS LAST, created_at, id);
CREATE INDEX alerts_risk_desc_idx ON alerts (risk_score DESC NULLS LAST, created_at DESC, id DESC);
CREATE INDEX events_received_idx ON events (received_at);

CREATE TABLE alert_counts (
  rule_id uuid NOT NULL,
  index_pattern text NOT NULL,
  status text NOT NULL,
  severity_rank smallint NOT NULL,
  n bigint NOT NULL,
  delta boolean NOT NULL DEFAULT true
);
CREATE INDEX alert_counts_delta_idx ON alert_counts (delta) WHERE delta;
INSERT INTO alert_counts (rule_id, index_pattern, status, severity_rank, n, delta)
  SELECT rule_id, index_pattern, status, severity_rank, count(*), false FROM alerts GROUP BY rule_id, index_pattern, status, severity_rank;

CREATE FUNCTION count_inserted_alerts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO alert_counts (rule_id, index_pattern, status, severity_rank, n)
    SELECT rule_id, index_pattern, status, severity_rank, count(*) FROM inserted_alerts GROUP BY rule_id, index_pattern, status, severity_rank;
  RETURN NULL;
END
$$;
CREATE TRIGGER alerts_count_insert AFTER INSERT ON alerts REFERENCING NEW TABLE AS inserted_alerts
  FOR EACH STATEMENT EXECUTE FUNCTION count_inserted_alerts();

CREATE FUNCTION count_updated_alerts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO alert_counts (rule_id, index_pattern, status, severity_rank, n)
    SELECT rule_id, index_pattern, status, severity_rank, sum(d) FROM (
      SELECT o.rule_id, o.index_pattern, o.status, o.severity_rank, -1 AS d
        FROM old_alerts o JOIN new_alerts n ON n.id = o.id
        WHERE (n.rule_id, n.index_pattern, n.status, n.severity_rank) IS DISTINCT FROM (o.rule_id, o.index_pattern, o.status, o.severity_rank)
      UNION ALL
      SELECT n.rule_id, n.index_pattern, n.status, n.severity_rank, 1 AS d
        FROM old_alerts o JOIN new_alerts n ON n.id = o.id
        WHERE (n.rule_id, n.index_pattern, n.status, n.severity_rank) IS DISTINCT FROM (o.rule_id, o.index_pattern, o.status, o.severity_rank)
    ) moves
    GROUP BY rule_id, index_pattern, status, severity_rank HAVING sum(d) <> 0;
  RETURN NULL;
END
$$;
CREATE TRIGGER alerts_count_update AFTER UPDATE ON alerts REFERENCING OLD TABLE AS old_alerts NEW TABLE AS new_alerts
  FOR EACH STATEMENT EXECUTE FUNCTION count_updated_alerts();

CREATE FUNCTION count_deleted_alerts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO alert_counts (rule_id, index_pattern, status, severity_rank, n)
    SELECT rule_id, index_pattern, status, severity_rank, -count(*) FROM deleted_alerts GROUP BY rule_id, index_pattern, status, severity_rank;
  RETURN NULL;
END
$$;
CREATE TRIGGER alerts_count_delete AFTER DELETE ON alerts REFERENCING OLD TABLE AS deleted_alerts
  FOR EACH STATEMENT EXECUTE FUNCTION count_deleted_alerts();

CREATE TABLE event_counts (
  hour timestamptz NOT NULL,
  n bigint NOT NULL,
  delta boolean NOT NULL DEFAULT true
);
CREATE INDEX event_counts_hour_idx ON event_counts (hour);
CREATE INDEX event_counts_delta_idx ON event_counts (delta) WHERE delta;
INSERT INTO event_counts (hour, n, delta)
  SELECT date_trunc('hour', received_at, 'UTC'), count(*), false FROM events GROUP BY date_trunc('hour', received_at, 'UTC');

CREATE FUNCTION count_inserted_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO event_counts (hour, n)
    SELECT date_trunc('hour', received_at, 'UTC'), count(*) FROM inserted_events GROUP BY date_trunc('hour', received_at, 'UTC');
  RETURN NULL;
END
$$;
CREATE TRIGGER events_count_insert AFTER INSERT ON events REFERENCING NEW TABLE AS inserted_events
  FOR EACH STATEMENT EXECUTE FUNCTION count_inserted_events();

CREATE FUNCTION count_updated_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO event_counts (hour, n)
    SELECT hour, sum(d) FROM (
      SELECT date_trunc('hour', received_at, 'UTC') AS hour, -1 AS d FROM old_events
      UNION ALL
      SELECT date_trunc('hour', received_at, 'UTC') AS hour, 1 AS d FROM new_events
    ) moves
    GROUP BY hour HAVING sum(d) <> 0;
  RETURN NULL;
END
$$;
CREATE TRIGGER events_count_update AFTER UPDATE ON events REFERENCING OLD TABLE AS old_events NEW TABLE AS new_events
  FOR EACH STATEMENT EXECUTE FUNCTION count_updated_events();

CREATE FUNCTION count_deleted_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO event_counts (hour, n)
    SELECT date_trunc('hour', received_at, 'UTC'), -count(*) FROM deleted_events GROUP BY date_trunc('hour', received_at, 'UTC');
  RETURN NULL;
END
$$;
CREATE TRIGGER events_count_delete AFTER DELETE ON events REFERENCING OLD TABLE AS deleted_events
  FOR EACH STATEMENT EXECUTE FUNCTION count_deleted_events();

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm') THEN
    BEGIN
      CREATE EXTENSION IF NOT EXISTS pg_trgm;
    EXCEPTION WHEN insufficient_privilege THEN
      RAISE NOTICE 'pg_trgm could not be created (%); alert search will scan', SQLERRM;
    END;
  END IF;
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
    EXECUTE $index$CREATE INDEX alerts_search_idx ON alerts USING gin ((rule_title || ' ' || coalesce(host, '') || ' ' || coalesce("user", '') || ' ' || coalesce(source_ip, '') || ' ' || event::text) gin_trgm_ops)$index$;
  END IF;
END
$$;
`;

// Migration 24: alert triage writes stop paying for search and for the change feed row by row.
// - The text alert search looks in (rule title, entities, the event as JSON text) moves from an
//   expression index on alerts to a table of its own, written once when the alert is created: a status
//   or assignee change writes the alert again into every index of its table, and the trigram index over
//   a whole event was most of that cost (several milliseconds an alert on the embedded database).
//   The text never changes after creation: those columns are not updated.
// - The change feed (alert_changes, read by the alert stream) is written by statement triggers over
//   the transition tables, one INSERT … SELECT and one notification a statement, instead of a PL/pgSQL
//   call, an INSERT and a notification for each row.
/** The text search looks in, of an alert row (the expression of the index it replaces, migration 7). */
const SEARCH_TEXT = `rule_title || ' ' || coalesce(host, '') || ' ' || coalesce("user", '') || ' ' || coalesce(source_ip, '') || ' ' || event::text`;

export const sql = `
CREATE TABLE alert_search (
  alert_id uuid PRIMARY KEY REFERENCES alerts (id) ON DELETE CASCADE,
  text text NOT NULL
);
INSERT INTO alert_search (alert_id, text)
  SELECT id, ${SEARCH_TEXT} FROM alerts;
DROP INDEX IF EXISTS alerts_search_idx;

CREATE FUNCTION index_inserted_alerts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO alert_search (alert_id, text)
    SELECT id, ${SEARCH_TEXT}
      FROM inserted_alerts;
  RETURN NULL;
END
$$;
CREATE TRIGGER alerts_search_insert AFTER INSERT ON alerts REFERENCING NEW TABLE AS inserted_alerts
  FOR EACH STATEMENT EXECUTE FUNCTION index_inserted_alerts();

DROP TRIGGER alerts_record_change ON alerts;
DROP FUNCTION record_alert_change();
CREATE FUNCTION record_created_alerts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO alert_changes (alert_id, kind, status) SELECT id, 'created', status FROM inserted_alerts;
  IF FOUND THEN
    PERFORM pg_notify('vigil_alert_changes', '');
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER alerts_record_created AFTER INSERT ON alerts REFERENCING NEW TABLE AS inserted_alerts
  FOR EACH STATEMENT EXECUTE FUNCTION record_created_alerts();
CREATE FUNCTION record_updated_alerts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO alert_changes (alert_id, kind, status)
    SELECT n.id, 'updated', n.status FROM new_alerts n JOIN old_alerts o ON o.id = n.id WHERE n.status IS DISTINCT FROM o.status;
  IF FOUND THEN
    PERFORM pg_notify('vigil_alert_changes', '');
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER alerts_record_updated AFTER UPDATE ON alerts REFERENCING OLD TABLE AS old_alerts NEW TABLE AS new_alerts
  FOR EACH STATEMENT EXECUTE FUNCTION record_updated_alerts();

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
    EXECUTE 'CREATE INDEX alert_search_text_idx ON alert_search USING gin (text gin_trgm_ops)';
  END IF;
END
$$;
`;

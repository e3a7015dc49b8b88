// Migration 7: indexes that keep the alerts list fast at a million alerts. Every list order is
// `<sort key>, created_at, id` in one direction, so each sort field has a B-tree index in exactly that
// order (nullable keys twice, because their empty values sort last in both directions); the same
// indexes answer the equality filters with the default newest-first order. Search goes through a
// trigram index over the searched text when pg_trgm is available (PGlite loads it; on PostgreSQL it
// comes with the contrib package); without it search still works, by scanning. Stats count the
// events received in the last day by their arrival time.
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

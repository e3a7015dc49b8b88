// Migration 8: stored events as the text they arrived as (json keeps the text, checked once; jsonb
// re-encoded every event on the way in and rebuilt its text on every history read), and the history
// index in exactly the order the scan reads (time, then id, both newest first), so a scan's LIMIT is
// answered by walking the index even where the planner has no statistics (the embedded database never
// gathers them by itself; the scan runs ANALYZE when a table has none).
export const sql = `
ALTER TABLE events ALTER COLUMN event TYPE json USING event::json;
DROP INDEX IF EXISTS events_pattern_time_idx;
CREATE INDEX events_pattern_time_idx ON events (index_pattern_id, event_time DESC, id DESC);
ANALYZE events;
`;

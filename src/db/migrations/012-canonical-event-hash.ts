// Migration 12: an event's idempotency key becomes the SHA-256 of its canonical JSON (keys sorted by
// code point at every level, no white space; src/ingest/event-hash.ts), so a re-delivery with its keys
// in another order is a repeat. Keys stored before were hashes of the text as received: they are
// recomputed here the same way, so an event received before the upgrade is still recognised after it.
// Events keep their stored text (json, exact); an alert takes its event row's new key, or (its event
// gone with retention) computes it from its own copy of the event. Where the old keys let one event be
// stored twice (keys in another order), one row of each group takes the new key (the one already
// holding it, else the first received) and the others keep theirs: nothing is deleted, no alert loses
// its triage.
export const sql = `
CREATE OR REPLACE FUNCTION vigil_canonical_json(j json) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  result text;
BEGIN
  CASE json_typeof(j)
    WHEN 'object' THEN
      SELECT '{' || coalesce(string_agg(to_json(key)::text || ':' || (CASE WHEN json_typeof(value) IN ('object', 'array') THEN vigil_canonical_json(value) ELSE value::text END), ',' ORDER BY key COLLATE "C"), '') || '}'
        INTO result FROM json_each(j);
    WHEN 'array' THEN
      SELECT '[' || coalesce(string_agg(CASE WHEN json_typeof(value) IN ('object', 'array') THEN vigil_canonical_json(value) ELSE value::text END, ',' ORDER BY n), '') || ']'
        INTO result FROM json_array_elements(j) WITH ORDINALITY AS elements(value, n);
    ELSE
      result := j::text;
  END CASE;
  RETURN result;
END
$$;

CREATE TEMPORARY TABLE event_rehash ON COMMIT DROP AS
  SELECT id, index_pattern_id, received_at, event_hash AS old_hash,
         encode(sha256(convert_to(vigil_canonical_json(event), 'UTF8')), 'hex') AS new_hash
    FROM events;
CREATE INDEX event_rehash_old_idx ON event_rehash (index_pattern_id, old_hash);

UPDATE events e SET event_hash = r.new_hash
  FROM (SELECT id, new_hash, old_hash,
               row_number() OVER (PARTITION BY index_pattern_id, new_hash ORDER BY (old_hash = new_hash) DESC, received_at, id) AS n
          FROM event_rehash) r
 WHERE e.id = r.id AND r.n = 1 AND r.new_hash <> r.old_hash;

CREATE TEMPORARY TABLE alert_rehash ON COMMIT DROP AS
  SELECT a.id, a.rule_id, a.index_pattern_id, a.created_at, a.event_hash AS old_hash,
         coalesce(
           (SELECT r.new_hash FROM event_rehash r WHERE r.index_pattern_id = a.index_pattern_id AND r.old_hash = a.event_hash),
           encode(sha256(convert_to(vigil_canonical_json(a.event::json), 'UTF8')), 'hex')
         ) AS new_hash
    FROM alerts a;

UPDATE alerts a SET event_hash = r.new_hash
  FROM (SELECT id, new_hash, old_hash,
               row_number() OVER (PARTITION BY rule_id, index_pattern_id, new_hash ORDER BY (old_hash = new_hash) DESC, created_at, id) AS n
          FROM alert_rehash) r
 WHERE a.id = r.id AND r.n = 1 AND r.new_hash <> r.old_hash;

DROP FUNCTION vigil_canonical_json(json);
`;

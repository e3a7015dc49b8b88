// The outbox: a new alert's deliveries, one per enabled channel that admits it (its minimum severity,
// index patterns and rule tags, any of which matching), written by the statement that inserts the alert,
// so an alert and its notifications commit or roll back together and sending never holds up ingest.
// `routedInsert` wraps an INSERT ... RETURNING of alerts into that one statement.

/** The INSERT of alerts (ending in `RETURNING id`) with the deliveries of the inserted alerts beside it. */
export function routedInsert(insertReturningId: string): string {
  return `WITH inserted AS (${insertReturningId.replace(/RETURNING id\s*$/, 'RETURNING id, rule_id, severity_rank, index_pattern, tags')}),
  routed AS (
    INSERT INTO notification_deliveries (id, channel_id, alert_id, rule_id)
    SELECT gen_random_uuid(), c.id, i.id, i.rule_id
      FROM inserted i JOIN notification_channels c
        ON c.enabled AND i.severity_rank >= c.min_severity_rank
       AND (c.index_patterns IS NULL OR i.index_pattern = ANY (c.index_patterns))
       AND (c.rule_tags IS NULL OR EXISTS (SELECT 1 FROM jsonb_array_elements_text(i.tags) AS t (tag) WHERE lower(t.tag) = ANY (c.rule_tags)))
    RETURNING 1
  )
  SELECT id FROM inserted`;
}

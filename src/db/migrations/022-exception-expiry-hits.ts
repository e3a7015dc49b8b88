// Migration 22: an exception may expire (expires_at: from then on it suppresses nothing, and stays
// listed), and each counts the matches it suppressed at ingest (hit_count, last_hit_at), added to once
// per ingested chunk in the chunk's own transaction.
export const sql = `
ALTER TABLE rule_exceptions ADD COLUMN expires_at timestamptz;
ALTER TABLE rule_exceptions ADD COLUMN hit_count bigint NOT NULL DEFAULT 0;
ALTER TABLE rule_exceptions ADD COLUMN last_hit_at timestamptz;
`;

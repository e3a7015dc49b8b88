// Migration 26: the status index also carries each alert's rule (as an included column), so the
// dashboard's per-rule precision (closed alerts of the last 30 days per rule) is counted from the index
// alone where the visibility map allows (PostgreSQL's autovacuum keeps it), instead of reading the
// rows of every closed alert of the period. Same key, same use by the lists.
export const sql = `
DROP INDEX IF EXISTS alerts_status_idx;
CREATE INDEX alerts_status_idx ON alerts (status, created_at, id) INCLUDE (rule_id);
`;

// Migration 6: what an index pattern tells rules about its events. `placeholders` holds the values of
// Sigma `%placeholder%` names (`expand`), a map of name → list of values ({} = none); `logsource_scope`
// the log sources its events come from, a list of {product, category, service} entries (NULL = any).
export const sql = `
ALTER TABLE index_patterns ADD COLUMN placeholders jsonb NOT NULL DEFAULT '{}'::jsonb;
ALTER TABLE index_patterns ADD COLUMN logsource_scope jsonb;
`;

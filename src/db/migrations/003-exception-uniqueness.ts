// Migration 3: one exception per rule, field, operator and value (case-insensitive), enforced by the
// database so concurrent requests cannot store the same exception twice.
export const sql = `
DELETE FROM rule_exceptions a USING rule_exceptions b
 WHERE a.rule_id = b.rule_id AND a.field = b.field AND a.operator = b.operator
   AND lower(a.value::text) = lower(b.value::text) AND a.created_at > b.created_at;
CREATE UNIQUE INDEX rule_exceptions_unique_idx ON rule_exceptions (rule_id, field, operator, lower(value::text));
`;

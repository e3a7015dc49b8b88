// Migration 14: correlation rules. A rule is a detection or a correlation (`rule_type`); a rule's Sigma
// `name` is kept beside its `sigma_id`, since correlations reference rules by either; a correlation's
// references are kept lower-cased (`correlation_refs`) to find, in one indexed query, the deployed
// correlations that use a rule. `correlation_states` holds each deployed correlation's open windows (the
// engine's state as JSON) with a revision, so every instance sharing the database continues the same
// windows and a restart loses none. A correlation alert keeps what fired in `correlation`.
export const sql = `
ALTER TABLE rules ADD COLUMN rule_type text NOT NULL DEFAULT 'detection' CHECK (rule_type IN ('detection', 'correlation'));
ALTER TABLE rules ADD COLUMN sigma_name text;
ALTER TABLE rules ADD COLUMN correlation_refs jsonb;
UPDATE rules SET sigma_name = nullif(btrim(substring(yaml_content FROM '(?n)^name:[ \\t]*([^#\\n]*)'), ' \\t''"'), '')
  WHERE yaml_content ~ '(?n)^name:';
CREATE INDEX rules_sigma_id_lower_idx ON rules (lower(sigma_id));
CREATE INDEX rules_sigma_name_lower_idx ON rules (lower(sigma_name));
CREATE INDEX rules_deployed_correlations_idx ON rules (index_pattern_id) WHERE rule_type = 'correlation' AND status = 'deployed';

CREATE TABLE correlation_states (
  rule_id uuid PRIMARY KEY REFERENCES rules (id) ON DELETE CASCADE,
  fingerprint text NOT NULL,
  revision bigint NOT NULL DEFAULT 0,
  state text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE alerts ADD COLUMN correlation jsonb;
`;

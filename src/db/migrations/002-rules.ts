// Migration 2: index patterns, rules with versions and exceptions, the embedded search backend's
// stored queries (with a change sequence other instances follow), stored events and the field catalogue.
export const sql = `
CREATE TABLE index_patterns (
  id uuid PRIMARY KEY,
  name text NOT NULL UNIQUE,
  description text NOT NULL DEFAULT '',
  timestamp_field text NOT NULL DEFAULT '@timestamp',
  default_mapping text NOT NULL DEFAULT 'identity' CHECK (default_mapping IN ('identity', 'none')),
  field_mappings jsonb NOT NULL DEFAULT '[]'::jsonb,
  preset text,
  is_default boolean NOT NULL DEFAULT false,
  retention_days integer NOT NULL DEFAULT 7,
  entity_fields jsonb NOT NULL DEFAULT '{}'::jsonb,
  ingest_token_hash text NOT NULL UNIQUE,
  ingest_token_prefix text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX index_patterns_one_default ON index_patterns (is_default) WHERE is_default;

CREATE TABLE rules (
  id uuid PRIMARY KEY,
  title text NOT NULL,
  yaml_content text NOT NULL,
  status text NOT NULL DEFAULT 'undeployed' CHECK (status IN ('deployed', 'undeployed')),
  severity text NOT NULL,
  level text NOT NULL,
  tags jsonb NOT NULL DEFAULT '[]'::jsonb,
  description text,
  author text,
  logsource jsonb NOT NULL DEFAULT '{}'::jsonb,
  sigma_id text,
  index_pattern_id uuid REFERENCES index_patterns (id),
  version integer NOT NULL DEFAULT 1,
  deployed_version integer,
  deployed_at timestamptz,
  percolator_id text,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX rules_created_idx ON rules (created_at DESC);
CREATE INDEX rules_status_idx ON rules (status);
CREATE INDEX rules_pattern_idx ON rules (index_pattern_id);

CREATE TABLE rule_versions (
  rule_id uuid NOT NULL REFERENCES rules (id) ON DELETE CASCADE,
  version integer NOT NULL,
  title text NOT NULL,
  yaml_content text NOT NULL,
  index_pattern_id uuid,
  changed_by text NOT NULL,
  changed_at timestamptz NOT NULL DEFAULT now(),
  change_reason text,
  PRIMARY KEY (rule_id, version)
);

CREATE TABLE rule_exceptions (
  id uuid PRIMARY KEY,
  rule_id uuid NOT NULL REFERENCES rules (id) ON DELETE CASCADE,
  field text NOT NULL,
  operator text NOT NULL CHECK (operator IN ('equals', 'contains', 'startswith', 'endswith', 'regex', 'cidr', 'in')),
  value jsonb NOT NULL,
  reason text NOT NULL DEFAULT '',
  enabled boolean NOT NULL DEFAULT true,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX rule_exceptions_rule_idx ON rule_exceptions (rule_id);

CREATE SEQUENCE stored_query_seq;
CREATE TABLE stored_queries (
  percolator_index text NOT NULL,
  id text NOT NULL,
  rule_id uuid,
  rule_version integer,
  query jsonb,
  deleted boolean NOT NULL DEFAULT false,
  seq bigint NOT NULL DEFAULT nextval('stored_query_seq'),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (percolator_index, id)
);
CREATE INDEX stored_queries_seq_idx ON stored_queries (seq);

CREATE TABLE events (
  id uuid PRIMARY KEY,
  index_pattern_id uuid NOT NULL REFERENCES index_patterns (id) ON DELETE CASCADE,
  event_time timestamptz NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  event_hash text NOT NULL,
  event jsonb NOT NULL
);
CREATE INDEX events_pattern_time_idx ON events (index_pattern_id, event_time DESC, id);
CREATE UNIQUE INDEX events_pattern_hash_idx ON events (index_pattern_id, event_hash);

CREATE TABLE event_fields (
  index_pattern_id uuid NOT NULL REFERENCES index_patterns (id) ON DELETE CASCADE,
  field text NOT NULL,
  count bigint NOT NULL DEFAULT 0,
  last_seen timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (index_pattern_id, field)
);
`;

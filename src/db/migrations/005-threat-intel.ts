// Migration 5: threat-intel feeds and their indicators (normalised values, unique per feed and type),
// and the version number every instance follows to notice feed changes: creating (once all of a
// feed's indicators are written) or deleting a feed increments it in the same transaction.
export const sql = `
CREATE TABLE threat_intel_feeds (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  format text NOT NULL CHECK (format IN ('plain', 'csv', 'misp', 'stix', 'abusech')),
  type text CHECK (type IN ('ip', 'cidr', 'domain', 'url', 'md5', 'sha1', 'sha256')),
  risk_score smallint NOT NULL CHECK (risk_score BETWEEN 0 AND 100),
  indicator_count integer NOT NULL DEFAULT 0,
  rejected_count integer NOT NULL DEFAULT 0,
  type_counts jsonb NOT NULL DEFAULT '{}'::jsonb,
  status text NOT NULL DEFAULT 'loading' CHECK (status IN ('loading', 'active')),
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX threat_intel_feeds_created_idx ON threat_intel_feeds (created_at DESC, id DESC);

CREATE TABLE threat_intel_indicators (
  feed_id uuid NOT NULL REFERENCES threat_intel_feeds (id) ON DELETE CASCADE,
  type text NOT NULL CHECK (type IN ('ip', 'cidr', 'domain', 'url', 'md5', 'sha1', 'sha256')),
  value text NOT NULL,
  score smallint CHECK (score BETWEEN 0 AND 100),
  description text,
  source text,
  PRIMARY KEY (feed_id, type, value)
);

CREATE TABLE threat_intel_version (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  version bigint NOT NULL
);
INSERT INTO threat_intel_version (only_row, version) VALUES (true, 0);
`;

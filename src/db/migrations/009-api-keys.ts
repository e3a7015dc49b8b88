// Migration 9: API keys (only a SHA-256 of each secret is kept, looked up by that hash) and their
// per-key request windows for rate limiting, shared by every instance on the database. Disabling a user
// revokes their keys in the same statement (a trigger), so no path that disables a user can forget it;
// deleting a user deletes their keys.
export const sql = `
CREATE TABLE api_keys (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name text NOT NULL,
  prefix text NOT NULL,
  key_hash text NOT NULL,
  tier text NOT NULL CHECK (tier IN ('standard', 'high')),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz,
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE UNIQUE INDEX api_keys_hash_key ON api_keys (key_hash);
CREATE INDEX api_keys_user_idx ON api_keys (user_id, created_at DESC);

CREATE TABLE api_key_windows (
  key_id uuid PRIMARY KEY REFERENCES api_keys (id) ON DELETE CASCADE,
  window_start timestamptz NOT NULL,
  requests integer NOT NULL
);

CREATE FUNCTION revoke_api_keys_of_disabled_user() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE api_keys SET revoked_at = now() WHERE user_id = NEW.id AND revoked_at IS NULL;
  RETURN NULL;
END
$$;
CREATE TRIGGER users_disabled_revokes_api_keys AFTER UPDATE OF disabled ON users
  FOR EACH ROW WHEN (NEW.disabled AND NOT OLD.disabled) EXECUTE FUNCTION revoke_api_keys_of_disabled_user();
`;

// Migration 11: single sign-on. `sso_identities` links a user to the (issuer, subject) pair that
// identifies them at an OpenID provider (never their username); `sso_login_states` holds each
// sign-in that was sent to the provider (state, PKCE verifier, nonce) until its callback consumes it
// once, so any instance on the database can complete it.
export const sql = `
CREATE TABLE sso_identities (
  issuer text NOT NULL,
  subject text NOT NULL,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_login_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (issuer, subject)
);
CREATE UNIQUE INDEX sso_identities_user_key ON sso_identities (user_id);

CREATE TABLE sso_login_states (
  state text PRIMARY KEY,
  provider text NOT NULL,
  code_verifier text NOT NULL,
  nonce text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX sso_login_states_expires_idx ON sso_login_states (expires_at);
`;

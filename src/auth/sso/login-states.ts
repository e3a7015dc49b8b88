// SQL for sign-ins in progress: the state, PKCE verifier and nonce of each redirect to the provider,
// kept until the callback takes them (once) or they expire.
import type { Queryable } from '../../db/database.js';

export interface LoginState {
  [key: string]: unknown;
  state: string;
  provider: string;
  code_verifier: string;
  nonce: string;
}

/** Sign-ins older than this are refused (the user took too long at the provider). */
export const LOGIN_STATE_TTL_SECONDS = 10 * 60;
/** At most this many sign-ins may be in progress at once, so anonymous requests cannot fill the table. */
export const MAX_PENDING_LOGINS = 10_000;

/** Stores a new sign-in, dropping expired ones first; false when too many are already pending. */
export async function saveLoginState(db: Queryable, login: LoginState): Promise<boolean> {
  await db.query('DELETE FROM sso_login_states WHERE expires_at < now()');
  const [{ n }] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM sso_login_states');
  if (n >= MAX_PENDING_LOGINS) return false;
  await db.query(
    `INSERT INTO sso_login_states (state, provider, code_verifier, nonce, expires_at)
     VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
    [login.state, login.provider, login.code_verifier, login.nonce, LOGIN_STATE_TTL_SECONDS],
  );
  return true;
}

/** Takes a live sign-in by its state: answers it and deletes it in one statement, so it works once. */
export async function takeLoginState(db: Queryable, state: string): Promise<LoginState | undefined> {
  const [row] = await db.query<LoginState & { live: boolean }>(
    `DELETE FROM sso_login_states WHERE state = $1
     RETURNING state, provider, code_verifier, nonce, expires_at > now() AS live`,
    [state],
  );
  return row?.live ? { state: row.state, provider: row.provider, code_verifier: row.code_verifier, nonce: row.nonce } : undefined;
}

// Password login: throttling, constant-time verification, session creation and auditing.
import type { Database } from '../db/database.js';
import { HttpError, tooManyRequests } from '../http/errors.js';
import { recordAudit } from '../audit/log.js';
import { findUserByUsername, type UserRow } from '../users/store.js';
import { reserveLoginAttempt, settleLoginFailure, settleLoginSuccess } from './login-throttle.js';
import { verifyPassword } from './passwords.js';
import { createSession } from './sessions.js';
import type { TokenService } from './tokens.js';

export const LOGIN_FAILED = 'Incorrect username or password';
export const LOGIN_THROTTLED = 'Too many failed login attempts; try again later';

export interface LoginDeps {
  db: Database;
  tokens: TokenService;
  sessionTtlSeconds: number;
}

/** Checks a username and password; answers the user or throws the documented 401/429. */
export async function checkPassword(deps: LoginDeps, username: string, password: string, ip: string): Promise<UserRow> {
  const actor = username.slice(0, 256);
  const verdict = await reserveLoginAttempt(deps.db, username, ip);
  if (verdict.blocked) {
    await recordAudit(deps.db, { actor, action: 'auth.login_blocked', details: { reason: verdict.reason }, ip });
    throw tooManyRequests(LOGIN_THROTTLED, verdict.retryAfterSeconds);
  }
  const user = await findUserByUsername(deps.db, username);
  const passwordOk = await verifyPassword(password, user?.password_hash);
  if (!user || !passwordOk || user.disabled) {
    const locked = await settleLoginFailure(deps.db, username, verdict.userAttempt);
    await recordAudit(deps.db, { actor, action: 'auth.login_failed', ip });
    if (locked) await recordAudit(deps.db, { actor, action: 'auth.lockout', details: { minutes: 15 }, ip });
    throw new HttpError(401, LOGIN_FAILED, undefined, { 'WWW-Authenticate': 'Bearer' });
  }
  await settleLoginSuccess(deps.db, username, ip);
  return user;
}

/** Opens a session for an authenticated user and returns its token. */
export async function startSession(deps: LoginDeps, user: UserRow, ip: string, method: string): Promise<string> {
  const sessionId = await createSession(deps.db, user.id, deps.sessionTtlSeconds, ip);
  await recordAudit(deps.db, { actor: user.username, action: 'auth.login', details: { method }, ip });
  return deps.tokens.sign({ sessionId, userId: user.id, use: 'session' }, deps.sessionTtlSeconds);
}

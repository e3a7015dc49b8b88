// Password checks (login and password change): throttling per account and per address,
// constant-time verification, session creation and auditing.
import type { Database } from '../db/database.js';
import { HttpError, tooManyRequests } from '../http/errors.js';
import { recordAudit } from '../audit/log.js';
import type { ThrottledCheck } from '../audit/actions.js';
import { findUserByUsername, type UserRow } from '../users/store.js';
import { accountKey, reserveLoginAttempt, settleLoginFailure, settleLoginSuccess } from './login-throttle.js';
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

/**
 * Refused attempts are audited at most once a minute per account or address and process, so a flood of
 * refused guesses cannot turn into a flood of audit rows (the lockout itself is always audited).
 */
const BLOCKED_AUDIT_INTERVAL_MS = 60_000;
const lastBlockedAudit = new Map<string, number>();

async function auditBlocked(db: Database, key: string, entry: Parameters<typeof recordAudit>[1]): Promise<void> {
  const now = Date.now();
  if (now - (lastBlockedAudit.get(key) ?? -Infinity) < BLOCKED_AUDIT_INTERVAL_MS) return;
  if (lastBlockedAudit.size >= 10_000) lastBlockedAudit.clear();
  lastBlockedAudit.set(key, now);
  await recordAudit(db, entry);
}

/**
 * Checks a password under the throttle of `account` (a bucket from `accountKey`); answers whether it
 * was right, or throws 429 when the account or the address is blocked. `onFailure` runs before the
 * throttle is settled (its audit row comes first).
 */
export async function throttledPasswordCheck(
  db: Database,
  check: { account: string; actor: string; ip: string; action: ThrottledCheck },
  verify: () => Promise<boolean>,
): Promise<boolean> {
  const verdict = await reserveLoginAttempt(db, check.account, check.ip);
  if (verdict.blocked) {
    const key = verdict.reason === 'ip' ? `ip:${check.ip}` : check.account;
    await auditBlocked(db, key, { actor: check.actor, action: `${check.action}_blocked`, details: { reason: verdict.reason }, ip: check.ip });
    throw tooManyRequests(LOGIN_THROTTLED, verdict.retryAfterSeconds);
  }
  if (await verify()) {
    await settleLoginSuccess(db, check.account, check.ip);
    return true;
  }
  await recordAudit(db, { actor: check.actor, action: `${check.action}_failed`, ip: check.ip });
  if (await settleLoginFailure(db, check.account, verdict.userAttempt)) {
    await recordAudit(db, { actor: check.actor, action: 'auth.lockout', details: { minutes: 15 }, ip: check.ip });
  }
  return false;
}

/** Checks a username and password; answers the user or throws the documented 401/429. */
export async function checkPassword(deps: LoginDeps, username: string, password: string, ip: string): Promise<UserRow> {
  const user = await findUserByUsername(deps.db, username);
  const ok = await throttledPasswordCheck(
    deps.db,
    { account: accountKey(user, username), actor: username.slice(0, 256), ip, action: 'auth.login' },
    // SSO users have no password here: they are refused like an unknown user.
    async () => (await verifyPassword(password, user?.password_hash)) && user !== undefined && !user.disabled && user.auth_method === 'local',
  );
  if (!ok || !user) throw new HttpError(401, LOGIN_FAILED, undefined, { 'WWW-Authenticate': 'Bearer' });
  return user;
}

/** Opens a session for an authenticated user and returns its token. */
export async function startSession(deps: LoginDeps, user: UserRow, ip: string, method: string): Promise<string> {
  const sessionId = await createSession(deps.db, user.id, deps.sessionTtlSeconds, ip);
  await recordAudit(deps.db, { actor: user.username, action: 'auth.login', details: { method }, ip });
  return deps.tokens.sign({ sessionId, userId: user.id, use: 'session' }, deps.sessionTtlSeconds);
}

// Brute-force protection for password checks (login and password change), kept in the database so it
// holds across instances. Two independent buckets: per account (5 failures within 15 minutes lock it
// for 15 minutes) and per client IP (100 failures within 15 minutes block that address until the window
// ends). The account bucket is keyed by the account the name resolves to (`accountKey`), so every
// spelling the login lookup accepts for one account shares one bucket.
//
// An attempt is counted *before* its password is checked (a reservation), and the count is taken
// atomically, so a burst of concurrent guesses cannot get more than the limit evaluated: the
// attempts past the limit are refused at once. A success clears the account's count and gives
// the IP bucket its slot back.
import type { Queryable } from '../db/database.js';

export const USER_FAILURE_LIMIT = 5;
export const USER_LOCK_SECONDS = 15 * 60;
export const IP_FAILURE_LIMIT = 100;
export const WINDOW_SECONDS = 15 * 60;

/**
 * The bucket of a login name: the id of the account it resolves to (the database's own case-insensitive
 * lookup decided that), or, for a name no account has, its lowercase form.
 */
export const accountKey = (account: { id: string } | undefined, username: string): string =>
  account ? `user:${account.id}` : `name:${username.toLowerCase()}`;
const ipKey = (ip: string) => `ip:${ip}`;

/** An attempt allowed to check its password: which failure it would be for its account. */
export type Reservation = { blocked: false; userAttempt: number } | { blocked: true; retryAfterSeconds: number; reason: 'user' | 'ip' };

const windowExpired = `login_throttle.window_started_at < now() - make_interval(secs => $2)`;

/** Counts one attempt against the IP bucket; answers the count and the seconds left in the window. */
async function reserveIp(db: Queryable, ip: string): Promise<{ attempts: number; windowLeft: number }> {
  const [row] = await db.query<{ failures: number; window_left: number }>(
    `INSERT INTO login_throttle (key, failures, window_started_at) VALUES ($1, 1, now())
     ON CONFLICT (key) DO UPDATE SET
       failures = CASE WHEN ${windowExpired} THEN 1 ELSE login_throttle.failures + 1 END,
       window_started_at = CASE WHEN ${windowExpired} THEN now() ELSE login_throttle.window_started_at END
     RETURNING failures,
       CEIL(EXTRACT(EPOCH FROM (window_started_at + make_interval(secs => $2) - now())))::int AS window_left`,
    [ipKey(ip), WINDOW_SECONDS],
  );
  return { attempts: row.failures, windowLeft: row.window_left };
}

async function releaseIp(db: Queryable, ip: string): Promise<void> {
  await db.query('UPDATE login_throttle SET failures = GREATEST(failures - 1, 0) WHERE key = $1', [ipKey(ip)]);
}

/** Counts one attempt against the account unless it is locked; answers the count, or the lock's seconds left. */
async function reserveUser(db: Queryable, account: string): Promise<{ attempts: number } | { lockLeft: number }> {
  const [row] = await db.query<{ failures: number }>(
    `INSERT INTO login_throttle (key, failures, window_started_at) VALUES ($1, 1, now())
     ON CONFLICT (key) DO UPDATE SET
       failures = CASE WHEN ${windowExpired} THEN 1 ELSE login_throttle.failures + 1 END,
       window_started_at = CASE WHEN ${windowExpired} THEN now() ELSE login_throttle.window_started_at END,
       locked_until = NULL
     WHERE login_throttle.locked_until IS NULL OR login_throttle.locked_until <= now()
     RETURNING failures`,
    [account, WINDOW_SECONDS],
  );
  if (row) return { attempts: row.failures };
  const [locked] = await db.query<{ lock_left: number | null }>(
    `SELECT CEIL(EXTRACT(EPOCH FROM (locked_until - now())))::int AS lock_left FROM login_throttle WHERE key = $1`,
    [account],
  );
  return { lockLeft: Math.max(1, locked?.lock_left ?? 1) };
}

/**
 * Reserves a password check before it runs. Refused when the address or the account is blocked, or
 * when earlier attempts still being checked already use up the account's limit.
 */
export async function reserveLoginAttempt(db: Queryable, account: string, ip: string): Promise<Reservation> {
  const byIp = await reserveIp(db, ip);
  if (byIp.attempts > IP_FAILURE_LIMIT) {
    await releaseIp(db, ip);
    return { blocked: true, retryAfterSeconds: Math.max(1, byIp.windowLeft), reason: 'ip' };
  }
  const byUser = await reserveUser(db, account);
  if ('lockLeft' in byUser) {
    await releaseIp(db, ip);
    return { blocked: true, retryAfterSeconds: byUser.lockLeft, reason: 'user' };
  }
  if (byUser.attempts > USER_FAILURE_LIMIT) {
    // Attempts already in flight will lock the account if they fail; this one is refused now.
    await releaseIp(db, ip);
    return { blocked: true, retryAfterSeconds: 1, reason: 'user' };
  }
  return { blocked: false, userAttempt: byUser.attempts };
}

/** A reserved attempt failed; returns true when it locked the account. */
export async function settleLoginFailure(db: Queryable, account: string, userAttempt: number): Promise<boolean> {
  if (userAttempt < USER_FAILURE_LIMIT) return false;
  await db.query(
    `UPDATE login_throttle SET failures = 0, window_started_at = now(),
            locked_until = now() + make_interval(secs => $2) WHERE key = $1`,
    [account, USER_LOCK_SECONDS],
  );
  return true;
}

/** A reserved attempt succeeded: the account's failures are forgotten and the IP slot returned. */
export async function settleLoginSuccess(db: Queryable, account: string, ip: string): Promise<void> {
  await db.query('DELETE FROM login_throttle WHERE key = $1', [account]);
  await releaseIp(db, ip);
}

export async function purgeLoginThrottle(db: Queryable): Promise<void> {
  await db.query(
    `DELETE FROM login_throttle WHERE window_started_at < now() - make_interval(secs => $1)
       AND (locked_until IS NULL OR locked_until < now())`,
    [WINDOW_SECONDS],
  );
}

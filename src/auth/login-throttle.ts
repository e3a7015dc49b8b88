// Brute-force protection for password login, kept in the database so it holds across instances.
// Two independent buckets: per username (5 failures within 15 minutes lock it for 15 minutes)
// and per client IP (100 failures within 15 minutes block that address until the window ends).
import type { Queryable } from '../db/database.js';

export const USER_FAILURE_LIMIT = 5;
export const USER_LOCK_SECONDS = 15 * 60;
export const IP_FAILURE_LIMIT = 100;
export const WINDOW_SECONDS = 15 * 60;

const userKey = (username: string) => `user:${username.toLowerCase()}`;
const ipKey = (ip: string) => `ip:${ip}`;

export type ThrottleVerdict = { blocked: false } | { blocked: true; retryAfterSeconds: number; reason: 'user' | 'ip' };

/** Whether a login attempt may proceed at all. */
export async function checkLoginAllowed(db: Queryable, username: string, ip: string): Promise<ThrottleVerdict> {
  const rows = await db.query<{ key: string; failures: number; lock_left: number | null; window_left: number }>(
    `SELECT key, failures,
            CEIL(EXTRACT(EPOCH FROM (locked_until - now())))::int AS lock_left,
            CEIL(EXTRACT(EPOCH FROM (window_started_at + make_interval(secs => $3) - now())))::int AS window_left
       FROM login_throttle WHERE key = $1 OR key = $2`,
    [userKey(username), ipKey(ip), WINDOW_SECONDS],
  );
  for (const row of rows) {
    if (row.key.startsWith('user:') && row.lock_left !== null && row.lock_left > 0) {
      return { blocked: true, retryAfterSeconds: row.lock_left, reason: 'user' };
    }
    if (row.key.startsWith('ip:') && row.failures >= IP_FAILURE_LIMIT && row.window_left > 0) {
      return { blocked: true, retryAfterSeconds: row.window_left, reason: 'ip' };
    }
  }
  return { blocked: false };
}

async function countFailure(db: Queryable, key: string): Promise<number> {
  const [row] = await db.query<{ failures: number }>(
    `INSERT INTO login_throttle (key, failures, window_started_at) VALUES ($1, 1, now())
     ON CONFLICT (key) DO UPDATE SET
       failures = CASE WHEN login_throttle.window_started_at < now() - make_interval(secs => $2)
                       THEN 1 ELSE login_throttle.failures + 1 END,
       window_started_at = CASE WHEN login_throttle.window_started_at < now() - make_interval(secs => $2)
                       THEN now() ELSE login_throttle.window_started_at END
     RETURNING failures`,
    [key, WINDOW_SECONDS],
  );
  return row.failures;
}

/** Counts a failed attempt; returns true when it locked the username. */
export async function recordLoginFailure(db: Queryable, username: string, ip: string): Promise<boolean> {
  await countFailure(db, ipKey(ip));
  const failures = await countFailure(db, userKey(username));
  if (failures < USER_FAILURE_LIMIT) return false;
  await db.query(
    `UPDATE login_throttle SET failures = 0, window_started_at = now(),
            locked_until = now() + make_interval(secs => $2) WHERE key = $1`,
    [userKey(username), USER_LOCK_SECONDS],
  );
  return true;
}

/** A successful login clears the username's failure count. */
export async function recordLoginSuccess(db: Queryable, username: string): Promise<void> {
  await db.query('DELETE FROM login_throttle WHERE key = $1', [userKey(username)]);
}

export async function purgeLoginThrottle(db: Queryable): Promise<void> {
  await db.query(
    `DELETE FROM login_throttle WHERE window_started_at < now() - make_interval(secs => $1)
       AND (locked_until IS NULL OR locked_until < now())`,
    [WINDOW_SECONDS],
  );
}

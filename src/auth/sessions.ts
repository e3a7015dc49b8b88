// Server-side session records: a token is only honoured while its session row exists, is not
// revoked and has not expired, and its user exists and is enabled.
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/database.js';
import { USER_COLUMNS, type UserRow } from '../users/store.js';

export async function createSession(db: Queryable, userId: string, ttlSeconds: number, ip: string): Promise<string> {
  const id = randomUUID();
  await db.query(
    `INSERT INTO sessions (id, user_id, expires_at, ip) VALUES ($1, $2, now() + make_interval(secs => $3), $4)`,
    [id, userId, ttlSeconds, ip],
  );
  return id;
}

/** The enabled user owning a live session, or undefined. */
export async function findSessionUser(db: Queryable, sessionId: string, userId: string): Promise<UserRow | undefined> {
  const columns = USER_COLUMNS.split(', ').map((c) => `u.${c}`).join(', ');
  const [row] = await db.query<UserRow>(
    `SELECT ${columns} FROM sessions s JOIN users u ON u.id = s.user_id
     WHERE s.id = $1 AND s.user_id = $2 AND s.revoked_at IS NULL AND s.expires_at > now() AND NOT u.disabled`,
    [sessionId, userId],
  );
  return row;
}

export async function revokeSession(db: Queryable, sessionId: string): Promise<void> {
  await db.query('UPDATE sessions SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL', [sessionId]);
}

/** Revokes every live session of a user, optionally keeping one (the caller's own). */
export async function revokeUserSessions(db: Queryable, userId: string, keepSessionId?: string): Promise<void> {
  await db.query(
    'UPDATE sessions SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL AND id <> COALESCE($2::uuid, $3::uuid)',
    [userId, keepSessionId ?? null, '00000000-0000-0000-0000-000000000000'],
  );
}

/** Removes sessions that can no longer be used; called periodically. */
export async function purgeExpiredSessions(db: Queryable): Promise<void> {
  await db.query(`DELETE FROM sessions WHERE expires_at < now() - interval '1 day'`);
}

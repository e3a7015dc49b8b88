// SQL for SSO identities: the user an (issuer, subject) pair signs in as.
import type { Queryable } from '../../db/database.js';
import { USER_COLUMNS, type UserRow } from '../../users/store.js';

export async function findUserByIdentity(db: Queryable, issuer: string, subject: string): Promise<UserRow | undefined> {
  const columns = USER_COLUMNS.split(', ').map((c) => `u.${c}`).join(', ');
  const [row] = await db.query<UserRow>(
    `SELECT ${columns} FROM sso_identities i JOIN users u ON u.id = i.user_id WHERE i.issuer = $1 AND i.subject = $2`,
    [issuer, subject],
  );
  return row;
}

/** Links a user to an identity; false when the identity is already linked (a concurrent first sign-in). */
export async function linkIdentity(db: Queryable, issuer: string, subject: string, userId: string): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO sso_identities (issuer, subject, user_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING user_id`,
    [issuer, subject, userId],
  );
  return rows.length > 0;
}

export async function touchIdentity(db: Queryable, issuer: string, subject: string): Promise<void> {
  await db.query('UPDATE sso_identities SET last_login_at = now() WHERE issuer = $1 AND subject = $2', [issuer, subject]);
}

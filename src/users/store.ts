// SQL for users. Usernames are unique regardless of case.
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/database.js';
import type { Role } from '../auth/roles.js';

export interface UserRow {
  id: string;
  username: string;
  password_hash: string | null;
  role: Role;
  disabled: boolean;
  auth_method: 'local' | 'sso';
  two_factor_enabled: boolean;
  /** Whether alerts this user acknowledges without an assignee become theirs. */
  assign_on_acknowledge: boolean;
  created_at: Date;
  updated_at: Date;
  [key: string]: unknown;
}

export const USER_COLUMNS = 'id, username, password_hash, role, disabled, auth_method, two_factor_enabled, assign_on_acknowledge, created_at, updated_at';

export async function findUserById(db: Queryable, id: string): Promise<UserRow | undefined> {
  const [row] = await db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1`, [id]);
  return row;
}

export async function findUserByUsername(db: Queryable, username: string): Promise<UserRow | undefined> {
  const [row] = await db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE lower(username) = lower($1)`, [username]);
  return row;
}

/** Inserts a user; returns undefined when the username is taken. */
export async function insertUser(
  db: Queryable,
  user: { username: string; passwordHash: string | null; role: Role; authMethod?: 'local' | 'sso' },
): Promise<UserRow | undefined> {
  const [row] = await db.query<UserRow>(
    `INSERT INTO users (id, username, password_hash, role, auth_method) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT DO NOTHING RETURNING ${USER_COLUMNS}`,
    [randomUUID(), user.username, user.passwordHash, user.role, user.authMethod ?? 'local'],
  );
  return row;
}

export async function updateUser(
  db: Queryable,
  id: string,
  changes: { role?: Role; passwordHash?: string; disabled?: boolean },
): Promise<UserRow | undefined> {
  const [row] = await db.query<UserRow>(
    `UPDATE users SET
       role = COALESCE($2, role),
       password_hash = COALESCE($3, password_hash),
       disabled = COALESCE($4, disabled),
       updated_at = now()
     WHERE id = $1 RETURNING ${USER_COLUMNS}`,
    [id, changes.role ?? null, changes.passwordHash ?? null, changes.disabled ?? null],
  );
  return row;
}

export async function deleteUser(db: Queryable, id: string): Promise<boolean> {
  const rows = await db.query('DELETE FROM users WHERE id = $1 RETURNING id', [id]);
  return rows.length > 0;
}

export async function countUsers(db: Queryable): Promise<number> {
  const [{ n }] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM users');
  return n;
}

/** A user's choice to take the alerts they acknowledge; answers the stored value. */
export async function setAssignOnAcknowledge(db: Queryable, id: string, value: boolean): Promise<boolean> {
  const [row] = await db.query<{ assign_on_acknowledge: boolean }>(
    'UPDATE users SET assign_on_acknowledge = $2, updated_at = now() WHERE id = $1 RETURNING assign_on_acknowledge',
    [id, value],
  );
  return row.assign_on_acknowledge;
}

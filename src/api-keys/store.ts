// SQL for API keys: insert, list (with the owner's username), find for revocation, revoke, and the
// lookup that authenticates a request (by hash; only live keys of enabled users).
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/database.js';
import { USER_COLUMNS, type UserRow } from '../users/store.js';

export type Tier = 'standard' | 'high';
export const TIERS = ['standard', 'high'] as const;

export interface ApiKeyRow {
  id: string;
  user_id: string;
  owner: string;
  name: string;
  prefix: string;
  tier: Tier;
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
  [key: string]: unknown;
}

export const KEY_SELECT =
  'k.id, k.user_id, u.username AS owner, k.name, k.prefix, k.tier, k.created_at, k.expires_at, k.last_used_at, k.revoked_at';
export const KEY_FROM = 'api_keys k JOIN users u ON u.id = k.user_id';

export async function insertKey(
  db: Queryable,
  key: { userId: string; name: string; prefix: string; hash: string; tier: Tier; expiresInDays?: number },
): Promise<ApiKeyRow> {
  const id = randomUUID();
  await db.query(
    `INSERT INTO api_keys (id, user_id, name, prefix, key_hash, tier, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $7::int IS NULL THEN NULL ELSE now() + make_interval(days => $7::int) END)`,
    [id, key.userId, key.name, key.prefix, key.hash, key.tier, key.expiresInDays ?? null],
  );
  const [row] = await db.query<ApiKeyRow>(`SELECT ${KEY_SELECT} FROM ${KEY_FROM} WHERE k.id = $1`, [id]);
  return row;
}

/** Keys of a user not yet revoked (expired ones included: they still hold a place until revoked). */
export async function countLiveKeys(db: Queryable, userId: string): Promise<number> {
  const [{ n }] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL', [userId]);
  return n;
}

export async function findKey(db: Queryable, id: string): Promise<ApiKeyRow | undefined> {
  const [row] = await db.query<ApiKeyRow>(`SELECT ${KEY_SELECT} FROM ${KEY_FROM} WHERE k.id = $1`, [id]);
  return row;
}

/** Marks a key revoked; false when it already was (or does not exist). */
export async function revokeKey(db: Queryable, id: string): Promise<boolean> {
  const rows = await db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING id', [id]);
  return rows.length > 0;
}

export interface PresentedKey {
  id: string;
  tier: Tier;
  /** True when last_used_at is older than a minute (or unset) and should be refreshed. */
  stale: boolean;
  owner: UserRow;
}

/** The live key with this hash whose owner is enabled, or undefined (unknown, revoked, expired, owner disabled). */
export async function findLiveKeyByHash(db: Queryable, hash: string): Promise<PresentedKey | undefined> {
  const columns = USER_COLUMNS.split(', ').map((c) => `u.${c}`).join(', ');
  const [row] = await db.query<{ key_id: string; tier: Tier; stale: boolean } & UserRow>(
    `SELECT k.id AS key_id, k.tier, (k.last_used_at IS NULL OR k.last_used_at < now() - interval '1 minute') AS stale, ${columns}
     FROM api_keys k JOIN users u ON u.id = k.user_id
     WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now()) AND NOT u.disabled`,
    [hash],
  );
  if (!row) return undefined;
  const { key_id, tier, stale, ...owner } = row;
  return { id: key_id, tier, stale, owner: owner as UserRow };
}

/** Records use of a key, at most once a minute (a no-op when another request did it meanwhile). */
export async function touchKey(db: Queryable, id: string): Promise<void> {
  await db.query(
    `UPDATE api_keys SET last_used_at = now() WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
    [id],
  );
}

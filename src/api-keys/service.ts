// API key rules: any signed-in user creates keys for themselves (high tier for admins only, at most
// MAX_KEYS_PER_USER live at once) and sees and revokes their own; admins see and revoke every key.
// Someone else's key is "not found" to a non-admin, so its existence is not revealed. Creation and
// revocation are audited in the same transaction as the change.
import type { Database } from '../db/database.js';
import { recordAudit } from '../audit/log.js';
import { conflict, forbidden, notFound } from '../http/errors.js';
import type { UserRow } from '../users/store.js';
import { generateKey } from './secret.js';
import { countLiveKeys, findKey, insertKey, revokeKey, type ApiKeyRow, type Tier } from './store.js';

export const API_KEY_NOT_FOUND = 'API key not found';
export const MAX_KEYS_PER_USER = 100;

export interface Actor {
  user: UserRow;
  ip: string;
}

export interface NewKeyRequest {
  name: string;
  tier?: Tier;
  expires_in_days?: number;
}

export async function createKey(db: Database, actor: Actor, request: NewKeyRequest): Promise<ApiKeyRow & { key: string }> {
  const tier = request.tier ?? 'standard';
  if (tier === 'high' && actor.user.role !== 'admin') throw forbidden('Admin role required for a high-tier key');
  const secret = generateKey();
  const row = await db.transaction(async (tx) => {
    if ((await countLiveKeys(tx, actor.user.id)) >= MAX_KEYS_PER_USER) {
      throw conflict(`A user may hold at most ${MAX_KEYS_PER_USER} API keys; revoke one first`);
    }
    const created = await insertKey(tx, {
      userId: actor.user.id,
      name: request.name,
      prefix: secret.prefix,
      hash: secret.hash,
      tier,
      expiresInDays: request.expires_in_days,
    });
    await recordAudit(tx, {
      actor: actor.user.username,
      action: 'api_key.create',
      targetType: 'api_key',
      targetId: created.id,
      details: { name: created.name, prefix: created.prefix, tier, expires_at: created.expires_at?.toISOString() ?? null },
      ip: actor.ip,
    });
    return created;
  });
  return { ...row, key: secret.key };
}

export async function revokeApiKey(db: Database, actor: Actor, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    const key = await findKey(tx, id);
    const mine = key?.user_id === actor.user.id;
    if (!key || key.revoked_at || (!mine && actor.user.role !== 'admin')) throw notFound(API_KEY_NOT_FOUND);
    if (!(await revokeKey(tx, id))) throw notFound(API_KEY_NOT_FOUND);
    await recordAudit(tx, {
      actor: actor.user.username,
      action: 'api_key.revoke',
      targetType: 'api_key',
      targetId: id,
      details: { name: key.name, prefix: key.prefix, owner: key.owner },
      ip: actor.ip,
    });
  });
}

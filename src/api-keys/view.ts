// The public shape of an API key: never its secret or hash (the secret appears once, in the creation answer).
import { Type } from '@fastify/type-provider-typebox';
import { Nullable, StringEnum, Timestamp, Uuid } from '../http/schemas.js';
import { TIERS, type ApiKeyRow } from './store.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

const keyFields = {
  id: Uuid,
  name: Type.String(),
  prefix: Type.String({ description: 'The first characters of the key, to recognise it (not a secret)' }),
  tier: StringEnum(TIERS, { description: 'Rate-limit tier: standard 60, high 300 requests a minute' }),
  owner: Type.String({ description: 'Username of the user the key acts for' }),
  created_at: Timestamp,
  expires_at: Nullable(Timestamp),
  last_used_at: Nullable(Timestamp),
  revoked_at: Nullable(Timestamp),
};

export const ApiKeySchema = Type.Object(keyFields);

export const CreatedApiKeySchema = Type.Object(
  { ...keyFields, key: Type.String({ description: 'The secret (svc_ak_…); shown in this answer only, never again' }) },
  { description: 'A new API key with its secret' },
);

export function apiKeyView(row: ApiKeyRow) {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    tier: row.tier,
    owner: row.owner,
    created_at: row.created_at.toISOString(),
    expires_at: iso(row.expires_at),
    last_used_at: iso(row.last_used_at),
    revoked_at: iso(row.revoked_at),
  };
}

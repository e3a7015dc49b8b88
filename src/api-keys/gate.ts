// The API-key gate access control uses: a presented key is hashed and looked up (only live keys of
// enabled users count), its use is noted at most once a minute, and each request it makes is counted
// against its tier's limit, with the X-RateLimit-* headers set on the answer whatever it turns out to be.
import type { FastifyReply } from 'fastify';
import type { ApiKeyGate, ApiKeyPrincipal } from '../auth/access.js';
import type { Database } from '../db/database.js';
import { HttpError } from '../http/errors.js';
import { RateLimiter, type RateLimitOptions } from './rate-limit.js';
import { hashKey, looksLikeKey } from './secret.js';
import { findLiveKeyByHash, touchKey } from './store.js';

export const RATE_LIMITED = 'Rate limit exceeded';

export function apiKeyGate(db: Database, options: RateLimitOptions = {}): ApiKeyGate {
  const limiter = new RateLimiter(db, options);
  return {
    async resolve(key: string): Promise<ApiKeyPrincipal | null> {
      if (!looksLikeKey(key)) return null;
      const found = await findLiveKeyByHash(db, hashKey(key));
      if (!found) return null;
      if (found.stale) await touchKey(db, found.id);
      return { kind: 'apikey', keyId: found.id, tier: found.tier, owner: found.owner };
    },

    async admit(principal: ApiKeyPrincipal, reply: FastifyReply): Promise<void> {
      const decision = await limiter.admit(principal.keyId, principal.tier);
      reply.header('X-RateLimit-Limit', String(decision.limit));
      reply.header('X-RateLimit-Remaining', String(decision.remaining));
      reply.header('X-RateLimit-Reset', String(decision.resetSeconds));
      if (!decision.allowed) throw new HttpError(429, RATE_LIMITED, undefined, { 'Retry-After': String(decision.resetSeconds) });
    },
  };
}

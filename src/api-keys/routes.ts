// API key endpoints (session): create (the secret is answered once), list (own keys; admins see all),
// revoke. The keys themselves open only the read-only external endpoints (src/external/).
import { Type } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { App, AppContext } from '../http/context.js';
import { NOT_BLANK } from '../http/errors.js';
import { Conditions, listQuerySchema, listResponseSchema, paginate } from '../http/lists.js';
import { Empty, errorResponses, IdParams, StringEnum } from '../http/schemas.js';
import { sessionOf } from '../auth/access.js';
import { API_KEY_NOT_FOUND, createKey, revokeApiKey, type Actor } from './service.js';
import { KEY_FROM, KEY_SELECT, TIERS, type ApiKeyRow } from './store.js';
import { ApiKeySchema, apiKeyView, CreatedApiKeySchema } from './view.js';

const anyUser = { access: { auth: 'session' as const }, notFound: API_KEY_NOT_FOUND };

const actorOf = (request: FastifyRequest): Actor => ({ user: sessionOf(request).user, ip: request.ip });

const KeyListQuery = listQuerySchema(['created_at', 'name', 'last_used_at', 'expires_at'], 'created_at', {
  include_revoked: Type.Boolean({ default: false, description: 'Also list revoked keys' }),
  tier: Type.Optional(StringEnum(TIERS)),
  owner: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "Owner's username (admins)" })),
});

export function apiKeyRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/api/api_keys',
    {
      config: anyUser,
      schema: {
        tags: ['api keys'],
        operationId: 'createApiKey',
        summary: 'Create an API key for yourself (high tier: admins only); the key is in this answer only',
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 100, pattern: NOT_BLANK }),
            tier: Type.Optional(StringEnum(TIERS)),
            expires_in_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650, description: 'Unset: the key does not expire' })),
          },
          { additionalProperties: false },
        ),
        response: { 201: CreatedApiKeySchema, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const created = await createKey(ctx.db, actorOf(request), request.body);
      return reply.code(201).send({ ...apiKeyView(created), key: created.key });
    },
  );

  app.get(
    '/api/api_keys',
    {
      config: anyUser,
      schema: {
        tags: ['api keys'],
        operationId: 'listApiKeys',
        summary: 'List API keys (your own; admins see every key), without their secrets',
        querystring: KeyListQuery,
        response: { 200: listResponseSchema(ApiKeySchema), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const me = sessionOf(request).user;
      const q = request.query;
      const where = new Conditions().addCommon(q, 'k.created_at', ['k.name', 'k.prefix']);
      if (me.role !== 'admin') where.add('k.user_id = ?', me.id);
      if (!q.include_revoked) where.add('k.revoked_at IS NULL');
      if (q.tier) where.add('k.tier = ?', q.tier);
      if (q.owner) where.add('lower(u.username) = lower(?)', q.owner);
      return paginate(ctx.db, {
        select: KEY_SELECT,
        from: KEY_FROM,
        where,
        query: q,
        sortColumns: { created_at: 'k.created_at', name: 'lower(k.name)', last_used_at: 'k.last_used_at', expires_at: 'k.expires_at' },
        tieBreaker: 'k.id',
        map: (row: ApiKeyRow) => apiKeyView(row),
      });
    },
  );

  app.delete(
    '/api/api_keys/:id',
    {
      config: anyUser,
      schema: {
        tags: ['api keys'],
        operationId: 'revokeApiKey',
        summary: 'Revoke an API key (yours; admins: any); it stops working at once',
        params: IdParams,
        response: { 204: Empty, ...errorResponses(401, 404) },
      },
    },
    async (request, reply) => {
      await revokeApiKey(ctx.db, actorOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
}

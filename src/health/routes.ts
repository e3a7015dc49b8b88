// Liveness and dependency health, without authentication. `?details=true` adds what an operator of
// several instances compares: the revision of the rule set this instance matches with (`rules_revision`,
// the last stored-query change it applied; instances on one database converge on the same number within
// a second of a change).
import { Type } from '@fastify/type-provider-typebox';
import type { App, AppContext } from '../http/context.js';
import { StringEnum } from '../http/schemas.js';

const HealthSchema = Type.Object({
  status: StringEnum(['ok', 'degraded'] as const),
  database: StringEnum(['ok', 'unavailable'] as const),
  search_backend: StringEnum(['ok', 'unavailable'] as const),
  details: Type.Optional(
    Type.Object({
      rules_revision: Type.Integer({ description: 'The last change of the deployed rules this instance has applied; equal on instances holding the same rule set' }),
    }),
  ),
});

const HealthQuery = Type.Object({
  details: Type.Optional(Type.Boolean({ description: 'Add `details` for operators (the rule-set revision)' })),
});

export function healthRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/api/health',
    {
      config: { access: { auth: 'public' } },
      schema: { tags: ['health'], operationId: 'getHealth', summary: 'Service health', security: [], querystring: HealthQuery, response: { 200: HealthSchema, 503: HealthSchema } },
    },
    async (request, reply) => {
      // A ping, not a query: a health check must not queue behind other requests' transactions.
      const database = await ctx.db.ping().then(
        () => 'ok' as const,
        () => 'unavailable' as const,
      );
      const backendUp = await ctx.backend.health().catch(() => false);
      const search_backend = backendUp ? ('ok' as const) : ('unavailable' as const);
      const status = database === 'ok' ? ('ok' as const) : ('degraded' as const);
      const details = request.query.details ? { details: { rules_revision: ctx.backend.rulesRevision() } } : {};
      return reply.code(database === 'ok' ? 200 : 503).send({ status, database, search_backend, ...details });
    },
  );
}

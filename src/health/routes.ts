// Liveness and dependency health, without authentication.
import { Type } from '@fastify/type-provider-typebox';
import type { App, AppContext } from '../http/context.js';
import { StringEnum } from '../http/schemas.js';

const HealthSchema = Type.Object({
  status: StringEnum(['ok', 'degraded'] as const),
  database: StringEnum(['ok', 'unavailable'] as const),
  search_backend: StringEnum(['ok', 'unavailable'] as const),
});

export function healthRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/api/health',
    {
      config: { access: { auth: 'public' } },
      schema: { tags: ['health'], operationId: 'getHealth', summary: 'Service health', security: [], response: { 200: HealthSchema, 503: HealthSchema } },
    },
    async (_request, reply) => {
      // A ping, not a query: a health check must not queue behind other requests' transactions.
      const database = await ctx.db.ping().then(
        () => 'ok' as const,
        () => 'unavailable' as const,
      );
      const backendUp = await ctx.backend.health().catch(() => false);
      const search_backend = backendUp ? ('ok' as const) : ('unavailable' as const);
      const status = database === 'ok' ? ('ok' as const) : ('degraded' as const);
      return reply.code(database === 'ok' ? 200 : 503).send({ status, database, search_backend });
    },
  );
}

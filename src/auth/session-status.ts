// GET /api/auth/session: whether this browser is signed in, and as whom, always answered 200 (the
// session cookie is HttpOnly, so the web UI asks here at start instead of provoking a 401 from
// /api/auth/me, which browsers log as an error on every signed-out visit). Public; an API key is
// refused as on every route outside /api/external.
import { Type } from '@fastify/type-provider-typebox';
import type { App } from '../http/context.js';
import { errorResponses, Nullable } from '../http/schemas.js';
import { CurrentUserSchema, currentUser } from './routes.js';

export function sessionStatusRoutes(app: App): void {
  app.get(
    '/api/auth/session',
    {
      config: { access: { auth: 'public', session: 'optional' } },
      schema: {
        tags: ['auth'],
        operationId: 'getSessionStatus',
        summary: 'Whether the request carries a live session, and its user (never 401)',
        security: [],
        response: {
          200: Type.Object({
            signed_in: Type.Boolean(),
            user: Nullable(CurrentUserSchema, { description: 'As GET /api/auth/me answers it; null when signed out' }),
          }),
          ...errorResponses(403),
        },
      },
    },
    async (request) => {
      const principal = request.principal;
      if (principal?.kind !== 'session') return { signed_in: false, user: null };
      return { signed_in: true, user: currentUser(principal.user) };
    },
  );
}

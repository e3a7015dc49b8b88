// OpenAPI 3 description generated from the route schemas, served at /api/openapi.json.
import swagger from '@fastify/swagger';
import type { Access } from '../auth/access.js';
import type { App } from './context.js';

export async function registerOpenApi(app: App): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Vigil API',
        version: '0.1.0',
        description:
          'Detection rules (Sigma), alerts and triage. The web UI uses JWT sessions on /api/*; integrations use ' +
          'read-only API keys on /api/external/*. State-changing JWT requests need the X-CSRF-Token header.',
      },
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Session token from POST /api/auth/login' },
          cookieAuth: { type: 'apiKey', in: 'cookie', name: 'svc_session', description: 'Session cookie set by login' },
          csrfToken: { type: 'apiKey', in: 'header', name: 'X-CSRF-Token', description: 'From GET /api/auth/csrf; required on POST/PUT/PATCH/DELETE with a session' },
          apiKey: { type: 'http', scheme: 'bearer', bearerFormat: 'svc_ak_…', description: 'Read-only API key for /api/external/*' },
          ingestToken: { type: 'http', scheme: 'bearer', bearerFormat: 'svc_it_…', description: "An index pattern's ingest token, for POST /api/logs/{name}" },
        },
      },
      security: [{ bearerAuth: [] }, { cookieAuth: [] }],
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });
  // Each operation states how it is authenticated, from its access declaration: session writes need
  // the CSRF header too; public routes need nothing; external routes take an API key.
  app.addHook('onRoute', (route) => {
    const schema = (route.schema ??= {}) as { security?: unknown };
    if (schema.security !== undefined) return;
    const access = (route.config as { access?: Access } | undefined)?.access ?? { auth: 'session' };
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).map((m) => m.toUpperCase());
    const writes = methods.some((m) => m !== 'GET' && m !== 'HEAD');
    if (access.auth === 'public') schema.security = [];
    else if (access.auth === 'apikey') schema.security = [{ apiKey: [] }];
    else schema.security = writes ? [{ bearerAuth: [], csrfToken: [] }, { cookieAuth: [], csrfToken: [] }] : [{ bearerAuth: [] }, { cookieAuth: [] }];
  });
  app.get('/api/openapi.json', { config: { access: { auth: 'public' } }, schema: { hide: true } }, async () => app.swagger());
}

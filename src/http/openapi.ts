// OpenAPI 3 description generated from the route schemas, served at /api/openapi.json.
import swagger from '@fastify/swagger';
import { Type, type Static } from '@fastify/type-provider-typebox';
import type { Access } from '../auth/access.js';
import type { App } from './context.js';
import { addGenericAnswers } from './generic-answers.js';

/** The answer of GET /api/openapi.json, described by its outline (the rest is the OpenAPI 3.1 standard). */
const OpenApiDocument = Type.Object(
  {
    openapi: Type.String(),
    info: Type.Object({ title: Type.String(), version: Type.String() }, { additionalProperties: true }),
    paths: Type.Record(Type.String(), Type.Object({}, { additionalProperties: true })),
    components: Type.Object({}, { additionalProperties: true }),
  },
  { additionalProperties: true, description: 'An OpenAPI 3.1 document' },
);

interface ObjectSchema {
  properties?: Record<string, { default?: unknown }>;
  required?: string[];
}

/** A query-string schema whose parameters with a default are not required: clients may leave them out
 * (validation fills the default in either way, so only the OpenAPI description changes). */
function defaultsOptional(querystring: unknown): unknown {
  const qs = querystring as ObjectSchema | undefined;
  if (!qs?.required || !qs.properties) return querystring;
  const required = qs.required.filter((k) => qs.properties?.[k]?.default === undefined);
  if (required.length === qs.required.length) return querystring;
  const copy: ObjectSchema = { ...qs, required };
  if (required.length === 0) delete copy.required;
  return copy;
}

/** Route config that documents a body the route reads itself (not JSON; no validation by schema): its
 * media types and what each holds. */
export function documentedBody(description: string, content: Record<string, { type: 'string'; format?: 'binary' }>) {
  return {
    swaggerTransform: ({ schema, url }: { schema: object; url: string }) => ({
      schema: { ...schema, body: { description, content: Object.fromEntries(Object.entries(content).map(([type, s]) => [type, { schema: s }])) } },
      url,
    }),
  };
}

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
          ingestBasic: { type: 'http', scheme: 'basic', description: "An index pattern's ingest token as the Basic password (any user name), for /api/es" },
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
    const schema = (route.schema ??= {}) as { security?: unknown; querystring?: unknown; response?: Record<string, unknown>; body?: unknown };
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).map((m) => m.toUpperCase());
    const writes = methods.some((m) => m !== 'GET' && m !== 'HEAD');
    if (schema.querystring !== undefined) schema.querystring = defaultsOptional(schema.querystring);
    addGenericAnswers(route);
    if (schema.security !== undefined) return;
    const access = (route.config as { access?: Access } | undefined)?.access ?? { auth: 'session' };
    if (access.auth === 'public') schema.security = [];
    else if (access.auth === 'apikey') schema.security = [{ apiKey: [] }];
    else schema.security = writes ? [{ bearerAuth: [], csrfToken: [] }, { cookieAuth: [], csrfToken: [] }] : [{ bearerAuth: [] }, { cookieAuth: [] }];
  });
  app.get(
    '/api/openapi.json',
    {
      config: { access: { auth: 'public' } },
      schema: {
        tags: ['openapi'],
        operationId: 'getOpenApiDocument',
        summary: 'This description of the API (OpenAPI 3.1), generated from the route schemas',
        security: [],
        response: { 200: OpenApiDocument },
      },
    },
    async () => app.swagger() as Static<typeof OpenApiDocument>,
  );
}

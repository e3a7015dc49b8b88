// The answers a route can give whatever it does, from its declaration alone, added to its documented
// responses so the OpenAPI description lists every status a client may meet (a route's own answers —
// 404 for its ids, 409, 422, 503 — it declares itself):
//   401 — every route: no or a dead credential where one is needed, and an unknown API key anywhere;
//   403 — every route but the external API's: a valid API key is refused everywhere else (decisions
//         §4), and session writes also need their CSRF token;
//   429 — every route: an API key past its minute's budget is refused before anything else;
//   413, 415 — every write (a body too large, a content type the route does not read);
//   400 — every route: the HTTP parser refuses a malformed request, and the router a path it cannot
//         decode, before any route sees them; writes also refuse a malformed or unexpected body, and
//         a validated query string a bad parameter;
//   408, 431 — every route: the HTTP server itself answers a request that does not arrive in time and
//         one whose headers are too large (client-errors.ts), whatever the operation.
// An added answer has the shape of the route's own error answers (the Elasticsearch facade has its
// own), else the service's error model.
import { Type } from '@fastify/type-provider-typebox';
import type { RouteOptions } from 'fastify';
import type { Access } from '../auth/access.js';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed request: the HTTP request, the path, a parameter or the body is not what the operation takes',
  401: 'Missing, unknown, expired or revoked credentials',
  403: 'Not allowed: role too low, CSRF token missing or wrong, or an API key outside the external API',
  413: 'Request body too large',
  408: 'The request did not arrive in time (answered by the HTTP server, which then closes the connection)',
  415: 'Content type the operation does not read',
  429: 'Too many requests (an API key past its rate limit; login throttling); see Retry-After',
  431: 'Request headers too large (answered by the HTTP server, which then closes the connection)',
};

type Responses = Record<string, unknown>;

/** The status codes `route` can answer besides those it declares, by its access, methods and schema. */
export function genericStatuses(route: Pick<RouteOptions, 'method' | 'config' | 'schema'>): number[] {
  const methods = (Array.isArray(route.method) ? route.method : [route.method]).map((m) => m.toUpperCase());
  const access = (route.config as { access?: Access } | undefined)?.access ?? { auth: 'session' };
  const codes = new Set([400, 401, 408, 429, 431]);
  if (access.auth !== 'apikey') codes.add(403);
  if (methods.some((m) => WRITES.has(m))) [413, 415].forEach((c) => codes.add(c));
  return [...codes].sort();
}

/** The error schema the route already uses for its 4xx answers, to give the added ones the same shape. */
function errorShapeOf(responses: Responses): object {
  const own = Object.entries(responses).find(([code]) => /^4\d\d$/.test(code))?.[1] as Record<string, unknown> | undefined;
  if (own && own.$ref === undefined && own.type === 'object') {
    const { headers: _headers, description: _description, ...shape } = own;
    return shape;
  }
  return Type.Ref('Error');
}

/** Adds the generic answers `route` does not declare to its response schemas (routes without any keep none). */
export function addGenericAnswers(route: RouteOptions): void {
  const schema = route.schema as { response?: Responses } | undefined;
  const responses = schema?.response;
  if (!schema || !responses) return;
  const shape = errorShapeOf(responses);
  const added: Responses = {};
  for (const code of genericStatuses(route)) {
    if (!(code in responses)) added[code] = { ...shape, description: DESCRIPTIONS[code] };
  }
  schema.response = { ...responses, ...added };
}

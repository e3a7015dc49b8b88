// Write routes that take no body (deploy, undeploy, rotate_token, logout, deletes) refuse one: a body
// there is a client mistake (a field meant for another route), and ignoring it would hide that. An empty
// body, `{}` included, is fine (many clients send one on every POST).
import type { preValidationHookHandler, RouteOptions } from 'fastify';
import { badRequest } from './errors.js';

const refuseBody: preValidationHookHandler = (request, _reply, done) => {
  const body = request.body as unknown;
  const empty = body === undefined || body === null || (typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0);
  done(empty ? undefined : badRequest('Invalid request', [{ field: 'body', message: 'this request takes no body' }]));
};

/** Adds the refusal to a write route that declares no body (routes reading a raw body declare theirs in
 * `config.swaggerTransform`, see openapi.ts). */
export function refuseUnexpectedBody(route: RouteOptions): void {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  if (!methods.some((m) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(m.toUpperCase()))) return;
  if ((route.schema as { body?: unknown } | undefined)?.body !== undefined || route.config?.swaggerTransform) return;
  const hooks = route.preValidation;
  route.preValidation = hooks === undefined ? [refuseBody] : [...(Array.isArray(hooks) ? hooks : [hooks]), refuseBody];
}

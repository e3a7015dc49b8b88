// Access control for every route, declared in the route's `config.access`:
//   public  — no credentials needed (with `session: 'optional'`, a live session presented is made the
//             request's principal, and anything else is ignored: a status a signed-out page can ask);
//   session — a live JWT session (Bearer header or svc_session cookie) with at least `role`;
//             POST/PUT/PATCH/DELETE also need a valid X-CSRF-Token;
//   apikey  — an API key (read-only external endpoints): GET only, counted against the key's rate
//             limit; a JWT there is refused (401).
// Routes without a declaration are session routes for any role: secure by default. An API key (a
// credential starting svc_ak_, sent as `Authorization: Bearer` or, like a session, in the cookie) is
// accepted by the external endpoints only: on every other route, public ones included, whatever the
// method, and with a write also where no route answers, a valid key gets 403 (and is counted against
// its rate limit like any other request it makes); an unknown key gets 401. A read of a path no route
// answers stays a 404.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../db/database.js';
import { FORBIDDEN, HttpError, forbidden, unauthorized } from '../http/errors.js';
import { hasRole, type Role } from './roles.js';
import { findSessionUser } from './sessions.js';
import type { TokenService } from './tokens.js';
import type { UserRow } from '../users/store.js';

export const SESSION_COOKIE = 'svc_session';
export const API_KEY_PREFIX = 'svc_ak_';
export const CSRF_FAILED = 'CSRF token missing or invalid';

export type Access =
  | { auth: 'public'; session?: 'optional' }
  | { auth: 'session'; role?: Role; roleDetail?: string }
  | { auth: 'apikey' };

export interface SessionPrincipal {
  kind: 'session';
  user: UserRow;
  sessionId: string;
}
export interface ApiKeyPrincipal {
  kind: 'apikey';
  keyId: string;
  tier: 'standard' | 'high';
  owner: UserRow;
}
export type Principal = SessionPrincipal | ApiKeyPrincipal;

/** How API keys are checked (provided by the API-key feature). */
export interface ApiKeyGate {
  /** The principal of a presented key, or null when it is unknown, revoked, expired or its owner disabled. */
  resolve(key: string): Promise<ApiKeyPrincipal | null>;
  /** Counts one request of the key, sets the X-RateLimit-* headers on the reply, and throws 429 when
   * the key's budget for the current window is spent. */
  admit(principal: ApiKeyPrincipal, reply: FastifyReply): Promise<void>;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
  interface FastifyContextConfig {
    access?: Access;
    /** Detail of the 404 answered when a path parameter is not a valid id. */
    notFound?: string;
  }
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The token of an `Authorization: Bearer <token>` header, or undefined when it is not one. */
export function bearerToken(header: string | undefined): string | undefined {
  return header === undefined ? undefined : /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
}

function presentedCredential(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header !== undefined) {
    const token = bearerToken(header);
    if (!token) throw unauthorized();
    return token;
  }
  return request.cookies?.[SESSION_COOKIE] || undefined;
}

/** The API key a request presents where a session would be (the Bearer header, else the cookie), if
 * what is there is one; anything else is left to the route (public routes ignore it). */
function presentedApiKey(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const credential = header !== undefined ? bearerToken(header) : request.cookies?.[SESSION_COOKIE];
  return credential?.startsWith(API_KEY_PREFIX) ? credential : undefined;
}

export function registerAccessControl(
  app: FastifyInstance,
  deps: { db: Database; tokens: TokenService; apiKeys?: ApiKeyGate },
): void {
  async function sessionPrincipal(token: string): Promise<SessionPrincipal> {
    const claims = await deps.tokens.verify(token, 'session');
    if (!claims) throw unauthorized();
    const user = await findSessionUser(deps.db, claims.sessionId, claims.userId);
    if (!user) throw unauthorized();
    return { kind: 'session', user, sessionId: claims.sessionId };
  }

  /** The principal of a presented API key, admitted by its rate limit (401 unknown key, 429 spent). */
  async function apiKeyPrincipal(key: string, reply: FastifyReply): Promise<ApiKeyPrincipal> {
    const principal = deps.apiKeys ? await deps.apiKeys.resolve(key) : null;
    if (!principal || !deps.apiKeys) throw unauthorized();
    await deps.apiKeys.admit(principal, reply);
    return principal;
  }

  /** The session a request presents, if it is a live one; never an error. */
  async function optionalSession(request: FastifyRequest): Promise<SessionPrincipal | undefined> {
    const header = request.headers.authorization;
    const token = header !== undefined ? bearerToken(header) : request.cookies?.[SESSION_COOKIE];
    if (!token) return undefined;
    try {
      return await sessionPrincipal(token);
    } catch {
      return undefined;
    }
  }

  /** A key works on the external endpoints only: one sent to a public route is refused too, whatever
   * the method, and so is a write where no route answers (404/405), so no route can forget it. */
  async function refuseApiKey(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const key = presentedApiKey(request);
    if (key === undefined) return;
    await apiKeyPrincipal(key, reply);
    throw forbidden(FORBIDDEN);
  }

  app.addHook('onRequest', async (request, reply) => {
    if (request.is404) return STATE_CHANGING.has(request.method) ? refuseApiKey(request, reply) : undefined;
    const access: Access = request.routeOptions.config.access ?? { auth: 'session' };
    if (access.auth === 'public') {
      await refuseApiKey(request, reply);
      if (access.session === 'optional') request.principal = await optionalSession(request);
      return;
    }

    const credential = presentedCredential(request);
    if (!credential) throw unauthorized();
    const isApiKey = credential.startsWith(API_KEY_PREFIX);

    if (access.auth === 'apikey') {
      // Only API keys open the external endpoints; a session token there is not a credential.
      if (!isApiKey) throw unauthorized();
      const principal = await apiKeyPrincipal(credential, reply);
      if (request.method !== 'GET' && request.method !== 'HEAD') throw forbidden(FORBIDDEN);
      request.principal = principal;
      return;
    }

    if (isApiKey) {
      // A valid key is read-only and confined to /api/external: anything else is forbidden.
      await apiKeyPrincipal(credential, reply);
      throw forbidden(FORBIDDEN);
    }
    const principal = await sessionPrincipal(credential);
    request.principal = principal;
    if (access.role && !hasRole(principal.user.role, access.role)) {
      throw new HttpError(403, access.roleDetail ?? FORBIDDEN);
    }
    if (STATE_CHANGING.has(request.method)) {
      const presented = request.headers['x-csrf-token'];
      if (typeof presented !== 'string' || !deps.tokens.checkCsrf(principal.sessionId, presented)) {
        throw forbidden(CSRF_FAILED);
      }
    }
  });
}

/** The session principal of a request on a session route (set by the access hook). */
export function sessionOf(request: FastifyRequest): SessionPrincipal {
  const principal = request.principal;
  if (!principal || principal.kind !== 'session') throw unauthorized();
  return principal;
}

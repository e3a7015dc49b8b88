// Single sign-on endpoints: the enabled providers, the redirect to a provider and its callback.
// A sign-in in progress is a database row (state, PKCE verifier, nonce; 10 minutes, taken once, so
// any instance can complete it) plus a cookie holding its state, which binds it to the browser that
// started it: a callback whose state is not that browser's is refused.
import { timingSafeEqual } from 'node:crypto';
import { Type } from '@fastify/type-provider-typebox';
import * as client from 'openid-client';
import type { App, AppContext } from '../../http/context.js';
import { badRequest, HttpError, notFound, tooManyRequests } from '../../http/errors.js';
import { recordAudit } from '../../audit/log.js';
import { errorResponses } from '../../http/schemas.js';
import { startSession } from '../login.js';
import { setSessionCookie } from '../routes.js';
import type { Role } from '../roles.js';
import { LOGIN_STATE_TTL_SECONDS, saveLoginState, takeLoginState } from './login-states.js';
import { OidcClient } from './oidc-client.js';
import { parseRoleMap } from './role-map.js';
import { signInWithIdentity, type RolePolicy } from './service.js';

export const SSO_STATE_COOKIE = 'svc_sso_state';
export const SSO_STATE_INVALID = 'Single sign-on state is missing, invalid, expired or already used';
const COOKIE_PATH = '/api/auth/sso';
const PROVIDER_ID = 'oidc';

const Redirect = Type.Null({ description: 'Redirect (Location header)' });

export function ssoRoutes(app: App, ctx: AppContext): void {
  const { oidc } = ctx.config;
  const provider =
    oidc.issuer && oidc.clientId
      ? new OidcClient({ issuer: oidc.issuer, clientId: oidc.clientId, clientSecret: oidc.clientSecret, redirectUri: oidc.redirectUri, scopes: oidc.scopes })
      : undefined;
  const policy: RolePolicy = { claim: oidc.roleClaim, map: parseRoleMap(oidc.roleMap), defaultRole: oidc.defaultRole as Role };
  const loginDeps = { db: ctx.db, tokens: ctx.tokens, sessionTtlSeconds: ctx.config.sessionTtlSeconds };
  const cookieOptions = { httpOnly: true, sameSite: 'lax' as const, path: COOKIE_PATH, secure: ctx.config.secureCookies };

  function providerFor(id: string): OidcClient {
    if (!provider) throw notFound('Single sign-on is not configured');
    if (id !== PROVIDER_ID) throw notFound('Unknown single sign-on provider');
    return provider;
  }

  app.get(
    '/api/auth/sso/providers',
    {
      config: { access: { auth: 'public' } },
      schema: {
        tags: ['auth'],
        operationId: 'listSsoProviders',
        summary: 'The enabled single sign-on providers (empty when single sign-on is not configured)',
        security: [],
        response: {
          200: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), login_url: Type.String() })),
        },
      },
    },
    async () => (provider ? [{ id: PROVIDER_ID, name: oidc.providerName, login_url: `/api/auth/sso/login?provider=${PROVIDER_ID}` }] : []),
  );

  app.get(
    '/api/auth/sso/login',
    {
      config: { access: { auth: 'public' } },
      schema: {
        tags: ['auth'],
        operationId: 'startSsoLogin',
        summary: 'Start a single sign-on: redirects to the identity provider (authorization code, PKCE S256, state, nonce)',
        security: [],
        querystring: Type.Object({ provider: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: { 302: Redirect, ...errorResponses(400, 404, 429, 502) },
      },
    },
    async (request, reply) => {
      const oidcClient = providerFor(request.query.provider);
      const login = {
        state: client.randomState(),
        provider: PROVIDER_ID,
        code_verifier: client.randomPKCECodeVerifier(),
        nonce: client.randomNonce(),
      };
      const target = await oidcClient.authorizationUrl(login);
      if (!(await saveLoginState(ctx.db, login))) {
        throw tooManyRequests('Too many single sign-ins in progress; try again later', 60);
      }
      reply.setCookie(SSO_STATE_COOKIE, login.state, { ...cookieOptions, maxAge: LOGIN_STATE_TTL_SECONDS });
      reply.header('Cache-Control', 'no-store');
      return reply.redirect(target.href, 302);
    },
  );

  app.get(
    '/api/auth/sso/callback',
    {
      config: { access: { auth: 'public' } },
      schema: {
        tags: ['auth'],
        operationId: 'completeSsoLogin',
        summary: 'Complete a single sign-on: sets the session cookie and redirects to /',
        security: [],
        querystring: Type.Object({
          code: Type.Optional(Type.String({ maxLength: 4096 })),
          state: Type.Optional(Type.String({ maxLength: 512 })),
          error: Type.Optional(Type.String({ maxLength: 256 })),
          error_description: Type.Optional(Type.String({ maxLength: 2048 })),
          iss: Type.Optional(Type.String({ maxLength: 2048 })),
        }),
        response: { 302: Redirect, ...errorResponses(400, 401, 403, 404, 409, 502) },
      },
    },
    async (request, reply) => {
      const oidcClient = providerFor(PROVIDER_ID);
      const state = request.query.state;
      const cookieState = request.cookies[SSO_STATE_COOKIE];
      reply.clearCookie(SSO_STATE_COOKIE, cookieOptions);
      reply.header('Cache-Control', 'no-store');
      if (!state || !cookieState || !sameText(state, cookieState)) throw badRequest(SSO_STATE_INVALID);
      const login = await takeLoginState(ctx.db, state);
      if (!login || login.provider !== PROVIDER_ID) throw badRequest(SSO_STATE_INVALID);
      const currentUrl = new URL(oidc.redirectUri);
      currentUrl.search = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
      const identity = await oidcClient.complete(currentUrl, login).catch(async (error: unknown) => {
        const reason = error instanceof HttpError ? error.detail : 'error';
        await recordAudit(ctx.db, { actor: null, action: 'auth.login_failed', details: { method: 'sso', reason }, ip: request.ip });
        throw error;
      });
      const user = await signInWithIdentity(ctx.db, identity, policy, request.ip);
      const token = await startSession(loginDeps, user, request.ip, 'sso');
      setSessionCookie(reply, ctx, token);
      return reply.redirect('/', 302);
    },
  );
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

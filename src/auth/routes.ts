// Session endpoints: login, logout, who am I, CSRF token, change own password.
import { Type } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { App, AppContext } from '../http/context.js';
import { badRequest } from '../http/errors.js';
import { errorResponses, Empty, StringEnum, Uuid } from '../http/schemas.js';
import { recordAudit } from '../audit/log.js';
import { setAssignOnAcknowledge, updateUser, type UserRow } from '../users/store.js';
import { SESSION_COOKIE, sessionOf } from './access.js';
import { checkPassword, startSession, throttledPasswordCheck } from './login.js';
import { accountKey } from './login-throttle.js';
import { hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, verifyPassword } from './passwords.js';
import { ROLES } from './roles.js';
import { revokeSession, revokeUserSessions } from './sessions.js';
import { beginChallenge } from './two-factor/service.js';

const SessionUser = Type.Object({ id: Uuid, username: Type.String(), role: StringEnum(ROLES) });

export function setSessionCookie(reply: FastifyReply, ctx: AppContext, token: string): void {
  reply.setCookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'strict',
    path: '/',
    maxAge: ctx.config.sessionTtlSeconds,
    secure: ctx.config.secureCookies,
  });
}

export function authRoutes(app: App, ctx: AppContext): void {
  const loginDeps = { db: ctx.db, tokens: ctx.tokens, sessionTtlSeconds: ctx.config.sessionTtlSeconds };

  app.post(
    '/api/auth/login',
    {
      config: { access: { auth: 'public' } },
      schema: {
        tags: ['auth'],
        operationId: 'login',
        summary: 'Log in with username and password',
        security: [],
        body: Type.Object(
          { username: Type.String({ minLength: 1, maxLength: 256 }), password: Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH }) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Union([
            Type.Object({
              access_token: Type.String(),
              token_type: Type.Literal('bearer'),
              user: SessionUser,
            }),
            Type.Object(
              { requires_2fa: Type.Literal(true), temp_token: Type.String({ description: 'for POST /api/auth/2fa/verify; lives 5 minutes' }) },
              { description: 'two-factor login is enabled: no session yet' },
            ),
          ]),
          ...errorResponses(400, 401, 429),
        },
      },
    },
    async (request, reply) => {
      const user = await checkPassword(loginDeps, request.body.username, request.body.password, request.ip);
      if (user.two_factor_enabled) {
        return { requires_2fa: true as const, temp_token: await beginChallenge(ctx.db, ctx.tokens, user, request.ip) };
      }
      const token = await startSession(loginDeps, user, request.ip, 'password');
      setSessionCookie(reply, ctx, token);
      return { access_token: token, token_type: 'bearer' as const, user: { id: user.id, username: user.username, role: user.role } };
    },
  );

  app.post(
    '/api/auth/logout',
    {
      schema: { tags: ['auth'], operationId: 'logout', summary: 'End the session: revokes its token and clears the cookie', response: { 204: Empty, ...errorResponses(401, 403) } },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      await revokeSession(ctx.db, session.sessionId);
      await recordAudit(ctx.db, { actor: session.user.username, action: 'auth.logout', ip: request.ip });
      reply.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'strict', path: '/', secure: ctx.config.secureCookies });
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/api/auth/me',
    {
      schema: {
        tags: ['auth'],
        operationId: 'getCurrentUser',
        summary: 'The signed-in user',
        response: { 200: CurrentUserSchema, ...errorResponses(401) },
      },
    },
    async (request) => currentUser(sessionOf(request).user),
  );

  app.patch(
    '/api/auth/me',
    {
      schema: {
        tags: ['auth'],
        operationId: 'updateCurrentUserSettings',
        summary: "The signed-in user's own settings",
        body: Type.Object({ assign_on_acknowledge: Type.Boolean() }, { additionalProperties: false }),
        response: { 200: CurrentUserSchema, ...errorResponses(400, 401, 403, 415) },
      },
    },
    async (request) => {
      const { user } = sessionOf(request);
      return currentUser({ ...user, assign_on_acknowledge: await setAssignOnAcknowledge(ctx.db, user.id, request.body.assign_on_acknowledge) });
    },
  );

  app.get(
    '/api/auth/csrf',
    {
      schema: {
        tags: ['auth'],
        operationId: 'getCsrfToken',
        summary: 'The CSRF token of this session, for X-CSRF-Token on state-changing requests',
        response: { 200: Type.Object({ csrf_token: Type.String() }), ...errorResponses(401) },
      },
    },
    async (request) => ({ csrf_token: ctx.tokens.csrfToken(sessionOf(request).sessionId) }),
  );

  app.post(
    '/api/auth/password',
    {
      schema: {
        tags: ['auth'],
        operationId: 'changePassword',
        summary: 'Change your own password; your other sessions are revoked',
        body: Type.Object(
          {
            current_password: Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH }),
            new_password: Type.String({ minLength: MIN_PASSWORD_LENGTH, maxLength: MAX_PASSWORD_LENGTH }),
          },
          { additionalProperties: false },
        ),
        response: { 204: Empty, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request, reply) => {
      const { user, sessionId } = sessionOf(request);
      if (user.auth_method !== 'local' || !user.password_hash) {
        throw badRequest('This account signs in through SSO and has no password');
      }
      const hash = user.password_hash;
      const ok = await throttledPasswordCheck(
        ctx.db,
        { account: accountKey(user, user.username), actor: user.username, ip: request.ip, action: 'auth.password_change' },
        () => verifyPassword(request.body.current_password, hash),
      );
      if (!ok) throw badRequest('Current password is incorrect', [{ field: 'body.current_password', message: 'is incorrect' }]);
      await updateUser(ctx.db, user.id, { passwordHash: await hashPassword(request.body.new_password) });
      await revokeUserSessions(ctx.db, user.id, sessionId);
      await recordAudit(ctx.db, { actor: user.username, action: 'auth.password_changed', targetType: 'user', targetId: user.id, ip: request.ip });
      return reply.code(204).send(null);
    },
  );
}

export const CurrentUserSchema = Type.Object({
  id: Uuid,
  username: Type.String(),
  role: StringEnum(ROLES),
  two_factor_enabled: Type.Boolean(),
  auth_method: StringEnum(['local', 'sso'] as const),
  assign_on_acknowledge: Type.Boolean({ description: 'Alerts this user acknowledges without an assignee become theirs' }),
});

export function currentUser(user: UserRow) {
  return {
    id: user.id,
    username: user.username,
    role: user.role,
    two_factor_enabled: Boolean(user.two_factor_enabled),
    auth_method: user.auth_method,
    assign_on_acknowledge: Boolean(user.assign_on_acknowledge),
  };
}

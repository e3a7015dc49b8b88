// Two-factor endpoints: set up, enable and disable your own TOTP factor (session + CSRF), answer a
// login challenge (public: the temp token is the credential), and an administrator's reset of a
// user's factor (DELETE /api/users/{id}/2fa).
import { Type } from '@fastify/type-provider-typebox';
import type { App, AppContext } from '../../http/context.js';
import { notFound } from '../../http/errors.js';
import { Empty, errorResponses, IdParams, StringEnum, Uuid } from '../../http/schemas.js';
import { findUserById } from '../../users/store.js';
import { sessionOf } from '../access.js';
import { startSession } from '../login.js';
import { MAX_PASSWORD_LENGTH } from '../passwords.js';
import { ROLES } from '../roles.js';
import { setSessionCookie } from '../routes.js';
import { disable, enable, reset, setUp, twoFactorDeps, verifyChallenge } from './service.js';

const TotpCode = Type.String({ pattern: '^[0-9]{6}$', description: 'six-digit code from the authenticator app' });
const CodeOrRecovery = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'six-digit code from the authenticator app, or one of the recovery codes (each works once)',
});

export function twoFactorRoutes(app: App, ctx: AppContext): void {
  const deps = twoFactorDeps(ctx.db, ctx.tokens);
  const loginDeps = { db: ctx.db, tokens: ctx.tokens, sessionTtlSeconds: ctx.config.sessionTtlSeconds };

  app.post(
    '/api/auth/2fa/setup',
    {
      schema: {
        tags: ['auth'],
        operationId: 'setUpTwoFactor',
        summary: 'Start setting up two-factor login: a new TOTP secret, in force only once enabled',
        response: {
          200: Type.Object({
            secret: Type.String({ description: 'base32 TOTP secret (SHA-1, 6 digits, 30 s)' }),
            otpauth_uri: Type.String({ description: 'otpauth://totp/... URI for authenticator apps' }),
            qr_code: Type.String({ description: 'the URI as a QR code, a data:image/png;base64 URL' }),
          }),
          ...errorResponses(400, 401, 403, 409),
        },
      },
    },
    async (request) => setUp(deps, sessionOf(request).user, request.ip),
  );

  app.post(
    '/api/auth/2fa/enable',
    {
      schema: {
        tags: ['auth'],
        operationId: 'enableTwoFactor',
        summary: 'Enable two-factor login with a code from the pending secret; answers recovery codes, shown only here',
        body: Type.Object({ code: TotpCode }, { additionalProperties: false }),
        response: {
          200: Type.Object({
            enabled: Type.Literal(true),
            recovery_codes: Type.Array(Type.String(), { minItems: 10, maxItems: 10, description: 'one-use codes for a lost authenticator' }),
          }),
          ...errorResponses(400, 401, 403, 409, 429),
        },
      },
    },
    async (request) => enable(deps, sessionOf(request).user, request.body.code, request.ip),
  );

  app.post(
    '/api/auth/2fa/disable',
    {
      schema: {
        tags: ['auth'],
        operationId: 'disableTwoFactor',
        summary: 'Disable two-factor login; needs your password and a current code (or a recovery code)',
        body: Type.Object(
          { password: Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH }), code: CodeOrRecovery },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ enabled: Type.Literal(false) }), ...errorResponses(400, 401, 403, 409, 429) },
      },
    },
    async (request) => disable(deps, sessionOf(request).user, request.body.password, request.body.code, request.ip),
  );

  app.post(
    '/api/auth/2fa/verify',
    {
      config: { access: { auth: 'public' } },
      schema: {
        tags: ['auth'],
        operationId: 'verifyTwoFactor',
        summary: 'Finish a two-factor login: the temp token from login and a code; answers the session like login',
        security: [],
        body: Type.Object(
          { temp_token: Type.String({ minLength: 1, maxLength: 4096 }), code: CodeOrRecovery },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            access_token: Type.String(),
            token_type: Type.Literal('bearer'),
            user: Type.Object({ id: Uuid, username: Type.String(), role: StringEnum(ROLES) }),
          }),
          ...errorResponses(400, 401, 429),
        },
      },
    },
    async (request, reply) => {
      const { user, method } = await verifyChallenge(deps, request.body.temp_token, request.body.code, request.ip);
      const token = await startSession(loginDeps, user, request.ip, `password+${method}`);
      setSessionCookie(reply, ctx, token);
      return { access_token: token, token_type: 'bearer' as const, user: { id: user.id, username: user.username, role: user.role } };
    },
  );

  app.delete(
    '/api/users/:id/2fa',
    {
      config: { access: { auth: 'session', role: 'admin' }, notFound: 'User not found' },
      schema: {
        tags: ['users'],
        operationId: 'resetUserTwoFactor',
        summary: "Reset a user's two-factor login (lost authenticator): their factor and recovery codes are removed",
        params: IdParams,
        response: { 204: Empty, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const target = await findUserById(ctx.db, request.params.id);
      if (!target) throw notFound('User not found');
      await reset(deps, sessionOf(request).user, target, request.ip);
      return reply.code(204).send(null);
    },
  );
}

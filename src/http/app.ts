// Builds the HTTP application: cross-cutting plugins (headers, errors, validation, access control,
// OpenAPI) and every feature's routes. No listening here; see server.ts.
import Fastify from 'fastify';
import cookie from '@fastify/cookie';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext, App } from './context.js';
import { answerClientError } from './client-errors.js';
import { HttpError, badRequest, sendError, toHttpError } from './errors.js';
import { trackRoutes } from './method-not-allowed.js';
import { refuseUnexpectedBody } from './no-body.js';
import { registerOpenApi } from './openapi.js';
import { ErrorBody } from './schemas.js';
import { registerSecurityHeaders, SECURITY_HEADERS } from './security-headers.js';
import { serverTimeoutOptions } from './timeouts.js';
import { buildLazySerializer } from './lazy-serializers.js';
import { validatorCompiler } from './validation.js';
import { restoreNumbers } from './exact-json.js';
import { utf8Text } from './storable-text.js';
import { BackendUnavailableError } from '../backends/backend.js';
import { isForeignKeyViolation, isUniqueViolation } from '../db/constraint-errors.js';
import { registerAccessControl } from '../auth/access.js';
import { apiKeyGate } from '../api-keys/gate.js';
import type { RateLimitOptions } from '../api-keys/rate-limit.js';
import { apiKeyRoutes } from '../api-keys/routes.js';
import { notificationRoutes } from '../notifications/routes.js';
import { externalRoutes } from '../external/routes.js';
import { alertStreamRoutes, type AlertStreamOptions } from '../alerts/stream-routes.js';
import { authRoutes } from '../auth/routes.js';
import { sessionStatusRoutes } from '../auth/session-status.js';
import { ssoRoutes } from '../auth/sso/routes.js';
import { twoFactorRoutes } from '../auth/two-factor/routes.js';
import { alertRoutes } from '../alerts/routes.js';
import { alertContextRoutes } from '../alerts/context-routes.js';
import { processTreeRoutes } from '../alerts/process-tree-routes.js';
import { alertHistogramRoutes } from '../alerts/histogram-routes.js';
import { auditRoutes } from '../audit/routes.js';
import { healthRoutes } from '../health/routes.js';
import { userRoutes } from '../users/routes.js';
import { UserSchema } from '../users/view.js';
import { indexPatternRoutes } from '../index-patterns/routes.js';
import { presetRoutes } from '../index-patterns/preset-routes.js';
import { ingestRoutes } from '../ingest/routes.js';
import { esRoutes } from '../ingest/es/routes.js';
import { bulkRuleRoutes } from '../rules/bulk-routes.js';
import { exceptionRoutes } from '../rules/exceptions/routes.js';
import { exceptionPreviewRoutes } from '../rules/exceptions/preview-routes.js';
import { suppressionRoutes } from '../rules/suppression/routes.js';
import { importRoutes } from '../rules/import-routes.js';
import { ruleRoutes } from '../rules/routes.js';
import { reconcileRoutes } from '../rules/reconcile-routes.js';
import { testingRoutes } from '../rules/testing.js';
import { versionRoutes } from '../rules/version-routes.js';
import { threatIntelRoutes } from '../threat-intel/routes.js';
import { statsRoutes } from '../stats/routes.js';
import { webUiRoutes } from '../web/ui-routes.js';

/** Largest request body accepted by default (rule YAML up to 1 MiB plus JSON overhead). */
export const DEFAULT_BODY_LIMIT = 2 * 1024 * 1024;

export interface BuildOptions {
  /** The request and start-up log (pino): off, or at a level, written to stdout or to `stream`. */
  logger?: boolean | { level: string; stream?: { write(line: string): void } };
  trustProxy?: boolean;
  /** API-key rate limiting: the window length and, for tests, the clock. */
  rateLimit?: RateLimitOptions;
  /** Tuning of the live alert stream (heartbeat, limits); defaults suit production. */
  alertStream?: AlertStreamOptions;
  /** Folder of the built web UI served at / (default dist/ui; absent → no UI). */
  uiRoot?: string;
}

export async function buildApp(ctx: AppContext, options: BuildOptions = {}): Promise<App> {
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: DEFAULT_BODY_LIMIT,
    trustProxy: options.trustProxy ?? false,
    return503OnClosing: true,
    // Slow or idle connections are closed (408 while a request is still arriving).
    ...serverTimeoutOptions(ctx.config.http),
    // Long enough that any over-long id reaches validation (and answers 404 like any other bad id).
    routerOptions: { maxParamLength: 2048 },
    // Errors Fastify raises before routing (an undecodable URL) still get the error model and headers.
    frameworkErrors: (error, _request, reply) => {
      reply.headers(SECURITY_HEADERS);
      const status = error.statusCode === 414 ? 414 : 400;
      return sendError(reply, new HttpError(status, status === 414 ? 'URI Too Long' : 'Malformed URL'));
    },
    ajv: { customOptions: { removeAdditional: false } },
    schemaController: { compilersFactory: { buildSerializer: buildLazySerializer } },
    clientErrorHandler: answerClientError,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  // An empty body sent with Content-Type: application/json counts as no body (clients often set the
  // header on every request, also for body-less POSTs such as deploy); anything else is parsed by
  // Fastify's own parser, which refuses __proto__/constructor poisoning.
  const jsonParser = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  // Bodies are JSON: Fastify's default text/plain parser would hand a JSON route a string (and a schema
  // error); without it such a body answers 415. Routes that read other types add their own parsers.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    // Bytes that are not UTF-8 are refused, never read as U+FFFD into stored text.
    const text = utf8Text(body as Buffer);
    if (text === null) return done(badRequest('The body is not valid UTF-8'), undefined);
    if (text.trim() === '') return done(null, undefined);
    return jsonParser(request, text, done);
  });
  const routes = trackRoutes(app);
  app.addHook('onRoute', refuseUnexpectedBody);
  registerSecurityHeaders(app);
  // Event numbers past a double's precision leave as the digits they came with (exact-json.ts).
  app.addHook('onSend', async (_request, _reply, payload) => (typeof payload === 'string' ? restoreNumbers(payload) : payload));
  await app.register(cookie);
  app.addSchema(ErrorBody);
  app.addSchema(UserSchema);
  await registerOpenApi(app);

  app.setErrorHandler((error, request, reply) => {
    const httpError =
      error instanceof BackendUnavailableError
        ? new HttpError(503, error.message)
        : isForeignKeyViolation(error)
          ? new HttpError(409, 'Something this request refers to was changed or removed at the same time; retry')
          : isUniqueViolation(error)
            ? new HttpError(409, 'This conflicts with data created at the same time; retry')
            : toHttpError(error as Error, request);
    if (httpError.statusCode >= 500) request.log.error({ err: error }, 'request failed');
    return sendError(reply, httpError);
  });
  const webUi = await webUiRoutes(app, options.uiRoot);
  app.setNotFoundHandler((request, reply) => {
    if (webUi.fallback(request, reply)) return reply;
    const allowed = routes.allowedMethods(request.method, request.url);
    if (allowed.length > 0) {
      reply.header('Allow', allowed.join(', '));
      return sendError(reply, new HttpError(405, 'Method Not Allowed'));
    }
    return sendError(reply, new HttpError(404, 'Not Found'));
  });

  registerAccessControl(app, { db: ctx.db, tokens: ctx.tokens, apiKeys: apiKeyGate(ctx.db, options.rateLimit) });

  healthRoutes(app, ctx);
  authRoutes(app, ctx);
  sessionStatusRoutes(app);
  ssoRoutes(app, ctx);
  twoFactorRoutes(app, ctx);
  userRoutes(app, ctx);
  auditRoutes(app, ctx);
  presetRoutes(app);
  indexPatternRoutes(app, ctx);
  ruleRoutes(app, ctx);
  bulkRuleRoutes(app, ctx);
  reconcileRoutes(app, ctx);
  versionRoutes(app, ctx);
  exceptionRoutes(app, ctx);
  exceptionPreviewRoutes(app, ctx);
  suppressionRoutes(app, ctx);
  testingRoutes(app, ctx);
  alertRoutes(app, ctx);
  alertContextRoutes(app, ctx);
  processTreeRoutes(app, ctx);
  alertHistogramRoutes(app, ctx);
  statsRoutes(app, ctx);
  apiKeyRoutes(app, ctx);
  notificationRoutes(app, ctx);
  externalRoutes(app, ctx);
  await importRoutes(app, ctx);
  await ingestRoutes(app, ctx);
  await threatIntelRoutes(app, ctx);
  await esRoutes(app, ctx);
  alertStreamRoutes(app, ctx, options.alertStream);

  await app.ready();
  return app;
}

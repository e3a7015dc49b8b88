// The external API for integrations: read-only views of alerts, rules and stats under /api/external,
// opened by API keys only (rate-limited per key; see src/api-keys/gate.ts). Each endpoint takes the same
// query parameters and answers the same shapes as its internal counterpart, through the same functions.
import { Type, type TSchema } from '@fastify/type-provider-typebox';
import type { App, AppContext } from '../http/context.js';
import { errorResponses, IdParams } from '../http/schemas.js';
import { listResponseSchema } from '../http/lists.js';
import { AlertListSchema, alertListQuery, listAlerts, readAlert } from '../alerts/routes.js';
import { ALERT_NOT_FOUND } from '../alerts/service.js';
import { AlertDetailSchema } from '../alerts/view.js';
import { listRules, readRule, ruleListQuery } from '../rules/routes.js';
import { RULE_NOT_FOUND } from '../rules/service.js';
import { RuleSchema } from '../rules/view.js';
import { readStats, StatsSchema } from '../stats/routes.js';

const apiKey = { auth: 'apikey' as const };
const LIMITED =
  ' Every answer after the key is checked carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset; past the limit, 429 with Retry-After.';

const RATE_HEADERS = {
  'X-RateLimit-Limit': Type.Integer({ description: "Requests allowed per minute for this key's tier (standard 60, high 300)" }),
  'X-RateLimit-Remaining': Type.Integer({ description: 'Requests left in the current minute' }),
  'X-RateLimit-Reset': Type.Integer({ description: 'Whole seconds until the current minute ends' }),
};

/** The answers of an external endpoint: `ok` and its errors, documented with the rate-limit headers. */
function limitedResponses(ok: TSchema, ...errors: number[]) {
  const documented = Object.fromEntries(Object.entries(errorResponses(...errors)).map(([code, schema]) => [code, { ...schema, headers: RATE_HEADERS }]));
  return {
    200: { ...ok, headers: RATE_HEADERS },
    ...documented,
    401: Type.Ref('Error'),
    429: { ...Type.Ref('Error'), headers: { ...RATE_HEADERS, 'Retry-After': Type.Integer({ description: 'Whole seconds until the minute ends (at least 1)' }) } },
  };
}

export function externalRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/api/external/alerts',
    {
      config: { access: apiKey },
      schema: {
        tags: ['external'],
        operationId: 'listExternalAlerts',
        summary: 'List alerts (as GET /api/alerts)',
        description: `Same parameters and answer as GET /api/alerts.${LIMITED}`,
        querystring: alertListQuery,
        response: limitedResponses(AlertListSchema, 400, 403),
      },
    },
    async (request) => listAlerts(ctx, request.query),
  );

  app.get(
    '/api/external/alerts/:id',
    {
      config: { access: apiKey, notFound: ALERT_NOT_FOUND },
      schema: {
        tags: ['external'],
        operationId: 'getExternalAlert',
        summary: 'Read an alert (as GET /api/alerts/{id})',
        description: `Same answer as GET /api/alerts/{id}.${LIMITED}`,
        params: IdParams,
        response: limitedResponses(AlertDetailSchema, 403, 404),
      },
    },
    async (request) => readAlert(ctx, request.params.id),
  );

  app.get(
    '/api/external/rules',
    {
      config: { access: apiKey },
      schema: {
        tags: ['external'],
        operationId: 'listExternalRules',
        summary: 'List rules (as GET /api/rules)',
        description: `Same parameters and answer as GET /api/rules.${LIMITED}`,
        querystring: ruleListQuery,
        response: limitedResponses(listResponseSchema(RuleSchema), 400, 403),
      },
    },
    async (request) => listRules(ctx, request.query),
  );

  app.get(
    '/api/external/rules/:id',
    {
      config: { access: apiKey, notFound: RULE_NOT_FOUND },
      schema: {
        tags: ['external'],
        operationId: 'getExternalRule',
        summary: 'Read a rule (as GET /api/rules/{id})',
        description: `Same answer as GET /api/rules/{id}.${LIMITED}`,
        params: IdParams,
        response: limitedResponses(RuleSchema, 403, 404),
      },
    },
    async (request) => readRule(ctx, request.params.id),
  );

  app.get(
    '/api/external/stats',
    {
      config: { access: apiKey },
      schema: {
        tags: ['external'],
        operationId: 'getExternalStats',
        summary: 'Dashboard figures (as GET /api/stats)',
        description: `Same answer as GET /api/stats.${LIMITED}`,
        response: limitedResponses(StatsSchema, 403),
      },
    },
    async () => readStats(ctx),
  );
}

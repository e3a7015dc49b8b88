// POST /api/rules/{id}/exceptions/preview: what an exception would cover before it is created (the body
// a creation takes): the rule's open alerts it matches, with a few of their ids, and the stored events
// of the last 7 days it would have suppressed. Both are bounded (coverage.ts) and say so. Nothing is
// written.
import { Type } from '@fastify/type-provider-typebox';
import type { App, AppContext } from '../../http/context.js';
import { badRequest, HttpError, notFound } from '../../http/errors.js';
import { errorResponses, Uuid } from '../../http/schemas.js';
import { findPatternById } from '../../index-patterns/store.js';
import { RULE_NOT_FOUND } from '../service.js';
import { findRule } from '../store.js';
import { analyst } from '../routes.js';
import { coveredOpenAlerts, suppressedRecently } from './coverage.js';
import { exceptionValueProblem, type ExceptionSpec } from './matcher.js';
import { checkExpiry } from './routes.js';
import { newExceptionFields } from './schemas.js';

const PREVIEW_UNAVAILABLE = 'Search backend unavailable: the preview cannot read the stored events';

/** How many ids of covered open alerts a preview lists. */
const SAMPLE_IDS = 10;

const PreviewSchema = Type.Object(
  {
    open_alerts: Type.Integer({ description: "The rule's open alerts (new or acknowledged) the exception covers" }),
    sample_alert_ids: Type.Array(Uuid, { description: `Up to ${SAMPLE_IDS} of them` }),
    open_alerts_scanned: Type.Integer({ description: 'Open alerts examined' }),
    open_alerts_capped: Type.Boolean({ description: 'The examination stopped at its bound: there are more open alerts' }),
    events_last_7_days: Type.Integer({ description: 'Stored events of the last 7 days the rule matches and the exception would have suppressed' }),
    events_scanned: Type.Integer({ description: 'Stored events examined' }),
    events_capped: Type.Boolean({ description: 'The scan stopped at its bound before the 7 days were read' }),
  },
  { description: 'What an exception would cover' },
);

export function exceptionPreviewRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/api/rules/:id/exceptions/preview',
    {
      config: analyst,
      schema: {
        tags: ['rules'],
        operationId: 'previewRuleException',
        summary: 'What an exception would cover: open alerts, and stored events of the last 7 days',
        params: Type.Object({ id: Uuid }),
        body: Type.Object({ ...newExceptionFields, close_matching: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
        response: { 200: PreviewSchema, ...errorResponses(400, 401, 403, 404, 413, 422, 503) },
      },
    },
    async (request) => {
      const rule = await findRule(ctx.db, request.params.id);
      if (!rule) throw notFound(RULE_NOT_FOUND);
      const body = request.body;
      checkExpiry(body.expires_at);
      const exception: ExceptionSpec = { field: body.field, operator: body.operator, value: body.value };
      const problem = exceptionValueProblem(exception);
      if (problem) throw badRequest('Invalid exception', [{ field: 'body.value', message: problem }]);
      const covered = await coveredOpenAlerts(ctx, rule.id, exception);
      const pattern = rule.rule_type === 'detection' && rule.index_pattern_id ? await findPatternById(ctx.db, rule.index_pattern_id) : undefined;
      let events = { suppressed: 0, scanned: 0, capped: false };
      if (pattern) {
        if (!(await ctx.backend.health())) throw new HttpError(503, PREVIEW_UNAVAILABLE);
        events = await suppressedRecently(ctx, rule.yaml_content, pattern, exception);
      }
      return {
        open_alerts: covered.ids.length,
        sample_alert_ids: covered.ids.slice(0, SAMPLE_IDS),
        open_alerts_scanned: covered.scanned,
        open_alerts_capped: covered.capped,
        events_last_7_days: events.suppressed,
        events_scanned: events.scanned,
        events_capped: events.capped,
      };
    },
  );
}

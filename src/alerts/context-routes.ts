// GET /api/alerts/{id}/context: the alert's rule as its YAML describes it, and the related alerts
// (context.ts), and where the matched fields sit in its stored event (matched-paths.ts). Any signed-in role.
import { Type } from '@fastify/type-provider-typebox';
import type { App, AppContext } from '../http/context.js';
import { notFound } from '../http/errors.js';
import { errorResponses, IdParams, Nullable, StringEnum, Timestamp, Uuid } from '../http/schemas.js';
import { findAlert } from './queries.js';
import { exactNumbersIn, withNumbersOf } from '../http/exact-json.js';
import { ALERT_NOT_FOUND } from './service.js';
import { matchedFieldsOf, RELATED_LIMIT, RELATED_WINDOW_SECONDS, relatedAlerts, ruleContext } from './context.js';

const ContextSchema = Type.Object({
  rule: Nullable(
    Type.Object({
      id: Uuid,
      title: Type.String(),
      description: Nullable(Type.String()),
      author: Nullable(Type.String()),
      false_positives: Type.Array(Type.String()),
      references: Type.Array(Type.String()),
      techniques: Type.Array(Type.Object({ id: Type.String({ description: 'T1003 or T1003.001' }), url: Type.String({ description: 'The technique page on attack.mitre.org' }) })),
    }),
    { description: 'The rule as its current YAML describes it (null: the rule was deleted)' },
  ),
  related: Type.Array(
    Type.Object({
      id: Uuid,
      rule_title: Type.String(),
      severity: Type.String(),
      status: Type.String(),
      event_time: Timestamp,
      created_at: Timestamp,
      shared: Type.Array(StringEnum(['host', 'user', 'source_ip'] as const)),
    }),
    { description: `Alerts sharing the host, user or source IP, their events within ${RELATED_WINDOW_SECONDS / 60} minutes of this alert's event; at most ${RELATED_LIMIT}, nearest first` },
  ),
  matched_fields: Type.Array(
    Type.Object({
      field: Type.String({ description: 'The field as the rule read it (after field mapping and the preset reshaping the event)' }),
      value: Type.Unknown({ description: 'The value the rule matched' }),
      paths: Type.Array(Type.String(), { description: "Dotted paths of the stored event (keys joined by '.', array members by index) holding it; empty when not found" }),
    }),
    { description: 'Each field of matched_conditions at its place in the event as stored' },
  ),
});

export function alertContextRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/api/alerts/:id/context',
    {
      config: { access: { auth: 'session' as const }, notFound: ALERT_NOT_FOUND },
      schema: { tags: ['alerts'], operationId: 'getAlertContext', summary: "An alert's rule description and related alerts", params: IdParams, response: { 200: ContextSchema, ...errorResponses(401, 404) } },
    },
    async (request) => {
      const alert = await findAlert(ctx.db, request.params.id);
      if (!alert) throw notFound(ALERT_NOT_FOUND);
      const [rule, related, matched] = await Promise.all([ruleContext(ctx.db, alert.rule_id), relatedAlerts(ctx.db, alert), matchedFieldsOf(ctx.db, alert)]);
      // The matched values keep the digits the event's numbers were sent with (exact-json.ts).
      return { rule, related, matched_fields: withNumbersOf(matched, exactNumbersIn(alert.event)) };
    },
  );
}

// A rule's suppression (deduplication of its alerts): read, set and remove. While an alert of the rule
// with the same values of the group-by fields is open and younger than the window, a new match adds to
// that alert (occurrences, last seen, its events) instead of raising another. Analysts set it; audited.
import { Type } from '@fastify/type-provider-typebox';
import type { App, AppContext } from '../../http/context.js';
import { NOT_BLANK, notFound } from '../../http/errors.js';
import { Empty, errorResponses, Timestamp, Uuid } from '../../http/schemas.js';
import { recordAudit } from '../../audit/log.js';
import { RULE_NOT_FOUND } from '../service.js';
import { findRule } from '../store.js';
import { actorOf, analyst, reader } from '../routes.js';
import { deleteSuppression, findSuppression, saveSuppression, type SuppressionRow } from './store.js';

/** The longest window: 30 days. */
export const MAX_SUPPRESSION_WINDOW_SECONDS = 30 * 24 * 3600;
/** At most this many group-by fields. */
export const MAX_SUPPRESSION_FIELDS = 5;
const NO_SUPPRESSION = 'This rule has no suppression';

const SuppressionSchema = Type.Object(
  {
    rule_id: Uuid,
    group_by: Type.Array(Type.String(), { description: 'The fields whose values make a group: host, user, source_ip (the alert entities) or any event field' }),
    window_seconds: Type.Integer({ description: 'How long an open alert of a group takes the group\'s further matches, from its creation' }),
    updated_by: Type.String(),
    updated_at: Timestamp,
  },
  { description: "A rule's suppression setting" },
);

const SuppressionBody = Type.Object(
  {
    group_by: Type.Array(Type.String({ minLength: 1, maxLength: 256, pattern: NOT_BLANK }), { minItems: 1, maxItems: MAX_SUPPRESSION_FIELDS, uniqueItems: true }),
    window_seconds: Type.Integer({ minimum: 1, maximum: MAX_SUPPRESSION_WINDOW_SECONDS }),
  },
  { additionalProperties: false },
);

const view = (row: SuppressionRow) => ({ ...row, updated_at: row.updated_at.toISOString() });
const Params = Type.Object({ id: Uuid });

export function suppressionRoutes(app: App, ctx: AppContext): void {
  async function ruleMustExist(id: string): Promise<void> {
    if (!(await findRule(ctx.db, id))) throw notFound(RULE_NOT_FOUND);
  }

  app.get(
    '/api/rules/:id/suppression',
    {
      config: reader,
      schema: {
        tags: ['rules'],
        operationId: 'getRuleSuppression',
        summary: "A rule's suppression setting (404 when it has none)",
        params: Params,
        response: { 200: SuppressionSchema, ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      await ruleMustExist(request.params.id);
      const row = await findSuppression(ctx.db, request.params.id);
      if (!row) throw notFound(NO_SUPPRESSION);
      return view(row);
    },
  );

  app.put(
    '/api/rules/:id/suppression',
    {
      config: analyst,
      schema: {
        tags: ['rules'],
        operationId: 'setRuleSuppression',
        summary: 'Fold repeated matches of a rule into one open alert per group',
        params: Params,
        body: SuppressionBody,
        response: { 200: SuppressionSchema, ...errorResponses(400, 401, 403, 404, 415, 503) },
      },
    },
    async (request) => {
      const ruleId = request.params.id;
      const actor = actorOf(request);
      const row = await ctx.db.transaction(async (tx) => {
        if (!(await findRule(tx, ruleId, true))) throw notFound(RULE_NOT_FOUND);
        const saved = await saveSuppression(tx, ruleId, request.body.group_by, request.body.window_seconds, actor.username);
        await recordAudit(tx, { actor: actor.username, action: 'rule.suppression_set', targetType: 'rule', targetId: ruleId, details: { group_by: saved.group_by, window_seconds: saved.window_seconds }, ip: actor.ip });
        return saved;
      });
      return view(row);
    },
  );

  app.delete(
    '/api/rules/:id/suppression',
    {
      config: analyst,
      schema: {
        tags: ['rules'],
        operationId: 'deleteRuleSuppression',
        summary: 'Stop suppressing: every further match raises its own alert',
        params: Params,
        response: { 204: Empty, ...errorResponses(401, 403, 404, 503) },
      },
    },
    async (request, reply) => {
      const ruleId = request.params.id;
      const actor = actorOf(request);
      await ctx.db.transaction(async (tx) => {
        if (!(await findRule(tx, ruleId, true))) throw notFound(RULE_NOT_FOUND);
        if (!(await deleteSuppression(tx, ruleId))) throw notFound(NO_SUPPRESSION);
        await recordAudit(tx, { actor: actor.username, action: 'rule.suppression_delete', targetType: 'rule', targetId: ruleId, ip: actor.ip });
      });
      return reply.code(204).send(null);
    },
  );
}

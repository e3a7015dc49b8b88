// Alert endpoints: list (filters, sorts, search), read one, change status (one or many) and comments.
// Any signed-in role reads; analysts and admins triage.
import { Type, type Static } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { App, AppContext } from '../http/context.js';
import { NOT_BLANK, notFound } from '../http/errors.js';
import { listQuerySchema, listResponseSchema, subListQuerySchema } from '../http/lists.js';
import { BulkFailure, errorResponses, IdParams, StringEnum, Uuid } from '../http/schemas.js';
import { sessionOf } from '../auth/access.js';
import { analyseWhenStale } from '../db/statistics.js';
import { ALERT_SORT_FIELDS, alertEventIds, findAlert, pageAlerts, pageComments, SEARCH_COUNT_LIMIT } from './queries.js';
import { ALERT_NOT_FOUND, addComment, alertMustExist, bulkChangeStatus, changeStatus, type Actor } from './service.js';
import { SEVERITIES } from './severity.js';
import { AlertDetailSchema, AlertSchema, AlertStatusSchema, alertDetailView, alertView, CommentSchema, commentView, StatusChangeSchema } from './view.js';

const reader = { access: { auth: 'session' as const }, notFound: ALERT_NOT_FOUND };
const analyst = { access: { auth: 'session' as const, role: 'analyst' as const }, notFound: ALERT_NOT_FOUND };

const actorOf = (request: FastifyRequest): Actor => ({ username: sessionOf(request).user.username, ip: request.ip });

/** Comment text: 1 to 10 000 characters, not only white space. */
const CommentText = Type.String({ minLength: 1, maxLength: 10_000, pattern: NOT_BLANK });
const Entity = Type.String({ minLength: 1, maxLength: 1024 });

export const alertListQuery = listQuerySchema(ALERT_SORT_FIELDS, 'created_at', {
  search: Type.Optional(
    Type.String({ minLength: 3, maxLength: 200, description: 'Case-insensitive text in the rule title, host, user, source IP or event (3 characters or more)' }),
  ),
  status: Type.Optional(AlertStatusSchema),
  severity: Type.Optional(StringEnum(SEVERITIES)),
  rule_id: Type.Optional(Uuid),
  index_pattern: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Index pattern name' })),
  host: Type.Optional(Entity),
  user: Type.Optional(Entity),
  source_ip: Type.Optional(Entity),
});

/** The alerts list, shared by the session endpoint and the external (API key) one. */
export async function listAlerts(ctx: AppContext, q: Static<typeof alertListQuery>) {
  // The embedded database gathers no statistics by itself; filtered searches need them.
  await analyseWhenStale(ctx.db, 'alerts');
  const page = await pageAlerts(ctx.db, q);
  return { ...page, items: page.items.map(alertView) };
}

/** One alert with its event, shared by the session endpoint and the external one. */
export async function readAlert(ctx: AppContext, id: string) {
  const row = await findAlert(ctx.db, id);
  if (!row) throw notFound(ALERT_NOT_FOUND);
  return alertDetailView(row, await alertEventIds(ctx.db, row));
}

/** The list answer; `total_exact` is false when a search matched more alerts than it counts (total is then that bound). */
export const AlertListSchema = Type.Object({
  items: Type.Array(AlertSchema),
  total: Type.Integer(),
  total_exact: Type.Boolean({ description: `False when a search matched more than ${SEARCH_COUNT_LIMIT} alerts; total is then ${SEARCH_COUNT_LIMIT}` }),
  page: Type.Integer(),
  page_size: Type.Integer(),
  pages: Type.Integer(),
});

const CommentListQuery = subListQuerySchema(['created_at'], 'created_at', 'asc', {});

export function alertRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/api/alerts',
    {
      config: reader,
      schema: {
        tags: ['alerts'],
        operationId: 'listAlerts',
        summary: 'List alerts (newest first by default); filters combine with AND',
        querystring: alertListQuery,
        response: { 200: AlertListSchema, ...errorResponses(400, 401) },
      },
    },
    async (request) => listAlerts(ctx, request.query),
  );

  app.get(
    '/api/alerts/:id',
    {
      config: reader,
      schema: { tags: ['alerts'], operationId: 'getAlert', summary: 'Read an alert with its event and matched conditions', params: IdParams, response: { 200: AlertDetailSchema, ...errorResponses(401, 404) } },
    },
    async (request) => readAlert(ctx, request.params.id),
  );

  app.patch(
    '/api/alerts/:id',
    {
      config: analyst,
      schema: {
        tags: ['alerts'],
        operationId: 'updateAlertStatus',
        summary: "Change an alert's status (new → acknowledged → resolved | false_positive; any → new), optionally with a comment",
        params: IdParams,
        body: Type.Object({ status: AlertStatusSchema, comment: Type.Optional(CommentText) }, { additionalProperties: false }),
        response: { 200: StatusChangeSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => changeStatus(ctx.db, actorOf(request), request.params.id, request.body.status, request.body.comment),
  );

  app.post(
    '/api/alerts/bulk/status',
    {
      config: analyst,
      schema: {
        tags: ['alerts'],
        operationId: 'bulkUpdateAlertStatus',
        summary: 'Change the status of many alerts (1 to 1000 ids); each id succeeds or fails on its own',
        body: Type.Object(
          {
            ids: Type.Array(Type.String({ maxLength: 100 }), { minItems: 1, maxItems: 1000 }),
            status: AlertStatusSchema,
            comment: Type.Optional(CommentText),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ updated: Type.Integer(), failed: Type.Array(BulkFailure) }), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => bulkChangeStatus(ctx.db, actorOf(request), request.body.ids, request.body.status, request.body.comment),
  );

  app.get(
    '/api/alerts/:id/comments',
    {
      config: reader,
      schema: {
        tags: ['alerts'],
        operationId: 'listAlertComments',
        summary: "An alert's comments, oldest first",
        params: IdParams,
        querystring: CommentListQuery,
        response: { 200: listResponseSchema(CommentSchema), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      await alertMustExist(ctx.db, request.params.id);
      const page = await pageComments(ctx.db, request.params.id, request.query);
      return { ...page, items: page.items.map(commentView) };
    },
  );

  app.post(
    '/api/alerts/:id/comments',
    {
      config: analyst,
      schema: {
        tags: ['alerts'],
        operationId: 'addAlertComment',
        summary: 'Comment on an alert (its status is unchanged)',
        params: IdParams,
        body: Type.Object({ text: CommentText }, { additionalProperties: false }),
        response: { 201: CommentSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => reply.code(201).send(commentView(await addComment(ctx.db, actorOf(request), request.params.id, request.body.text))),
  );
}

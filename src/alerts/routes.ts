// Alert endpoints: list (filters, sorts, search), read one, change status (one or many) and comments.
// Any signed-in role reads; analysts and admins triage.
import { Type, type Static } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { App, AppContext } from '../http/context.js';
import { badRequest, NOT_BLANK, notFound } from '../http/errors.js';
import { listQuerySchema, listResponseSchema, subListQuerySchema } from '../http/lists.js';
import { BulkFailure, errorResponses, IdParams, StringEnum, Timestamp, Uuid } from '../http/schemas.js';
import { sessionOf } from '../auth/access.js';
import { analyseWhenStale } from '../db/statistics.js';
import { ALERT_SORT_FIELDS, alertEventIds, findAlert, pageAlerts, pageComments, SEARCH_COUNT_LIMIT } from './queries.js';
import { ALERT_NOT_FOUND, addComment, alertMustExist, bulkChangeStatus, changeStatus, type Actor, type TriageChange } from './service.js';
import { bulkChangeByFilter, MAX_BULK_BY_FILTER } from './bulk-by-filter.js';
import { assigneeMustTriage } from './assignee.js';
import { GROUP_KEYS, groupAlerts } from './groups.js';

/** The most groups one answer lists. */
const MAX_GROUPS = 1000;
import { SEVERITIES } from './severity.js';
import { type AlertStatus, AlertDetailSchema, AlertSchema, AlertStatusSchema, alertDetailView, alertView, CommentSchema, commentView, StatusChangeSchema } from './view.js';

const reader = { access: { auth: 'session' as const }, notFound: ALERT_NOT_FOUND };
const analyst = { access: { auth: 'session' as const, role: 'analyst' as const }, notFound: ALERT_NOT_FOUND };

const actorOf = (request: FastifyRequest): Actor => {
  const { user } = sessionOf(request);
  return { username: user.username, ip: request.ip, userId: user.id, assignOnAcknowledge: user.assign_on_acknowledge };
};

/** Comment text: 1 to 10 000 characters, not only white space. */
const CommentText = Type.String({ minLength: 1, maxLength: 10_000, pattern: NOT_BLANK });
const Entity = Type.String({ minLength: 1, maxLength: 1024 });

const UUID_PATTERN = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';

/** The list's filters (besides the creation time range), shared by the list and the bulk change by filter. */
export const alertFilters = {
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
  assignee: Type.Optional(Type.String({ pattern: `^(me|none|${UUID_PATTERN})$`, description: "'me' (the signed-in user), 'none' (unassigned) or a user id" })),
  event_after: Type.Optional(Timestamp),
  event_before: Type.Optional(Timestamp),
};

export const alertListQuery = listQuerySchema(ALERT_SORT_FIELDS, 'created_at', alertFilters);

/** The filters of a bulk change: those of the list, without paging and sorting. */
export const AlertFilterSchema = Type.Object(
  { created_after: Type.Optional(Timestamp), created_before: Type.Optional(Timestamp), ...alertFilters },
  { additionalProperties: false, description: 'The filters of GET /api/alerts' },
);

/** A list query with `assignee=me` made the signed-in user's id (`me` undefined for an API key: 400). */
export function resolveAssignee<Q extends { assignee?: string }>(q: Q, me: string | undefined): Q {
  if (q.assignee !== 'me') return q.assignee && q.assignee !== 'none' ? { ...q, assignee: q.assignee.toLowerCase() } : q;
  if (!me) throw badRequest('assignee=me names the signed-in user; an API key has none: give a user id');
  return { ...q, assignee: me };
}

/** The alerts list, shared by the session endpoint and the external (API key) one. */
export async function listAlerts(ctx: AppContext, query: Static<typeof alertListQuery>, me?: string) {
  const q = resolveAssignee(query, me);
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

/** The fields of a triage change (single or bulk): a status, an assignee, or both. */
const changeFields = {
  status: Type.Optional(AlertStatusSchema),
  assignee: Type.Optional(Type.Union([Uuid, Type.Null()], { description: 'A user id (an active analyst or admin), or null to unassign' })),
  acknowledge_first: Type.Optional(Type.Boolean({ description: 'Resolving or marking a new alert a false positive acknowledges it first (both moves recorded)' })),
};

export function alertRoutes(app: App, ctx: AppContext): void {
  /** The change a request asks for: a status, an assignee or both (400 without either); the assignee must be able to triage (422). */
  async function triageChange(body: { status?: AlertStatus; assignee?: string | null; comment?: string; acknowledge_first?: boolean }): Promise<TriageChange> {
    // Without either, the status is what is missing (the contract's answer to a request without one).
    if (body.status === undefined && body.assignee === undefined) throw badRequest('Invalid status value', [{ field: 'body.status', message: 'is required unless an assignee is given' }]);
    const assignee = body.assignee === undefined || body.assignee === null ? body.assignee : body.assignee.toLowerCase();
    if (assignee) await assigneeMustTriage(ctx.db, assignee);
    return { status: body.status, assignee, comment: body.comment, acknowledgeFirst: body.acknowledge_first };
  }

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
    async (request) => listAlerts(ctx, request.query, sessionOf(request).user.id),
  );

  app.get(
    '/api/alerts/groups',
    {
      config: reader,
      schema: {
        tags: ['alerts'],
        operationId: 'groupAlerts',
        summary: 'Alerts grouped by rule, host, user or source IP (largest groups first), under the filters of the list',
        querystring: Type.Object(
          {
            by: StringEnum(GROUP_KEYS),
            limit: Type.Integer({ minimum: 1, maximum: MAX_GROUPS, default: 100, description: `How many groups to answer (1 to ${MAX_GROUPS})` }),
            created_after: Type.Optional(Timestamp),
            created_before: Type.Optional(Timestamp),
            ...alertFilters,
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            items: Type.Array(
              Type.Object({
                key: Type.Union([Type.String(), Type.Null()], { description: 'The rule id, host, user or source IP (null: alerts without one)' }),
                label: Type.String(),
                count: Type.Integer(),
                max_severity: StringEnum(SEVERITIES),
                first_seen: Timestamp,
                last_seen: Timestamp,
              }),
            ),
            total: Type.Integer({ description: 'How many groups there are' }),
          }),
          ...errorResponses(400, 401),
        },
      },
    },
    async (request) => {
      const { by, limit, ...filters } = request.query;
      await analyseWhenStale(ctx.db, 'alerts');
      return groupAlerts(ctx.db, by, resolveAssignee({ page: 1, page_size: 1, ...filters }, sessionOf(request).user.id), limit);
    },
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
        summary: "Change an alert's status (new → acknowledged → resolved | false_positive; any → new) and/or its assignee, optionally with a comment",
        params: IdParams,
        body: Type.Object({ ...changeFields, comment: Type.Optional(CommentText) }, { additionalProperties: false }),
        response: { 200: StatusChangeSchema, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
    },
    async (request) => changeStatus(ctx.db, actorOf(request), request.params.id, await triageChange(request.body)),
  );

  app.post(
    '/api/alerts/bulk/status',
    {
      config: analyst,
      schema: {
        tags: ['alerts'],
        operationId: 'bulkUpdateAlertStatus',
        summary: `Change the status and/or assignee of many alerts: 1 to 1000 ids (each succeeds or fails on its own), or every alert a filter matches (at most ${MAX_BULK_BY_FILTER})`,
        body: Type.Object(
          {
            ids: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { minItems: 1, maxItems: 1000 })),
            filter: Type.Optional(AlertFilterSchema),
            ...changeFields,
            comment: Type.Optional(CommentText),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            updated: Type.Integer(),
            failed: Type.Array(BulkFailure, { description: 'By ids: the ids not changed, with the reason (empty for a filter)' }),
            skipped: Type.Optional(Type.Integer({ description: 'By filter: matching alerts the change does not apply to (a refused move, or nothing to change)' })),
          }),
          ...errorResponses(400, 401, 403, 422),
        },
      },
    },
    async (request) => {
      const { ids, filter, ...rest } = request.body;
      if ((ids === undefined) === (filter === undefined)) throw badRequest('Give either ids or filter');
      const change = await triageChange(rest);
      if (ids) return bulkChangeStatus(ctx.db, actorOf(request), ids, change);
      const query = resolveAssignee({ page: 1, page_size: 1, ...filter! }, sessionOf(request).user.id);
      return bulkChangeByFilter(ctx.db, actorOf(request), query, change);
    },
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

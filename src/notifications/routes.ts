// Notification channel endpoints (admins, session, CSRF on changes): create, list, read, change and
// delete channels, send a test message now, list a channel's deliveries and retry a failed one.
import { Type } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { recordAudit } from '../audit/log.js';
import { sessionOf } from '../auth/access.js';
import type { App, AppContext } from '../http/context.js';
import { conflict, NOT_BLANK, notFound } from '../http/errors.js';
import { Conditions, listQuerySchema, listResponseSchema, paginate, subListQuerySchema } from '../http/lists.js';
import { Empty, errorResponses, IdParams, StringEnum, Uuid } from '../http/schemas.js';
import { recordHealth } from './channel-health.js';
import { CHANNEL_COLUMNS, findChannel, type ChannelRow } from './channel-store.js';
import { CHANNEL_TYPES } from './channel-types.js';
import { CHANNEL_NOT_FOUND, changeChannel, channelSecretBox, createChannel, openSecrets, removeChannel, type Actor, type ChannelContext } from './channel-service.js';
import { DELIVERY_COLUMNS, DELIVERY_STATUSES, findDelivery, recordTestDelivery, retryDelivery, type DeliveryRow } from './delivery-store.js';
import { sendMessage } from './send.js';
import { ChannelSchema, channelView, DeliverySchema, deliveryView } from './view.js';

const admin = { access: { auth: 'session' as const, role: 'admin' as const }, notFound: CHANNEL_NOT_FOUND };
const DELIVERY_NOT_FOUND = 'Delivery not found';

const actorOf = (request: FastifyRequest): Actor => ({ username: sessionOf(request).user.username, ip: request.ip });

/** Settings of a channel; `type` and `config` are checked by the service (422 naming the field). */
const channelFields = {
  name: Type.String({ minLength: 1, maxLength: 100, pattern: NOT_BLANK }),
  type: Type.String({ maxLength: 32, description: `One of: ${CHANNEL_TYPES.join(', ')}` }),
  config: Type.Record(Type.String(), Type.Unknown(), { description: 'The settings of the type (see docs/notifications.md)' }),
  enabled: Type.Boolean({ default: true }),
  min_severity: Type.String({ maxLength: 32, description: 'informational, low (default), medium, high or critical' }),
  index_patterns: Type.Union([Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 100 }), Type.Null()]),
  rule_tags: Type.Union([Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 100 }), Type.Null()]),
  max_per_rule: Type.Integer({ minimum: 1, maximum: 10_000, description: 'Messages per rule per window (default 10)' }),
  window_seconds: Type.Integer({ minimum: 10, maximum: 86_400, description: 'The throttle window (default 300)' }),
};
const { name, type, config, ...optional } = channelFields;
const CreateBody = Type.Object(
  { name, type, config, ...Object.fromEntries(Object.entries(optional).map(([k, v]) => [k, Type.Optional(v)])) },
  { additionalProperties: false },
);
const ChangeBody = Type.Object(Object.fromEntries(Object.entries(channelFields).map(([k, v]) => [k, Type.Optional(v)])), {
  additionalProperties: false,
  minProperties: 1,
});

const ChannelListQuery = listQuerySchema(['created_at', 'name'], 'created_at', {
  type: Type.Optional(StringEnum(CHANNEL_TYPES)),
  enabled: Type.Optional(Type.Boolean()),
});
const DeliveryListQuery = subListQuerySchema(['created_at'], 'created_at', 'desc', {
  status: Type.Optional(StringEnum(DELIVERY_STATUSES)),
  alert_id: Type.Optional(Uuid),
});
const DeliveryParams = Type.Object({ id: Uuid, delivery_id: Uuid });

const TestOutcomeSchema = Type.Object({
  delivered: Type.Boolean(),
  status_code: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  duration_ms: Type.Integer(),
  delivery: DeliverySchema,
});

const secretNames = (ctx: ChannelContext, row: ChannelRow) => Object.keys(openSecrets(ctx.box, row));

export function notificationRoutes(app: App, ctx: AppContext): void {
  const channels: ChannelContext = {
    db: ctx.db,
    box: channelSecretBox(ctx.tokens),
    allowPrivate: ctx.config.notifyAllowPrivate,
  };
  const view = (row: ChannelRow) => channelView(row, secretNames(channels, row));

  app.post(
    '/api/notification_channels',
    {
      config: admin,
      schema: {
        tags: ['notifications'],
        operationId: 'createNotificationChannel',
        summary: 'Create a notification channel (webhook, slack, teams, discord, email or syslog); secrets are never answered',
        body: CreateBody,
        response: { 201: ChannelSchema, ...errorResponses(400, 401, 403, 409, 422) },
      },
    },
    async (request, reply) => reply.code(201).send(view(await createChannel(channels, actorOf(request), request.body as never))),
  );

  app.get(
    '/api/notification_channels',
    {
      config: admin,
      schema: {
        tags: ['notifications'],
        operationId: 'listNotificationChannels',
        summary: 'List notification channels',
        querystring: ChannelListQuery,
        response: { 200: listResponseSchema(ChannelSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const q = request.query;
      const where = new Conditions().addCommon(q, 'created_at', ['name']);
      if (q.type) where.add('type = ?', q.type);
      if (q.enabled !== undefined) where.add('enabled = ?', q.enabled);
      return paginate(ctx.db, {
        select: CHANNEL_COLUMNS,
        from: 'notification_channels',
        where,
        query: q,
        sortColumns: { created_at: 'created_at', name: 'lower(name)' },
        tieBreaker: 'id',
        map: (row: ChannelRow) => view(row),
      });
    },
  );

  app.get(
    '/api/notification_channels/:id',
    {
      config: admin,
      schema: { tags: ['notifications'], operationId: 'getNotificationChannel', summary: 'A notification channel', params: IdParams, response: { 200: ChannelSchema, ...errorResponses(401, 403, 404) } },
    },
    async (request) => {
      const row = await findChannel(ctx.db, request.params.id);
      if (!row) throw notFound(CHANNEL_NOT_FOUND);
      return view(row);
    },
  );

  app.patch(
    '/api/notification_channels/:id',
    {
      config: admin,
      schema: {
        tags: ['notifications'],
        operationId: 'updateNotificationChannel',
        summary: 'Change a notification channel; secret settings sent back as "***" keep their stored value',
        params: IdParams,
        body: ChangeBody,
        response: { 200: ChannelSchema, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
    },
    async (request) => view(await changeChannel(channels, actorOf(request), request.params.id, request.body as never)),
  );

  app.delete(
    '/api/notification_channels/:id',
    {
      config: admin,
      schema: { tags: ['notifications'], operationId: 'deleteNotificationChannel', summary: 'Delete a notification channel and its delivery log', params: IdParams, response: { 204: Empty, ...errorResponses(401, 403, 404) } },
    },
    async (request, reply) => {
      await removeChannel(channels, actorOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/api/notification_channels/:id/test',
    {
      config: admin,
      schema: {
        tags: ['notifications'],
        operationId: 'testNotificationChannel',
        summary: 'Send a test message now and answer how its delivery went',
        params: IdParams,
        response: { 200: TestOutcomeSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const row = await findChannel(ctx.db, request.params.id);
      if (!row) throw notFound(CHANNEL_NOT_FOUND);
      const started = Date.now();
      const deliveryId = crypto.randomUUID();
      const outcome = await sendMessage({ type: row.type, config: { ...row.config, ...openSecrets(channels.box, row) } }, { kind: 'test', channel: row.name }, deliveryId, channels.allowPrivate);
      const durationMs = Date.now() - started;
      const delivery = await recordTestDelivery(ctx.db, row.id, outcome.ok ? null : (outcome.error ?? 'failed'), outcome.statusCode ?? null);
      await recordHealth(ctx.db, row, outcome.ok ? null : (outcome.error ?? 'failed'), request.log);
      await recordAudit(ctx.db, { actor: actorOf(request).username, action: 'notification_channel.test', targetType: 'notification_channel', targetId: row.id, details: { name: row.name, delivered: outcome.ok }, ip: request.ip });
      return { delivered: outcome.ok, status_code: outcome.statusCode ?? null, error: outcome.ok ? null : (outcome.error ?? 'failed'), duration_ms: durationMs, delivery: deliveryView(delivery) };
    },
  );

  app.get(
    '/api/notification_channels/:id/deliveries',
    {
      config: admin,
      schema: {
        tags: ['notifications'],
        operationId: 'listNotificationDeliveries',
        summary: "A channel's delivery log: each alert, digest and test message, with its attempts, last error and next retry",
        params: IdParams,
        querystring: DeliveryListQuery,
        response: { 200: listResponseSchema(DeliverySchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      if (!(await findChannel(ctx.db, request.params.id))) throw notFound(CHANNEL_NOT_FOUND);
      const q = request.query;
      const where = new Conditions().add('channel_id = ?', request.params.id);
      if (q.status) where.add('status = ?', q.status);
      if (q.alert_id) where.add('alert_id = ?', q.alert_id);
      return paginate(ctx.db, {
        select: DELIVERY_COLUMNS,
        from: 'notification_deliveries',
        where,
        query: q,
        sortColumns: { created_at: 'created_at' },
        tieBreaker: 'id',
        map: (row: DeliveryRow) => deliveryView(row),
      });
    },
  );

  app.post(
    '/api/notification_channels/:id/deliveries/:delivery_id/retry',
    {
      config: { ...admin, notFound: DELIVERY_NOT_FOUND },
      schema: {
        tags: ['notifications'],
        operationId: 'retryNotificationDelivery',
        summary: 'Send a failed delivery again now (with a new day of retries)',
        params: DeliveryParams,
        response: { 200: DeliverySchema, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { id, delivery_id: deliveryId } = request.params;
      const found = await findDelivery(ctx.db, id, deliveryId);
      if (!found) throw notFound(DELIVERY_NOT_FOUND);
      const retried = await retryDelivery(ctx.db, id, deliveryId);
      if (!retried) throw conflict(`Only a failed delivery can be retried (this one is ${found.kind === 'test' ? 'a test message' : found.status})`);
      await recordAudit(ctx.db, { actor: actorOf(request).username, action: 'notification_delivery.retry', targetType: 'notification_delivery', targetId: deliveryId, details: { channel_id: id }, ip: request.ip });
      return deliveryView(retried);
    },
  );
}


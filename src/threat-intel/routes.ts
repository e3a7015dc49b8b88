// Threat-intel feeds: upload (admin; JSON with the content as a string, or a multipart form with the
// feed file), list (any signed-in user: everyone triaging alerts may see which feeds enrich them) and
// delete (admin). Uploads take up to 20 MiB and 1,000,000 indicators per feed.
import multipart from '@fastify/multipart';
import { Type } from '@fastify/type-provider-typebox';
import type { App, AppContext } from '../http/context.js';
import { listQuerySchema, listResponseSchema, paginate, Conditions } from '../http/lists.js';
import { Empty, errorResponses, IdParams, StringEnum } from '../http/schemas.js';
import { NOT_BLANK } from '../http/errors.js';
import { recordAudit } from '../audit/log.js';
import { sessionOf } from '../auth/access.js';
import { FEED_FORMATS } from './formats/index.js';
import { INDICATOR_TYPES } from './indicators.js';
import { feedBodyFromForm } from './multipart-body.js';
import { createFeed, FEED_NOT_FOUND, removeFeed } from './service.js';
import { FEED_COLUMNS, type FeedRow } from './store.js';
import { CreatedFeedSchema, feedView, FeedSchema } from './view.js';

/** Largest feed upload. */
export const FEED_BODY_LIMIT = 20 * 1024 * 1024;

const admin = { access: { auth: 'session' as const, role: 'admin' as const }, notFound: FEED_NOT_FOUND };
const reader = { access: { auth: 'session' as const }, notFound: FEED_NOT_FOUND };

export const FeedFields = {
  name: Type.String({ minLength: 1, maxLength: 200, pattern: NOT_BLANK }),
  format: StringEnum(FEED_FORMATS),
  type: Type.Optional(StringEnum(INDICATOR_TYPES, { description: 'the type of every value of a plain list; without it each value’s type is taken from its shape' })),
  content: Type.String({ minLength: 1, maxLength: FEED_BODY_LIMIT, description: 'the feed file’s text' }),
  risk_score: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, description: 'score of indicators that carry none of their own (default 75)' })),
};

export async function threatIntelRoutes(app: App, ctx: AppContext): Promise<void> {
  await app.register(async (scope: App) => {
    // Only this route reads forms: the parser stays inside this scope.
    await scope.register(multipart);
    scope.post(
      '/api/threat_intel/feeds',
      {
        config: admin,
        bodyLimit: FEED_BODY_LIMIT + 64 * 1024,
        preValidation: async (request) => {
          if (request.isMultipart()) request.body = (await feedBodyFromForm(request, FEED_BODY_LIMIT)) as typeof request.body;
        },
        schema: {
          consumes: ['application/json', 'multipart/form-data'],
          tags: ['threat intel'],
          operationId: 'createThreatIntelFeed',
          summary: 'Upload a threat-intel feed (plain, csv, misp, stix or abusech content, up to 20 MiB)',
          body: Type.Object(FeedFields, { additionalProperties: false }),
          response: { 201: CreatedFeedSchema, ...errorResponses(400, 401, 403, 413) },
        },
      },
      async (request, reply) => {
        const actor = sessionOf(request).user.username;
        const { row, parsed } = await createFeed(ctx, request.body, actor, (tx, feed) =>
          recordAudit(tx, {
            actor,
            action: 'threat_intel_feed.create',
            targetType: 'threat_intel_feed',
            targetId: feed.id,
            details: { name: feed.name, format: feed.format, indicators: feed.indicator_count, rejected: feed.rejected_count },
            ip: request.ip,
          }),
        );
        return reply.code(201).send({ ...feedView(row), skipped: parsed.skipped, problems: parsed.problems });
      },
    );
  });

  app.get(
    '/api/threat_intel/feeds',
    {
      config: reader,
      schema: {
        tags: ['threat intel'],
        operationId: 'listThreatIntelFeeds',
        summary: 'List threat-intel feeds',
        querystring: listQuerySchema(['created_at', 'name', 'indicators'], 'created_at', { format: Type.Optional(StringEnum(FEED_FORMATS)) }),
        response: { 200: listResponseSchema(FeedSchema), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const where = new Conditions().add(`status = 'active'`).addCommon(request.query, 'created_at', ['name']);
      if (request.query.format) where.add('format = ?', request.query.format);
      return paginate(ctx.db, {
        select: FEED_COLUMNS,
        from: 'threat_intel_feeds',
        where,
        query: request.query,
        sortColumns: { created_at: 'created_at', name: 'name', indicators: 'indicator_count' },
        tieBreaker: 'id',
        map: (row: FeedRow) => feedView(row),
      });
    },
  );

  app.delete(
    '/api/threat_intel/feeds/:id',
    {
      config: admin,
      schema: { tags: ['threat intel'], operationId: 'deleteThreatIntelFeed', summary: 'Delete a feed; later alerts are no longer enriched from it', params: IdParams, response: { 204: Empty, ...errorResponses(401, 403, 404) } },
    },
    async (request, reply) => {
      const actor = sessionOf(request).user.username;
      await removeFeed(ctx, request.params.id, (tx, feed) =>
        recordAudit(tx, {
          actor,
          action: 'threat_intel_feed.delete',
          targetType: 'threat_intel_feed',
          targetId: feed.id,
          details: { name: feed.name, indicators: feed.indicator_count },
          ip: request.ip,
        }),
      );
      return reply.code(204).send(null);
    },
  );
}

// GET /api/alerts/histogram: the alerts the list's filters match, counted per slice of event time
// (histogram.ts), for the chart above the queue. Any signed-in role.
import { Type } from '@fastify/type-provider-typebox';
import type { App, AppContext } from '../http/context.js';
import { badRequest } from '../http/errors.js';
import { errorResponses, Nullable, Timestamp } from '../http/schemas.js';
import { sessionOf } from '../auth/access.js';
import { analyseWhenStale } from '../db/statistics.js';
import { alertHistogram, DEFAULT_HISTOGRAM_BUCKETS, MAX_HISTOGRAM_BUCKETS } from './histogram.js';
import { SEARCH_COUNT_LIMIT } from './queries.js';
import { alertFilters, resolveAssignee } from './routes.js';
import { ALERT_NOT_FOUND } from './service.js';

const HistogramSchema = Type.Object({
  buckets: Type.Array(
    Type.Object({ start: Timestamp, count: Type.Integer({ minimum: 0 }) }),
    { description: `Oldest first, at most ${MAX_HISTOGRAM_BUCKETS}; every slice of the range, empty ones included` },
  ),
  interval_seconds: Type.Integer({ minimum: 0, description: 'The width of every bucket (1 s to 1 day, then whole days); 0 when there is no range' }),
  start: Nullable(Timestamp, { description: 'The range counted: event_after, else the first matching event (null: no range)' }),
  end: Nullable(Timestamp, { description: 'The end of the range (exclusive): event_before, else just after the last matching event' }),
  total: Type.Integer({ description: 'The sum of the counts' }),
  total_exact: Type.Boolean({ description: `False when a search matched more than ${SEARCH_COUNT_LIMIT} alerts; only that many were counted` }),
});

export function alertHistogramRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/api/alerts/histogram',
    {
      config: { access: { auth: 'session' as const }, notFound: ALERT_NOT_FOUND },
      schema: {
        tags: ['alerts'],
        operationId: 'alertHistogram',
        summary: 'Alerts per slice of event time under the filters of the list (the queue\'s chart)',
        querystring: Type.Object(
          {
            buckets: Type.Integer({ minimum: 1, maximum: MAX_HISTOGRAM_BUCKETS, default: DEFAULT_HISTOGRAM_BUCKETS, description: `The most buckets to answer (1 to ${MAX_HISTOGRAM_BUCKETS})` }),
            created_after: Type.Optional(Timestamp),
            created_before: Type.Optional(Timestamp),
            ...alertFilters,
          },
          { additionalProperties: false },
        ),
        response: { 200: HistogramSchema, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { buckets, ...filters } = request.query;
      if (filters.event_after && filters.event_before && Date.parse(filters.event_before) <= Date.parse(filters.event_after)) {
        throw badRequest('event_before must be later than event_after', [{ field: 'query.event_before', message: 'must be later than event_after' }]);
      }
      await analyseWhenStale(ctx.db, 'alerts');
      return alertHistogram(ctx.db, resolveAssignee({ page: 1, page_size: 1, ...filters }, sessionOf(request).user.id), buckets);
    },
  );
}

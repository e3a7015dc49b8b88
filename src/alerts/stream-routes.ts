// GET /api/alerts/stream: new alerts and status changes as Server-Sent Events, from every instance
// sharing the database, resumable with Last-Event-ID. One change feed and one fan-out per process serve
// every stream; closing the service ends the open streams so the server can stop.
import { Type } from '@fastify/type-provider-typebox';
import type { App, AppContext } from '../http/context.js';
import { badRequest } from '../http/errors.js';
import { errorResponses, StringEnum } from '../http/schemas.js';
import { sessionOf } from '../auth/access.js';
import { findSessionUser } from '../auth/sessions.js';
import { AlertChangeFeed } from './change-feed.js';
import { AlertFanOut } from './fan-out.js';
import { AlertStream, AlertStreamRegistry, DEFAULT_STREAM_SETTINGS, type AlertStreamSettings } from './streams.js';
import { STREAM_EVENTS } from './sse.js';

export interface AlertStreamOptions extends Partial<AlertStreamSettings> {
  /** Safety-net poll interval of the change feed. */
  pollMs?: number;
  /** How long the change feed holds a change that follows a not-yet-committed one. */
  gapWaitMs?: number;
}

const EVENT_ID = /^[0-9]{1,15}$/;
/** How long an ended stream may take to deliver what it still has queued. */
const FINISH_GRACE_MS = 5000;
const EVENT_ID_MESSAGE = 'must be an event id of this stream (a non-negative integer)';

const StreamQuery = Type.Object(
  {
    last_event_id: Type.Optional(
      Type.String({
        pattern: EVENT_ID.source,
        description: 'Resume after this event id, for clients that cannot send the Last-Event-ID header (the header wins when both are given)',
      }),
    ),
  },
  { additionalProperties: false },
);

/** One event of the stream, as an event-stream reader hands it over (an OpenAPI 3.1 `schema` of
 * `text/event-stream` describes each event, not the text of the whole stream). */
const StreamEvent: object = Type.Object(
  {
    event: StringEnum(Object.values(STREAM_EVENTS)),
    id: Type.Optional(Type.String({ pattern: EVENT_ID.source, description: 'the sequence number of the change (sent with alert.created and alert.updated; a reader keeps the last one it saw)' })),
    data: Type.String({ contentMediaType: 'application/json', description: 'one line of JSON' }),
    retry: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);

const EventStream = {
  description:
    'text/event-stream: `retry: 3000`, then events `alert.created` / `alert.updated` (id = change sequence number; ' +
    'data = {seq, kind, alert: {id, rule_id, rule_title, severity, status, created_at, updated_at, host?, user?, source_ip?, ' +
    'acknowledged_at?, acknowledged_by?}}), `alerts.reload` (changes were missed: reload the list) and `session.ended` ' +
    '(the stream ends); `: ping` comments every 15 s. The schema describes one event.',
  content: { 'text/event-stream': { schema: StreamEvent } },
};

/** The change the client last saw: the Last-Event-ID header, else the last_event_id query parameter. */
function resumePoint(header: string | string[] | undefined, query: string | undefined): number | undefined {
  const value = Array.isArray(header) ? header[header.length - 1] : header;
  if (value !== undefined && value.trim() !== '') {
    if (!EVENT_ID.test(value.trim())) throw badRequest('Invalid request', [{ field: 'header.last-event-id', message: EVENT_ID_MESSAGE }]);
    return Number(value.trim());
  }
  return query === undefined ? undefined : Number(query);
}

export function alertStreamRoutes(app: App, ctx: AppContext, options: AlertStreamOptions = {}): void {
  const { pollMs, gapWaitMs, ...overrides } = options;
  const settings: AlertStreamSettings = { ...DEFAULT_STREAM_SETTINGS, ...overrides };
  const feed = new AlertChangeFeed(ctx.db, { pollMs, gapWaitMs, log: app.log });
  const fanOut = new AlertFanOut(feed);
  const registry = new AlertStreamRegistry(settings);

  // Before the server stops taking connections: open streams end (a stream never finishes on its own).
  app.addHook('preClose', async () => {
    registry.endAll();
    await feed.close();
  });

  app.get(
    '/api/alerts/stream',
    {
      exposeHeadRoute: false,
      schema: {
        tags: ['alerts'],
        operationId: 'streamAlerts',
        summary: 'New alerts and status changes as Server-Sent Events (resume with Last-Event-ID)',
        querystring: StreamQuery,
        response: { 200: EventStream, ...errorResponses(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const { user, sessionId } = sessionOf(request);
      const resumeAfter = resumePoint(request.headers['last-event-id'], request.query.last_event_id);
      const stream = new AlertStream({
        db: ctx.db,
        feed,
        fanOut,
        settings,
        // The response counts what it and its socket still hold (a reader that stopped reading).
        sentBacklog: () => reply.raw.writableLength,
        sessionIsLive: async () => (await findSessionUser(ctx.db, sessionId, user.id)) !== undefined,
      });
      registry.admit(user.id, stream);
      reply.raw.on('close', () => stream.end());
      // An ended stream's last bytes may sit behind a reader that stopped reading: its connection is
      // cut after a grace period, so it holds no memory and does not delay the server's shutdown.
      stream.whenEnded(() => {
        if (reply.raw.writableFinished || reply.raw.destroyed) return;
        const cut = setTimeout(() => reply.raw.destroy(), FINISH_GRACE_MS);
        cut.unref();
        reply.raw.once('close', () => clearTimeout(cut));
      });
      try {
        await stream.open(resumeAfter);
      } catch (error) {
        stream.end();
        throw error;
      }
      return reply
        .code(200)
        .header('Content-Type', 'text/event-stream; charset=utf-8')
        .header('Cache-Control', 'no-store')
        .header('X-Accel-Buffering', 'no')
        .send(stream.body);
    },
  );
}

// GET /api/alerts/{id}/process_tree: the process ancestry of an alert (process-ancestry.ts): parents
// above its process, children below, from the process starts of its host. Any signed-in role.
import { Type } from '@fastify/type-provider-typebox';
import type { App, AppContext } from '../http/context.js';
import { notFound } from '../http/errors.js';
import { errorResponses, IdParams, Nullable, Timestamp } from '../http/schemas.js';
import { findAlert } from './queries.js';
import { ALERT_NOT_FOUND } from './service.js';
import { processAncestry } from './process-ancestry.js';
import { MAX_ANCESTORS, MAX_CHILD_DEPTH, MAX_NODES } from './process-tree.js';
import { MAX_SCANNED_EVENTS, WINDOW_SECONDS } from './process-tree-store.js';

const ProcessNodeSchema = Type.Object({
  key: Type.String({ description: 'The node: guid:<process GUID>, or pid:<process id>@<event id> when the events carry no GUID' }),
  parent_key: Nullable(Type.String(), { description: 'The key of its parent node; null for the root' }),
  depth: Type.Integer({ minimum: 0, description: 'Generations below the root' }),
  process_guid: Type.Optional(Type.String()),
  process_id: Nullable(Type.Integer()),
  parent_process_guid: Type.Optional(Type.String()),
  parent_process_id: Nullable(Type.Integer()),
  image: Nullable(Type.String()),
  command_line: Nullable(Type.String()),
  user: Nullable(Type.String()),
  event_time: Nullable(Timestamp, { description: 'When the process started (null: known only from its child)' }),
  event_ids: Type.Array(Type.String(), { description: 'Content hashes of the stored events about it (empty: known only from its child)' }),
  is_alert_process: Type.Boolean(),
});

const ProcessTreeSchema = Type.Object({
  root: Nullable(Type.String(), { description: 'Key of the oldest ancestor found (null: the event names no process)' }),
  alert_process: Nullable(Type.String(), { description: "Key of the alert's own process" }),
  nodes: Type.Array(ProcessNodeSchema, { description: `Tree order (each node after its parent); at most ${MAX_NODES}, ${MAX_ANCESTORS} ancestors, ${MAX_CHILD_DEPTH} generations of children` }),
  truncated: Type.Boolean({ description: `A bound cut the tree or left events of the window unread (at most ${MAX_SCANNED_EVENTS} events are read)` }),
  window: Type.Object({ from: Timestamp, to: Timestamp }, { description: `The process starts read: ${WINDOW_SECONDS / 3600} hours either side of the alert's event` }),
  scanned_events: Type.Integer({ minimum: 0 }),
  unavailable_reason: Type.Optional(Type.String({ description: "Why only the alert's own event was read" })),
});

export function processTreeRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/api/alerts/:id/process_tree',
    {
      config: { access: { auth: 'session' as const }, notFound: ALERT_NOT_FOUND },
      schema: {
        tags: ['alerts'],
        operationId: 'getAlertProcessTree',
        summary: "The process ancestry of an alert's process, from the process starts of its host",
        params: IdParams,
        response: { 200: ProcessTreeSchema, ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const alert = await findAlert(ctx.db, request.params.id);
      if (!alert) throw notFound(ALERT_NOT_FOUND);
      return processAncestry(ctx, alert);
    },
  );
}

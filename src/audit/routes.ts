// The audit log, read by admins: paginated, filtered by action, actor and time.
import { Type } from '@fastify/type-provider-typebox';
import type { App, AppContext } from '../http/context.js';
import { Conditions, listQuerySchema, listResponseSchema, paginate } from '../http/lists.js';
import { errorResponses, Timestamp, Uuid } from '../http/schemas.js';

const AuditEntrySchema = Type.Object(
  {
    id: Uuid,
    created_at: Timestamp,
    actor: Type.Union([Type.String(), Type.Null()]),
    action: Type.String(),
    target_type: Type.Union([Type.String(), Type.Null()]),
    target_id: Type.Union([Type.String(), Type.Null()]),
    details: Type.Record(Type.String(), Type.Unknown()),
    ip: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'AuditEntry' },
);

interface AuditRow {
  id: string;
  created_at: Date;
  actor: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  details: Record<string, unknown>;
  ip: string | null;
  [key: string]: unknown;
}

export function auditRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/api/audit',
    {
      config: { access: { auth: 'session', role: 'admin' } },
      schema: {
        tags: ['audit'],
        operationId: 'listAuditEntries',
        summary: 'Audit log: who did what, to which target, when and from where',
        querystring: listQuerySchema(['created_at', 'action', 'actor'], 'created_at', {
          action: Type.Optional(Type.String({ maxLength: 100 })),
          actor: Type.Optional(Type.String({ maxLength: 256 })),
          target_id: Type.Optional(Type.String({ maxLength: 100 })),
        }),
        response: { 200: listResponseSchema(AuditEntrySchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const q = request.query;
      const where = new Conditions().addCommon(q, 'created_at', ['action', 'actor', 'target_id']);
      if (q.action) where.add('action = ?', q.action);
      if (q.actor) where.add('actor = ?', q.actor);
      if (q.target_id) where.add('target_id = ?', q.target_id);
      return paginate(ctx.db, {
        select: 'id, created_at, actor, action, target_type, target_id, details, ip',
        from: 'audit_log',
        where,
        query: q,
        sortColumns: { created_at: 'created_at', action: 'action', actor: 'actor' },
        tieBreaker: 'id',
        map: (row: AuditRow) => ({ ...row, created_at: row.created_at.toISOString() }),
      });
    },
  );
}

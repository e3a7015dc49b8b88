// POST /api/rules/reconcile (admin): makes the search backend hold exactly the deployed rules, as the
// database records them, and reports what it changed. With the embedded backend the stored queries are
// the database's own rows, so there is never anything to fix.
import { Type } from '@fastify/type-provider-typebox';
import type { App, AppContext } from '../http/context.js';
import { errorResponses } from '../http/schemas.js';
import { recordAudit } from '../audit/log.js';
import type { OpenSearchBackend } from '../backends/opensearch/opensearch-backend.js';
import { adminOnly } from './routes.js';
import { sessionOf } from '../auth/access.js';

const ReconcileSchema = Type.Object({
  backend: Type.String({ description: 'embedded or opensearch' }),
  created: Type.Integer({ description: 'stored queries written because the backend lacked them' }),
  updated: Type.Integer({ description: 'stored queries written again because the backend held another version' }),
  deleted: Type.Integer({ description: 'stored queries removed because no deployed rule has them' }),
  refused: Type.Array(
    Type.Object({ index: Type.String(), id: Type.String(), reason: Type.String() }),
    { description: 'deployed rules the backend cannot express (undeploy or change them)' },
  ),
});

export function reconcileRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/api/rules/reconcile',
    {
      config: adminOnly,
      schema: {
        tags: ['rules'],
        operationId: 'reconcileRules',
        summary: 'Make the search backend hold exactly the deployed rules; reports what was fixed',
        response: { 200: ReconcileSchema, ...errorResponses(401, 403, 503) },
      },
    },
    async (request) => {
      const backend = ctx.backend;
      const report = backend.kind === 'opensearch' ? await (backend as OpenSearchBackend).reconcile() : { created: 0, updated: 0, deleted: 0, refused: [] };
      await recordAudit(ctx.db, {
        actor: sessionOf(request).user.username,
        action: 'rule.reconcile',
        details: { backend: backend.kind, created: report.created, updated: report.updated, deleted: report.deleted, refused: report.refused.length },
        ip: request.ip,
      });
      return { backend: backend.kind, ...report };
    },
  );
}

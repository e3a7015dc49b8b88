// Bulk rule operations (at most 1000 ids): delete (admin), deploy and undeploy (analyst). Each id is
// handled on its own; one failure never undoes the others.
import { Type } from '@fastify/type-provider-typebox';
import type { App, AppContext } from '../http/context.js';
import { HttpError } from '../http/errors.js';
import { BulkFailure, BulkIds, BulkSkip, errorResponses } from '../http/schemas.js';
import { BackendUnavailableError } from '../backends/backend.js';
import { RULE_NOT_FOUND, deleteRule, deployStoredRule, undeployExistingRule, type Actor } from './service.js';
import { findRule } from './store.js';
import { actorOf, adminOnly, analyst } from './routes.js';

/** Each rule's change is made live once for the whole request, not once per rule. */
const NO_SYNC = { sync: false } as const;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function reason(error: unknown): string {
  if (error instanceof HttpError || error instanceof BackendUnavailableError) return error.message;
  throw error;
}

type Outcome = 'done' | { skip: string };

async function eachId(ids: string[], work: (id: string) => Promise<Outcome>) {
  let done = 0;
  const failed: { id: string; error: string }[] = [];
  const skipped: { id: string; reason: string }[] = [];
  for (const id of [...new Set(ids)]) {
    if (!UUID_RE.test(id)) {
      failed.push({ id, error: RULE_NOT_FOUND });
      continue;
    }
    try {
      const outcome = await work(id);
      if (outcome === 'done') done++;
      else skipped.push({ id, reason: outcome.skip });
    } catch (error) {
      failed.push({ id, error: reason(error) });
    }
  }
  return { done, failed, skipped };
}

/** The ids with correlation rules first: undeploying or deleting them frees the rules they use. */
async function correlationsFirst(ctx: AppContext, ids: string[]): Promise<string[]> {
  const valid = ids.filter((id) => UUID_RE.test(id));
  const rows = await ctx.db.query<{ id: string }>(`SELECT id FROM rules WHERE id = ANY($1::uuid[]) AND rule_type = 'correlation'`, [valid]);
  const first = new Set(rows.map((r) => r.id.toLowerCase()));
  return [...ids.filter((id) => first.has(id.toLowerCase())), ...ids.filter((id) => !first.has(id.toLowerCase()))];
}

export function bulkRuleRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/api/rules/bulk/delete',
    {
      config: adminOnly,
      schema: {
        tags: ['rules'],
        operationId: 'bulkDeleteRules',
        summary: 'Delete many rules',
        body: BulkIds,
        response: { 200: Type.Object({ deleted: Type.Integer(), failed: Type.Array(BulkFailure) }), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const actor: Actor = actorOf(request);
      const { done, failed } = await eachId(await correlationsFirst(ctx, request.body.ids), async (id) => {
        await deleteRule(ctx, actor, id, NO_SYNC);
        return 'done';
      });
      if (done > 0) await ctx.backend.sync();
      return { deleted: done, failed };
    },
  );

  app.post(
    '/api/rules/bulk/deploy',
    {
      config: analyst,
      schema: {
        tags: ['rules'],
        operationId: 'bulkDeployRules',
        summary: 'Deploy many rules; rules already deployed at their current version are skipped',
        body: BulkIds,
        response: {
          200: Type.Object({ deployed: Type.Integer(), failed: Type.Array(BulkFailure), skipped: Type.Array(BulkSkip) }),
          ...errorResponses(400, 401, 403),
        },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const { done, failed, skipped } = await eachId(request.body.ids, async (id) => {
        const rule = await findRule(ctx.db, id);
        if (!rule) throw new HttpError(404, RULE_NOT_FOUND);
        if (rule.status === 'deployed' && rule.deployed_version === rule.version) return { skip: 'already deployed at the current version' };
        await deployStoredRule(ctx, actor, id);
        return 'done';
      });
      if (done > 0) await ctx.backend.sync();
      return { deployed: done, failed, skipped };
    },
  );

  app.post(
    '/api/rules/bulk/undeploy',
    {
      config: analyst,
      schema: {
        tags: ['rules'],
        operationId: 'bulkUndeployRules',
        summary: 'Undeploy many rules; rules that are not deployed are skipped',
        body: BulkIds,
        response: {
          200: Type.Object({ undeployed: Type.Integer(), failed: Type.Array(BulkFailure), skipped: Type.Array(BulkSkip) }),
          ...errorResponses(400, 401, 403),
        },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const { done, failed, skipped } = await eachId(await correlationsFirst(ctx, request.body.ids), async (id) =>
        (await undeployExistingRule(ctx, actor, id, NO_SYNC)) ? 'done' : { skip: 'not deployed' },
      );
      if (done > 0) await ctx.backend.sync();
      return { undeployed: done, failed, skipped };
    },
  );
}

// Rule version history and rollback.
import { Type } from '@fastify/type-provider-typebox';
import type { App, AppContext } from '../http/context.js';
import { notFound } from '../http/errors.js';
import { listResponseSchema, subListQuerySchema } from '../http/lists.js';
import { errorResponses, Uuid } from '../http/schemas.js';
import { RULE_NOT_FOUND, rollbackRule } from './service.js';
import { findRule, findVersion, listVersions } from './store.js';
import { RuleSchema, VersionSchema, ruleView, versionView } from './view.js';
import { actorOf, analyst, reader } from './routes.js';

// The version number is checked in the handler, so a bad rule id answers "Rule not found" and a bad
// version number "Version not found".
const VersionParams = Type.Object({ id: Uuid, version: Type.String({ maxLength: 20 }) });
const VERSION_NUMBER = /^[1-9][0-9]{0,8}$/;
const VersionListQuery = subListQuerySchema(['version', 'changed_at'], 'version', 'desc', {});

export function versionRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/api/rules/:id/versions',
    {
      config: reader,
      schema: {
        tags: ['rules'],
        operationId: 'listRuleVersions',
        summary: 'Version history, newest first',
        params: Type.Object({ id: Uuid }),
        querystring: VersionListQuery,
        response: { 200: listResponseSchema(VersionSchema), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      if (!(await findRule(ctx.db, request.params.id))) throw notFound(RULE_NOT_FOUND);
      const page = await listVersions(ctx.db, request.params.id, request.query);
      return { ...page, items: page.items.map(versionView) };
    },
  );

  app.get(
    '/api/rules/:id/versions/:version',
    {
      config: reader,
      schema: { tags: ['rules'], operationId: 'getRuleVersion', summary: 'One version of a rule', params: VersionParams, response: { 200: VersionSchema, ...errorResponses(401, 404) } },
    },
    async (request) => {
      if (!(await findRule(ctx.db, request.params.id))) throw notFound(RULE_NOT_FOUND);
      const number = VERSION_NUMBER.test(request.params.version) ? Number(request.params.version) : null;
      const version = number === null ? undefined : await findVersion(ctx.db, request.params.id, number);
      if (!version) throw notFound('Version not found');
      return versionView(version);
    },
  );

  app.post(
    '/api/rules/:id/rollback',
    {
      config: analyst,
      schema: {
        tags: ['rules'],
        operationId: 'rollbackRule',
        summary: 'Roll back: a new version with the content of an older one (redeployed if deployed)',
        params: Type.Object({ id: Uuid }),
        body: Type.Object({ version: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) }, { additionalProperties: false }),
        response: { 200: RuleSchema, ...errorResponses(400, 401, 403, 404, 422, 503) },
      },
    },
    async (request) => ruleView(await rollbackRule(ctx, actorOf(request), request.params.id, request.body.version)),
  );
}

// Rule endpoints: create, list, read, update, delete, deploy and undeploy.
import { Type, type Static } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { App, AppContext } from '../http/context.js';
import { Conditions, listQuerySchema, listResponseSchema, paginate } from '../http/lists.js';
import { Empty, errorResponses, IdParams, Nullable, StringEnum, Timestamp, Uuid } from '../http/schemas.js';
import { sessionOf } from '../auth/access.js';
import { RULE_NOT_FOUND, createRule, deleteRule, deployExistingRule, undeployExistingRule, updateRule, type Actor } from './service.js';
import { RULE_FROM, RULE_SELECT, findRule, type RuleRow } from './store.js';
import { RuleSchema, SEVERITIES, ruleView } from './view.js';
import { NOT_BLANK, notFound } from '../http/errors.js';

export const analyst = { access: { auth: 'session' as const, role: 'analyst' as const }, notFound: RULE_NOT_FOUND };
export const reader = { access: { auth: 'session' as const }, notFound: RULE_NOT_FOUND };
export const adminOnly = { access: { auth: 'session' as const, role: 'admin' as const, roleDetail: 'Admin role required' }, notFound: RULE_NOT_FOUND };

export const actorOf = (request: FastifyRequest): Actor => ({ username: sessionOf(request).user.username, ip: request.ip });

const YamlContent = Type.String({ minLength: 1, maxLength: 1024 * 1024 });
const PatternName = Type.String({ minLength: 1, maxLength: 100 });
const SEVERITY_RANK = `CASE r.severity WHEN 'critical' THEN 4 WHEN 'high' THEN 3 WHEN 'medium' THEN 2 WHEN 'low' THEN 1 ELSE 0 END`;

/** A title chosen for the rule instead of the YAML's: as long as a Sigma title may be, not blank. */
const RuleTitle = Type.String({ minLength: 1, maxLength: 256, pattern: NOT_BLANK });

export const ruleListQuery = listQuerySchema(['created_at', 'updated_at', 'title', 'severity', 'status', 'version'], 'created_at', {
  status: Type.Optional(StringEnum(['deployed', 'undeployed'] as const)),
  severity: Type.Optional(StringEnum(SEVERITIES)),
  tag: Type.Optional(Type.String({ maxLength: 200 })),
  index_pattern: Type.Optional(PatternName),
  rule_type: Type.Optional(StringEnum(['detection', 'correlation'] as const)),
});

/** The rules list, shared by the session endpoint and the external (API key) one. */
export async function listRules(ctx: AppContext, q: Static<typeof ruleListQuery>) {
  const where = new Conditions().addCommon(q, 'r.created_at', ['r.title', 'r.description', 'r.sigma_id', 'r.sigma_name', 'r.author']);
  if (q.status) where.add('r.status = ?', q.status);
  if (q.severity) where.add('r.severity = ?', q.severity);
  if (q.tag) where.add('EXISTS (SELECT 1 FROM jsonb_array_elements_text(r.tags) t WHERE lower(t) = lower(?))', q.tag);
  if (q.index_pattern) where.add('p.name = ?', q.index_pattern);
  if (q.rule_type) where.add('r.rule_type = ?', q.rule_type);
  return paginate(ctx.db, {
    select: RULE_SELECT,
    from: RULE_FROM,
    where,
    query: q,
    sortColumns: { created_at: 'r.created_at', updated_at: 'r.updated_at', title: 'lower(r.title)', severity: SEVERITY_RANK, status: 'r.status', version: 'r.version' },
    tieBreaker: 'r.id',
    map: (row: RuleRow) => ruleView(row),
  });
}

export async function readRule(ctx: AppContext, id: string) {
  const rule = await findRule(ctx.db, id);
  if (!rule) throw notFound(RULE_NOT_FOUND);
  return ruleView(rule);
}

export function ruleRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/api/rules',
    {
      config: analyst,
      schema: {
        tags: ['rules'],
        operationId: 'createRule',
        summary: 'Create a rule from Sigma YAML (validated; optionally deployed in the same step)',
        body: Type.Object(
          {
            yaml_content: YamlContent,
            title: Type.Optional(RuleTitle),
            deploy: Type.Optional(Type.Boolean()),
            index_pattern: Type.Optional(Nullable(PatternName)),
          },
          { additionalProperties: false },
        ),
        response: { 201: RuleSchema, ...errorResponses(400, 401, 403, 422, 503) },
      },
    },
    async (request, reply) => reply.code(201).send(ruleView(await createRule(ctx, actorOf(request), request.body))),
  );

  app.get(
    '/api/rules',
    {
      config: reader,
      schema: { tags: ['rules'], operationId: 'listRules', summary: 'List rules', querystring: ruleListQuery, response: { 200: listResponseSchema(RuleSchema), ...errorResponses(400, 401) } },
    },
    async (request) => listRules(ctx, request.query),
  );

  app.get(
    '/api/rules/:id',
    { config: reader, schema: { tags: ['rules'], operationId: 'getRule', summary: 'Read a rule', params: IdParams, response: { 200: RuleSchema, ...errorResponses(401, 404) } } },
    async (request) => readRule(ctx, request.params.id),
  );

  app.put(
    '/api/rules/:id',
    {
      config: analyst,
      schema: {
        tags: ['rules'],
        operationId: 'updateRule',
        summary: 'Update a rule (partial); a change makes a new version and redeploys a deployed rule',
        params: IdParams,
        body: Type.Object(
          {
            title: Type.Optional(RuleTitle),
            yaml_content: Type.Optional(YamlContent),
            index_pattern: Type.Optional(Nullable(PatternName)),
            change_reason: Type.Optional(Type.String({ maxLength: 1000 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: RuleSchema, ...errorResponses(400, 401, 403, 404, 409, 422, 503) },
      },
    },
    async (request) => ruleView(await updateRule(ctx, actorOf(request), request.params.id, request.body)),
  );

  app.delete(
    '/api/rules/:id',
    {
      config: adminOnly,
      schema: { tags: ['rules'], operationId: 'deleteRule', summary: 'Delete a rule with its versions, exceptions and stored query', params: IdParams, response: { 204: Empty, ...errorResponses(401, 403, 404, 409, 503) } },
    },
    async (request, reply) => {
      await deleteRule(ctx, actorOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/api/rules/:id/deploy',
    {
      config: analyst,
      schema: {
        tags: ['rules'],
        operationId: 'deployRule',
        summary: 'Deploy (or redeploy) a rule as a stored query in svc-percolator-{index pattern}; a correlation rule deploys the rules it references',
        params: IdParams,
        response: {
          200: Type.Object({ id: Uuid, title: Type.String(), status: Type.Literal('deployed'), deployed_at: Timestamp, percolator_id: Type.String() }),
          ...errorResponses(400, 401, 403, 404, 422, 503),
        },
      },
    },
    async (request) => {
      const rule = await deployExistingRule(ctx, actorOf(request), request.params.id);
      return { id: rule.id, title: rule.title, status: 'deployed' as const, deployed_at: rule.deployed_at!.toISOString(), percolator_id: rule.percolator_id! };
    },
  );

  app.post(
    '/api/rules/:id/undeploy',
    {
      config: analyst,
      schema: {
        tags: ['rules'],
        operationId: 'undeployRule',
        summary: 'Undeploy a rule: detection stops, the rule is kept',
        params: IdParams,
        response: { 200: Type.Object({ id: Uuid, status: Type.Literal('undeployed') }), ...errorResponses(401, 403, 404, 409, 503) },
      },
    },
    async (request) => {
      await undeployExistingRule(ctx, actorOf(request), request.params.id);
      return { id: request.params.id, status: 'undeployed' as const };
    },
  );
}

// Rule exceptions: list, create, change and delete. Changes apply to matching at once.
import { Type } from '@fastify/type-provider-typebox';
import type { App, AppContext } from '../../http/context.js';
import { badRequest, conflict, notFound } from '../../http/errors.js';
import { listResponseSchema, subListQuerySchema } from '../../http/lists.js';
import { Empty, errorResponses, StringEnum, Timestamp, Uuid } from '../../http/schemas.js';
import { recordAudit } from '../../audit/log.js';
import { isUniqueViolation } from '../../db/constraint-errors.js';
import { RULE_NOT_FOUND } from '../service.js';
import { findRule } from '../store.js';
import { actorOf, analyst, reader } from '../routes.js';
import { EXCEPTION_OPERATORS, exceptionValueProblem, type ExceptionOperator } from './matcher.js';
import { deleteException, findDuplicate, findException, insertException, pageExceptions, updateException, type ExceptionRow } from './store.js';

const EXCEPTION_NOT_FOUND = 'Exception not found';

/** A duplicate that slipped past the check (a concurrent request) is caught by the unique index. */
function duplicateAsConflict(error: unknown): never {
  throw isUniqueViolation(error) ? conflict('Exception already exists') : error;
}
const Value = Type.Union([Type.String({ minLength: 1, maxLength: 4096 }), Type.Array(Type.String({ maxLength: 4096 }), { minItems: 1, maxItems: 1000 })]);
const Field = Type.String({ minLength: 1, maxLength: 256 });

const ExceptionSchema = Type.Object(
  {
    id: Uuid,
    rule_id: Uuid,
    field: Type.String(),
    operator: StringEnum(EXCEPTION_OPERATORS),
    value: Type.Union([Type.String(), Type.Array(Type.String())]),
    reason: Type.String(),
    enabled: Type.Boolean(),
    created_by: Type.String(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { description: 'A rule exception' },
);

const view = (row: ExceptionRow) => ({ ...row, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString() });
const RuleParams = Type.Object({ id: Uuid });
const ExceptionListQuery = subListQuerySchema(['created_at', 'updated_at', 'field', 'operator'], 'created_at', 'asc', {});
// The exception id is checked in the handler, so a bad rule id answers "Rule not found" and a bad
// exception id "Exception not found".
const ExceptionParams = Type.Object({ id: Uuid, eid: Type.String({ maxLength: 100 }) });
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function checkValue(operator: ExceptionOperator, value: string | string[]): void {
  const problem = exceptionValueProblem({ operator, value });
  if (problem) throw badRequest('Invalid exception', [{ field: 'body.value', message: problem }]);
}

export function exceptionRoutes(app: App, ctx: AppContext): void {
  async function ruleMustExist(id: string) {
    if (!(await findRule(ctx.db, id))) throw notFound(RULE_NOT_FOUND);
  }

  app.get(
    '/api/rules/:id/exceptions',
    {
      config: reader,
      schema: {
        tags: ['rules'],
        operationId: 'listRuleExceptions',
        summary: "A rule's exceptions, oldest first",
        params: RuleParams,
        querystring: ExceptionListQuery,
        response: { 200: listResponseSchema(ExceptionSchema), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      await ruleMustExist(request.params.id);
      const page = await pageExceptions(ctx.db, request.params.id, request.query);
      return { ...page, items: page.items.map(view) };
    },
  );

  app.post(
    '/api/rules/:id/exceptions',
    {
      config: analyst,
      schema: {
        tags: ['rules'],
        operationId: 'createRuleException',
        summary: 'Add an exception: matching events raise no alert',
        params: RuleParams,
        body: Type.Object(
          { field: Field, operator: StringEnum(EXCEPTION_OPERATORS), value: Value, reason: Type.Optional(Type.String({ maxLength: 2000 })), enabled: Type.Optional(Type.Boolean()) },
          { additionalProperties: false },
        ),
        response: { 201: ExceptionSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const ruleId = request.params.id;
      await ruleMustExist(ruleId);
      const body = request.body;
      checkValue(body.operator, body.value);
      if (await findDuplicate(ctx.db, ruleId, body)) throw conflict('Exception already exists');
      const actor = actorOf(request);
      const row = await insertException(ctx.db, { ruleId, field: body.field, operator: body.operator, value: body.value, reason: body.reason ?? '', enabled: body.enabled ?? true, createdBy: actor.username }).catch(duplicateAsConflict);
      await recordAudit(ctx.db, { actor: actor.username, action: 'rule.exception_create', targetType: 'rule', targetId: ruleId, details: { exception_id: row.id, field: row.field, operator: row.operator }, ip: actor.ip });
      return reply.code(201).send(view(row));
    },
  );

  app.patch(
    '/api/rules/:id/exceptions/:eid',
    {
      config: analyst,
      schema: {
        tags: ['rules'],
        operationId: 'updateRuleException',
        summary: 'Change an exception',
        params: ExceptionParams,
        body: Type.Object(
          { field: Type.Optional(Field), operator: Type.Optional(StringEnum(EXCEPTION_OPERATORS)), value: Type.Optional(Value), reason: Type.Optional(Type.String({ maxLength: 2000 })), enabled: Type.Optional(Type.Boolean()) },
          { additionalProperties: false, minProperties: 1 },
        ),
        response: { 200: ExceptionSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { id: ruleId, eid } = request.params;
      await ruleMustExist(ruleId);
      if (!UUID_RE.test(eid)) throw notFound(EXCEPTION_NOT_FOUND);
      const existing = await findException(ctx.db, ruleId, eid);
      if (!existing) throw notFound(EXCEPTION_NOT_FOUND);
      const next = { field: request.body.field ?? existing.field, operator: request.body.operator ?? existing.operator, value: request.body.value ?? existing.value };
      checkValue(next.operator, next.value);
      if (await findDuplicate(ctx.db, ruleId, next, eid)) throw conflict('Exception already exists');
      const row = await updateException(ctx.db, ruleId, eid, request.body).catch(duplicateAsConflict);
      if (!row) throw notFound(EXCEPTION_NOT_FOUND);
      const actor = actorOf(request);
      await recordAudit(ctx.db, { actor: actor.username, action: 'rule.exception_update', targetType: 'rule', targetId: ruleId, details: { exception_id: eid, fields: Object.keys(request.body) }, ip: actor.ip });
      return view(row);
    },
  );

  app.delete(
    '/api/rules/:id/exceptions/:eid',
    {
      config: analyst,
      schema: { tags: ['rules'], operationId: 'deleteRuleException', summary: 'Delete an exception', params: ExceptionParams, response: { 204: Empty, ...errorResponses(401, 403, 404) } },
    },
    async (request, reply) => {
      const { id: ruleId, eid } = request.params;
      await ruleMustExist(ruleId);
      if (!UUID_RE.test(eid)) throw notFound(EXCEPTION_NOT_FOUND);
      if (!(await deleteException(ctx.db, ruleId, eid))) throw notFound(EXCEPTION_NOT_FOUND);
      const actor = actorOf(request);
      await recordAudit(ctx.db, { actor: actor.username, action: 'rule.exception_delete', targetType: 'rule', targetId: ruleId, details: { exception_id: eid }, ip: actor.ip });
      return reply.code(204).send(null);
    },
  );
}

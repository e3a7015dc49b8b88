// Rule exceptions: list, create, change and delete. An exception is matched with its rule, on the
// matcher threads: a change reissues the rule's stored queries in the same transaction (live on this
// instance when the answer is sent, on the others within a second), and the rule's matching cost with
// its enabled exceptions is held to the rule's limit (checked with the value on a rule worker: 422).
// An exception may expire (`expires_at`, in the future when set); one created with `close_matching`
// closes the rule's open alerts it covers as false positives in the same request (close-covered.ts).
import { Type } from '@fastify/type-provider-typebox';
import type { App, AppContext } from '../../http/context.js';
import { conflict, notFound, unprocessable } from '../../http/errors.js';
import { listResponseSchema, subListQuerySchema } from '../../http/lists.js';
import { Empty, errorResponses, Nullable, StringEnum, Uuid } from '../../http/schemas.js';
import { recordAudit } from '../../audit/log.js';
import { isUniqueViolation } from '../../db/constraint-errors.js';
import { RULE_NOT_FOUND } from '../service.js';
import { findRule, type RuleRow } from '../store.js';
import { actorOf, analyst, reader } from '../routes.js';
import { runRuleJob } from '../rule-workers.js';
import { findPatternById } from '../../index-patterns/store.js';
import type { Queryable } from '../../db/database.js';
import { EXCEPTION_OPERATORS, type ExceptionSpec } from './matcher.js';
import { deleteException, enabledExceptionSpecs, findDuplicate, findException, insertException, listExceptions, pageExceptions, specOf, updateException } from './store.js';
import { CreatedExceptionSchema, ExceptionSchema, ExpiresAt, exceptionView as view, Field, newExceptionFields, Reason, Value } from './schemas.js';
import { closeCovered } from './close-covered.js';

const EXCEPTION_NOT_FOUND = 'Exception not found';

/** A duplicate that slipped past the check (a concurrent request) is caught by the unique index. */
function duplicateAsConflict(error: unknown): never {
  throw isUniqueViolation(error) ? conflict('Exception already exists') : error;
}
/** 422 naming `expires_at` when it is not in the future. */
export function checkExpiry(expiresAt: string | null | undefined): void {
  if (expiresAt !== undefined && expiresAt !== null && Date.parse(expiresAt) <= Date.now()) {
    throw unprocessable('Invalid exception', [{ field: 'body.expires_at', message: 'must be in the future' }]);
  }
}

const RuleParams = Type.Object({ id: Uuid });
const ExceptionListQuery = subListQuerySchema(['created_at', 'updated_at', 'field', 'operator'], 'created_at', 'asc', {});
// The exception id is checked in the handler, so a bad rule id answers "Rule not found" and a bad
// exception id "Exception not found".
const ExceptionParams = Type.Object({ id: Uuid, eid: Type.String({ maxLength: 100 }) });
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function exceptionRoutes(app: App, ctx: AppContext): void {
  async function ruleMustExist(id: string): Promise<RuleRow> {
    const rule = await findRule(ctx.db, id);
    if (!rule) throw notFound(RULE_NOT_FOUND);
    return rule;
  }

  /**
   * On a rule worker: the changed exception's value (400), then the rule's matching cost with `enabled`,
   * its enabled exceptions once the change is made (422 past the limit).
   */
  async function checkChange(rule: RuleRow, enabled: ExceptionSpec[], changed: ExceptionSpec): Promise<void> {
    const pattern = rule.index_pattern_id ? ((await findPatternById(ctx.db, rule.index_pattern_id)) ?? null) : null;
    await runRuleJob(ctx, { kind: 'exceptions', yaml: rule.yaml_content, pattern, exceptions: enabled, changed });
  }

  /** Runs an exception change in a transaction that reissues the rule's stored queries; live here once it commits. */
  async function changing<T>(ruleId: string, change: (tx: Queryable) => Promise<T>): Promise<T> {
    const result = await ctx.db.transaction(async (tx) => {
      // The rule's row lock orders exception changes and deploys of one rule (then the change log's lock).
      if (!(await findRule(tx, ruleId, true))) throw notFound(RULE_NOT_FOUND);
      const value = await change(tx);
      await ctx.backend.reissue(tx, ruleId);
      return value;
    });
    await ctx.backend.sync();
    return result;
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
          {
            ...newExceptionFields,
            close_matching: Type.Optional(
              Type.Boolean({ description: "Also close the rule's open alerts the exception covers as false positives (new ones acknowledged first)" }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          201: CreatedExceptionSchema,
          ...errorResponses(400, 401, 403, 404, 409, 422, 503),
        },
      },
    },
    async (request, reply) => {
      const ruleId = request.params.id;
      const rule = await ruleMustExist(ruleId);
      const body = request.body;
      checkExpiry(body.expires_at);
      const spec: ExceptionSpec = { field: body.field, operator: body.operator, value: body.value };
      await checkChange(rule, [...(await enabledExceptionSpecs(ctx.db, ruleId)), ...(body.enabled === false ? [] : [spec])], spec);
      if (await findDuplicate(ctx.db, ruleId, body)) throw conflict('Exception already exists');
      const actor = actorOf(request);
      const row = await changing(ruleId, async (tx) => {
        const inserted = await insertException(tx, { ruleId, ...spec, reason: body.reason ?? '', enabled: body.enabled ?? true, createdBy: actor.username, expiresAt: body.expires_at ?? null });
        await recordAudit(tx, { actor: actor.username, action: 'rule.exception_create', targetType: 'rule', targetId: ruleId, details: { exception_id: inserted.id, field: inserted.field, operator: inserted.operator }, ip: actor.ip });
        return inserted;
      }).catch(duplicateAsConflict);
      if (!body.close_matching) return reply.code(201).send(view(row));
      const closed = await closeCovered(ctx, actor, ruleId, specOf(row));
      return reply.code(201).send({ ...view(row), closed_alerts: closed });
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
          {
            field: Type.Optional(Field),
            operator: Type.Optional(StringEnum(EXCEPTION_OPERATORS)),
            value: Type.Optional(Value),
            reason: Type.Optional(Reason),
            enabled: Type.Optional(Type.Boolean()),
            expires_at: Type.Optional(Nullable(ExpiresAt, { description: 'null: never expires' })),
          },
          { additionalProperties: false, minProperties: 1 },
        ),
        response: { 200: ExceptionSchema, ...errorResponses(400, 401, 403, 404, 409, 422, 503) },
      },
    },
    async (request) => {
      const { id: ruleId, eid } = request.params;
      const rule = await ruleMustExist(ruleId);
      if (!UUID_RE.test(eid)) throw notFound(EXCEPTION_NOT_FOUND);
      const existing = await findException(ctx.db, ruleId, eid);
      if (!existing) throw notFound(EXCEPTION_NOT_FOUND);
      checkExpiry(request.body.expires_at);
      const next: ExceptionSpec = { field: request.body.field ?? existing.field, operator: request.body.operator ?? existing.operator, value: request.body.value ?? existing.value };
      const enabled = request.body.enabled ?? existing.enabled;
      const others = (await listExceptions(ctx.db, ruleId, true)).filter((e) => e.id !== eid).map(specOf);
      await checkChange(rule, enabled ? [...others, next] : others, next);
      if (await findDuplicate(ctx.db, ruleId, next, eid)) throw conflict('Exception already exists');
      const actor = actorOf(request);
      const row = await changing(ruleId, async (tx) => {
        const updated = await updateException(tx, ruleId, eid, request.body);
        if (!updated) throw notFound(EXCEPTION_NOT_FOUND);
        await recordAudit(tx, { actor: actor.username, action: 'rule.exception_update', targetType: 'rule', targetId: ruleId, details: { exception_id: eid, fields: Object.keys(request.body) }, ip: actor.ip });
        return updated;
      }).catch(duplicateAsConflict);
      return view(row);
    },
  );

  app.delete(
    '/api/rules/:id/exceptions/:eid',
    {
      config: analyst,
      schema: { tags: ['rules'], operationId: 'deleteRuleException', summary: 'Delete an exception', params: ExceptionParams, response: { 204: Empty, ...errorResponses(401, 403, 404, 503) } },
    },
    async (request, reply) => {
      const { id: ruleId, eid } = request.params;
      await ruleMustExist(ruleId);
      if (!UUID_RE.test(eid)) throw notFound(EXCEPTION_NOT_FOUND);
      const actor = actorOf(request);
      await changing(ruleId, async (tx) => {
        if (!(await deleteException(tx, ruleId, eid))) throw notFound(EXCEPTION_NOT_FOUND);
        await recordAudit(tx, { actor: actor.username, action: 'rule.exception_delete', targetType: 'rule', targetId: ruleId, details: { exception_id: eid }, ip: actor.ip });
      });
      return reply.code(204).send(null);
    },
  );
}

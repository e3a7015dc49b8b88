// Index patterns (admin writes, everyone reads): CRUD, ingest-token rotation and the field catalogue.
// The presets a pattern may start from are listed by preset-routes.ts.
import { randomUUID } from 'node:crypto';
import { Type } from '@fastify/type-provider-typebox';
import { getPreset } from '../sigma/index.js';
import type { App, AppContext } from '../http/context.js';
import { badRequest, conflict, notFound } from '../http/errors.js';
import { Conditions, listQuerySchema, listResponseSchema, paginate, SearchParameter, subListQuerySchema } from '../http/lists.js';
import { listFields } from '../ingest/field-catalogue.js';
import { Empty, errorResponses, IdParams, StringEnum, Uuid } from '../http/schemas.js';
import { recordAudit } from '../audit/log.js';
import { sessionOf } from '../auth/access.js';
import { newIngestToken } from './ingest-token.js';
import { PATTERN_NOT_FOUND, changePattern, removePattern } from './service.js';
import { PATTERN_COLUMNS, findPatternById, insertPattern, setPatternToken, type IndexPatternRow } from './store.js';
import { checkPlaceholders, normaliseScope } from './scope-settings.js';
import {
  EntityFieldsSchema,
  FieldMappingSchema,
  IndexPatternSchema,
  IndexPatternWithTokenSchema,
  LogsourceScopeSchema,
  PATTERN_NAME_RULE,
  PlaceholdersSchema,
  patternView,
} from './view.js';

const admin = { access: { auth: 'session' as const, role: 'admin' as const }, notFound: PATTERN_NOT_FOUND };
const reader = { access: { auth: 'session' as const }, notFound: PATTERN_NOT_FOUND };

const FieldListQuery = subListQuerySchema(['count', 'field', 'last_seen'], 'count', 'desc', { search: SearchParameter });
const Mappings = Type.Array(FieldMappingSchema, { maxItems: 2000 });
const Retention = Type.Integer({ minimum: 1, maximum: 3650 });
const TimestampField = Type.String({ minLength: 1, maxLength: 256 });
const Preset = Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()]);

/** The settings an admin may give on create and change on update (all optional). */
const SettingsFields = {
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  timestamp_field: Type.Optional(TimestampField),
  default_mapping: Type.Optional(StringEnum(['identity', 'none'] as const)),
  field_mappings: Type.Optional(Mappings),
  preset: Type.Optional(Preset),
  is_default: Type.Optional(Type.Boolean()),
  retention_days: Type.Optional(Retention),
  entity_fields: Type.Optional(EntityFieldsSchema),
  placeholders: Type.Optional(PlaceholdersSchema),
  logsource_scope: Type.Optional(LogsourceScopeSchema),
};

function checkPreset(preset: string | null | undefined): void {
  if (preset && !getPreset(preset)) {
    throw badRequest('Invalid request', [{ field: 'body.preset', message: `unknown preset '${preset}'; see GET /api/field_mapping_presets` }]);
  }
}

export function indexPatternRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/api/index_patterns',
    {
      config: admin,
      schema: {
        tags: ['index patterns'],
        operationId: 'createIndexPattern',
        summary: 'Create an index pattern; answers its one-time ingest token',
        body: Type.Object(
          {
            name: Type.String({ pattern: PATTERN_NAME_RULE, description: 'lowercase letters, digits, ".", "_", "-"; up to 100 characters' }),
            ...SettingsFields,
          },
          { additionalProperties: false },
        ),
        response: { 201: IndexPatternWithTokenSchema, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      checkPreset(body.preset);
      checkPlaceholders(body.placeholders);
      const token = newIngestToken();
      const row = await ctx.db.transaction(async (tx) => {
        return insertPattern(tx, {
          id: randomUUID(),
          name: body.name,
          description: body.description ?? '',
          timestamp_field: body.timestamp_field ?? '@timestamp',
          default_mapping: body.default_mapping ?? 'identity',
          field_mappings: body.field_mappings ?? [],
          preset: body.preset ?? null,
          is_default: body.is_default ?? false,
          retention_days: body.retention_days ?? 7,
          entity_fields: body.entity_fields ?? {},
          placeholders: body.placeholders ?? {},
          logsource_scope: normaliseScope(body.logsource_scope),
          token_hash: token.hash,
          token_prefix: token.displayPrefix,
        });
      });
      if (!row) throw conflict('Index pattern already exists');
      const actor = sessionOf(request).user.username;
      await recordAudit(ctx.db, { actor, action: 'index_pattern.create', targetType: 'index_pattern', targetId: row.id, details: { name: row.name }, ip: request.ip });
      return reply.code(201).send({ ...patternView(row), ingest_token: token.token });
    },
  );

  app.get(
    '/api/index_patterns',
    {
      config: reader,
      schema: {
        tags: ['index patterns'],
        operationId: 'listIndexPatterns',
        summary: 'List index patterns',
        querystring: listQuerySchema(['created_at', 'updated_at', 'name'], 'created_at', {}),
        response: { 200: listResponseSchema(IndexPatternSchema), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const where = new Conditions().addCommon(request.query, 'created_at', ['name', 'description']);
      return paginate(ctx.db, {
        select: PATTERN_COLUMNS,
        from: 'index_patterns',
        where,
        query: request.query,
        sortColumns: { created_at: 'created_at', updated_at: 'updated_at', name: 'name' },
        tieBreaker: 'id',
        map: (row: IndexPatternRow) => patternView(row),
      });
    },
  );

  app.get(
    '/api/index_patterns/:id',
    { config: reader, schema: { tags: ['index patterns'], operationId: 'getIndexPattern', summary: 'Read an index pattern', params: IdParams, response: { 200: IndexPatternSchema, ...errorResponses(401, 404) } } },
    async (request) => {
      const row = await findPatternById(ctx.db, request.params.id);
      if (!row) throw notFound(PATTERN_NOT_FOUND);
      return patternView(row);
    },
  );

  app.patch(
    '/api/index_patterns/:id',
    {
      config: admin,
      schema: {
        tags: ['index patterns'],
        operationId: 'updateIndexPattern',
        summary: 'Change an index pattern; new field mappings, placeholder values or log-source scope redeploy its deployed rules',
        params: IdParams,
        body: Type.Object(
          {
            ...SettingsFields,
          },
          { additionalProperties: false, minProperties: 1 },
        ),
        response: { 200: IndexPatternSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      checkPreset(request.body.preset);
      checkPlaceholders(request.body.placeholders);
      const changes = request.body.logsource_scope === undefined ? request.body : { ...request.body, logsource_scope: normaliseScope(request.body.logsource_scope) };
      const { row, redeployed } = await changePattern(ctx, request.params.id, changes);
      const actor = sessionOf(request).user.username;
      await recordAudit(ctx.db, {
        actor,
        action: 'index_pattern.update',
        targetType: 'index_pattern',
        targetId: row.id,
        details: { name: row.name, fields: Object.keys(request.body), redeployed_rules: redeployed },
        ip: request.ip,
      });
      return patternView(row);
    },
  );

  app.delete(
    '/api/index_patterns/:id',
    {
      config: admin,
      schema: { tags: ['index patterns'], operationId: 'deleteIndexPattern', summary: 'Delete an index pattern and its stored events (refused while rules use it)', params: IdParams, response: { 204: Empty, ...errorResponses(401, 403, 404, 409) } },
    },
    async (request, reply) => {
      const removed = await removePattern(ctx, request.params.id);
      await recordAudit(ctx.db, { actor: sessionOf(request).user.username, action: 'index_pattern.delete', targetType: 'index_pattern', targetId: removed.id, details: { name: removed.name }, ip: request.ip });
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/api/index_patterns/:id/rotate_token',
    {
      config: admin,
      schema: {
        tags: ['index patterns'],
        operationId: 'rotateIngestToken',
        summary: 'Replace the ingest token; the old one stops working at once',
        params: IdParams,
        response: { 200: Type.Object({ id: Uuid, name: Type.String(), ingest_token: Type.String(), ingest_token_prefix: Type.String() }), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const row = await findPatternById(ctx.db, request.params.id);
      if (!row) throw notFound(PATTERN_NOT_FOUND);
      const token = newIngestToken();
      if (!(await setPatternToken(ctx.db, row.id, token.hash, token.displayPrefix))) throw notFound(PATTERN_NOT_FOUND);
      await recordAudit(ctx.db, { actor: sessionOf(request).user.username, action: 'index_pattern.rotate_token', targetType: 'index_pattern', targetId: row.id, details: { name: row.name }, ip: request.ip });
      return { id: row.id, name: row.name, ingest_token: token.token, ingest_token_prefix: token.displayPrefix };
    },
  );

  app.get(
    '/api/index_patterns/:id/fields',
    {
      config: reader,
      schema: {
        tags: ['index patterns'],
        operationId: 'listIndexPatternFields',
        summary: 'Fields seen in ingested events of this pattern, with how often',
        params: IdParams,
        querystring: FieldListQuery,
        response: {
          200: listResponseSchema(Type.Object({ field: Type.String(), count: Type.Integer(), last_seen: Type.String({ format: 'date-time' }) })),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const row = await findPatternById(ctx.db, request.params.id);
      if (!row) throw notFound(PATTERN_NOT_FOUND);
      return listFields(ctx.db, row.id, request.query);
    },
  );
}

// The Elasticsearch-compatible receiver under /api/es: log shippers (Beats, Logstash, Fluent Bit,
// Vector, rsyslog, the OpenTelemetry exporter) send to it unchanged. It answers their start-up probes
// with fixed documents and their _bulk requests through the ingest pipeline (../service.ts), into the
// index pattern whose ingest token they present. Every answer carries X-Elastic-Product.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@fastify/type-provider-typebox';
import type { App, AppContext } from '../../http/context.js';
import { HttpError, badRequest, notFound, toHttpError } from '../../http/errors.js';
import { documentedBody } from '../../http/openapi.js';
import { BackendUnavailableError } from '../../backends/backend.js';
import type { IndexPatternRow } from '../../index-patterns/store.js';
import { MAX_INGEST_BYTES, decodeLines } from '../parse-body.js';
import { ingestEvents, type IngestItem } from '../service.js';
import { patternOfCredentials } from './auth.js';
import { bulkAnswer } from './bulk-answer.js';
import { decodeBulk } from './bulk-decode.js';
import { indexNameProblem } from './index-name.js';
import { BulkSlots } from './overload.js';
import { closeAfterAnswer } from './refuse-unread.js';
import { PRODUCT_HEADERS, sendEsError } from './errors.js';
import { HEALTH_DOCUMENT, LICENSE_DOCUMENT, nodesDocument, rootDocument, xpackDocument } from './info.js';
import { BulkAnswerSchema, HealthDocument, LicenseDocument, RootDocument, esErrorResponses } from './schemas.js';

export const ES_PREFIX = '/api/es';

/** Paths (first segment after the prefix) whose every request is cluster set-up a shipper makes at
 * start-up (templates, ILM, ingest pipelines, Logstash's central management): acknowledged, ignored. */
const SETUP_APIS = new Set([
  '_ilm',
  '_index_template',
  '_template',
  '_component_template',
  '_ingest',
  '_logstash',
  '_data_stream',
  '_alias',
  '_aliases',
  '_cluster',
  '_nodes',
  '_security',
  '_xpack',
  '_license',
  '_monitoring',
]);

const BULK_SECURITY: Record<string, string[]>[] = [{ ingestBasic: [] }, { ingestToken: [] }];
/** Probes answer without credentials too: many shippers probe before they authenticate. */
const PROBE_SECURITY: Record<string, string[]>[] = [{}, ...BULK_SECURITY];

const patterns = new WeakMap<FastifyRequest, IndexPatternRow>();

const SETUP_SUMMARY: Record<'GET' | 'PUT' | 'POST' | 'DELETE', string> = {
  GET: 'Elasticsearch set-up reads shippers make at start-up: _nodes and _xpack documents; a template, policy, pipeline or index reads as {}; anything else 404',
  PUT: 'Elasticsearch set-up writes (templates, ILM policies, ingest pipelines, index creation): acknowledged and ignored; anything else 404',
  POST: 'Elasticsearch set-up calls (_ilm, _ingest, _security, …): acknowledged and ignored; anything else 404',
  DELETE: 'Elasticsearch set-up deletions (_ilm, _index_template, …): acknowledged and ignored; anything else 404',
};

/** What a set-up call answers: a fixed document (_nodes, _xpack), {} for a read, {acknowledged: true, …} for a write. */
const SetupAnswer = Type.Object({}, { additionalProperties: true, description: 'A fixed document, {} or {acknowledged: true[, shards_acknowledged, index]}' });

/** The catch-all route documented as `/api/es/{path}` (a path parameter holding the rest of the path,
 * slashes included), with its ignored body on writes. */
function setupPathDocument(method: string) {
  return ({ schema }: { schema: object }) => ({
    url: `${ES_PREFIX}/{path}`,
    schema: {
      ...schema,
      params: Type.Object({ path: Type.String({ description: 'The rest of the path, slashes included (e.g. _index_template/filebeat-8.17.0)' }) }),
      ...(method === 'GET' ? {} : { body: { description: 'Ignored', content: { 'application/json': { schema: { type: 'string' } } } } }),
    },
  });
}

/** Probes need no credentials, but wrong ones are refused at once, so a misconfigured shipper fails
 * at start-up rather than at its first batch. */
function probeCredentials(ctx: AppContext) {
  return async (request: FastifyRequest) => {
    if (request.headers.authorization !== undefined) await patternOfCredentials(ctx, request.headers.authorization);
  };
}

/** The answer to anything under the prefix that is not served above: the node list and X-Pack
 * features; set-up calls and index creation are acknowledged (a GET finds an empty object); anything
 * else is not found. */
function setupAnswer(request: FastifyRequest, version: string) {
  const rest = (request.params as { '*': string })['*'] ?? '';
  const first = rest.split('/')[0];
  const read = request.method === 'GET' || request.method === 'HEAD';
  if (read && first === '_nodes') return nodesDocument(version, String(request.headers.host ?? '127.0.0.1').slice(0, 300));
  if (read && first === '_xpack') return xpackDocument();
  const isIndex = first !== '' && !first.startsWith('_') && !rest.includes('/');
  if (SETUP_APIS.has(first) || (isIndex && (request.method === 'PUT' || request.method === 'GET' || request.method === 'HEAD'))) {
    if (read) return {};
    return isIndex ? { acknowledged: true, shards_acknowledged: true, index: first } : { acknowledged: true };
  }
  throw notFound(`No handler for [${request.method} ${ES_PREFIX}/${rest.slice(0, 200)}]`);
}

/** The routes of the facade, in their own scope: raw bodies (no JSON parsing), the product header on
 * every answer, errors and unknown paths in Elasticsearch's shape. */
async function esScope(scope: App, ctx: AppContext): Promise<void> {
  const version = ctx.config.esCompatVersion;
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_INGEST_BYTES }, (_req, body, done) => done(null, body));
  scope.addHook('onRequest', async (_request, reply) => {
    reply.headers(PRODUCT_HEADERS);
  });
  scope.setErrorHandler((error, request, reply) => {
    const httpError =
      error instanceof BackendUnavailableError
        ? new HttpError(503, error.message, undefined, { 'Retry-After': '5' })
        : toHttpError(error as Error, request);
    if (httpError.statusCode >= 500) request.log.error({ err: error }, 'request failed');
    return sendEsError(reply, httpError);
  });
  // Methods no route here serves (PATCH, OPTIONS, POST to the root, …) still answer as Elasticsearch.
  scope.setNotFoundHandler((request, reply) =>
    sendEsError(reply, notFound(`No handler for [${request.method} ${request.url.split('?')[0].slice(0, 200)}]`)),
  );

  const probe = { access: { auth: 'public' as const } };
  const onProbe = probeCredentials(ctx);

  // The root with and without the trailing slash, each its own (documented) route.
  for (const prefixTrailingSlash of ['no-slash', 'slash'] as const) {
    scope.route({
      method: 'GET',
      url: '/',
      prefixTrailingSlash,
      config: probe,
      onRequest: onProbe,
      schema: {
        tags: ['ingest'],
        operationId: prefixTrailingSlash === 'slash' ? 'getEsRootWithSlash' : 'getEsRoot',
        summary: 'Elasticsearch root document, for log shippers (version number from ES_COMPAT_VERSION)',
        security: PROBE_SECURITY,
        response: { 200: RootDocument, ...esErrorResponses(401) },
      },
      handler: async () => rootDocument(version),
    });
  }
  scope.get(
    '/_license',
    {
      config: probe,
      onRequest: onProbe,
      schema: {
        tags: ['ingest'],
        operationId: 'getEsLicense',
        summary: 'Elasticsearch licence (always active), for Logstash',
        security: PROBE_SECURITY,
        response: { 200: LicenseDocument, ...esErrorResponses(401) },
      },
    },
    async () => LICENSE_DOCUMENT,
  );
  scope.get(
    '/_cluster/health',
    {
      config: probe,
      onRequest: onProbe,
      schema: {
        tags: ['ingest'],
        operationId: 'getEsClusterHealth',
        summary: 'Elasticsearch cluster health (always green), for health checks such as Vector’s',
        security: PROBE_SECURITY,
        response: { 200: HealthDocument, ...esErrorResponses(401) },
      },
    },
    async () => HEALTH_DOCUMENT,
  );
  // Everything else under the prefix, one route per method so each is its own documented operation.
  for (const method of ['GET', 'PUT', 'POST', 'DELETE'] as const) {
    scope.route({
      method,
      url: '/*',
      config: { ...probe, swaggerTransform: setupPathDocument(method) },
      bodyLimit: 1024 * 1024,
      onRequest: onProbe,
      schema: {
        tags: ['ingest'],
        operationId: `${method.toLowerCase()}EsSetup`,
        summary: SETUP_SUMMARY[method],
        security: PROBE_SECURITY,
        response: { 200: SetupAnswer, ...esErrorResponses(401, 404) },
      },
      handler: async (request) => setupAnswer(request, version),
    });
  }

  const slots = new BulkSlots();
  const bulk = async (request: FastifyRequest) => {
    const startedAt = Date.now();
    const pattern = patterns.get(request)!;
    const raw = request.body as Buffer | undefined;
    if (!raw || raw.length === 0) throw badRequest('The bulk request holds no actions');
    const pathIndex = (request.params as { index?: string }).index;
    const actions = decodeBulk(await decodeLines(raw, request.headers['content-encoding']), pathIndex ?? pattern.name);
    const items: IngestItem[] = [];
    actions.forEach((action, position) => {
      if (!action.event) return;
      // The index a shipper names is kept with the event, as a tag: it does not choose storage.
      // Set on the parsed event itself (not a copy), which keeps its numbers' digits as sent (exact-json.ts).
      if (!('_index' in action.event)) action.event._index = action.index;
      items.push({ index: position, event: action.event });
    });
    const outcome = items.length > 0 ? await ingestEvents(ctx, pattern, items) : { errors: [], warnings: [] };
    for (const warning of outcome.warnings) request.log.warn(warning);
    return bulkAnswer(actions, new Map(outcome.errors.map((e) => [e.index, e.error])), startedAt);
  };
  const bulkOptions = (method: 'POST' | 'PUT', withIndex: boolean) => ({
    config: {
      access: { auth: 'public' as const },
      ...documentedBody('Elasticsearch bulk body: action lines ({"index"|"create": {"_index"?, "_id"?}}) each followed by one event; Content-Encoding: gzip allowed', {
        'application/x-ndjson': { type: 'string' },
        'application/json': { type: 'string' },
      }),
    },
    bodyLimit: MAX_INGEST_BYTES,
    // Before the body is read: a wrong token never makes the server buffer up to 10 MiB.
    // Refused here, the connection is closed after the answer, its body never read.
    onRequest: async (request: FastifyRequest, reply: FastifyReply) => {
      try {
        patterns.set(request, await patternOfCredentials(ctx, request.headers.authorization));
        const index = (request.params as { index?: string }).index;
        const problem = index === undefined ? undefined : indexNameProblem(index);
        if (problem) throw notFound(`No such index [${index!.slice(0, 200)}]: not a valid index name (${problem})`);
        slots.take(reply);
      } catch (error) {
        closeAfterAnswer(request, reply);
        throw error;
      }
    },
    schema: {
      tags: ['ingest'],
      operationId: `${method.toLowerCase()}Es${withIndex ? 'Index' : ''}Bulk`,
      summary: withIndex
        ? 'Elasticsearch bulk ingest naming a default index (kept as the _index tag); events go to the ingest token’s index pattern'
        : 'Elasticsearch bulk ingest: events go to the index pattern of the ingest token (Basic password, ApiKey or Bearer)',
      security: BULK_SECURITY,
      ...(withIndex
        ? {
            params: Type.Object({
              index: Type.String({
                minLength: 1,
                maxLength: 255,
                description: 'An Elasticsearch index name (kept as the _index tag): not "." or "..", not starting with "-", "_" or "+", without \\ / * ? " < > | , # or spaces; else 404',
              }),
            }),
          }
        : {}),
      response: { 200: BulkAnswerSchema, ...esErrorResponses(...(withIndex ? [400, 401, 404, 413, 415, 429, 503] : [400, 401, 413, 415, 429, 503])) },
    },
  });
  for (const method of ['POST', 'PUT'] as const) {
    scope.route({ method, url: '/_bulk', ...bulkOptions(method, false), handler: bulk });
    scope.route({ method, url: '/:index/_bulk', ...bulkOptions(method, true), handler: bulk });
  }
}

export async function esRoutes(app: App, ctx: AppContext): Promise<void> {
  await app.register((scope: App) => esScope(scope, ctx), { prefix: ES_PREFIX });
}

// GET /api/openapi.json: an OpenAPI 3 document, public, with security schemes, listing every registered route with its request and response schemas.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { anonymous, startService, type TestService } from '../helpers/service.js';

/** Routes deliberately left out of the document: none. */
const HIDDEN = new Set<string>([]);
/** Wildcard routes and the path the document gives each (the rest of the path as a parameter). */
const WILDCARDS: Record<string, string> = { '/api/es/*': '/api/es/{path}' };
/** Routes that need no credentials. */
const PUBLIC = new Set([
  'GET /api/health',
  'GET /api/openapi.json',
  'POST /api/auth/login',
  'POST /api/auth/2fa/verify',
  'GET /api/auth/sso/providers',
  'GET /api/auth/session',
  'GET /api/auth/sso/login',
  'GET /api/auth/sso/callback',
]);
/** The operationId of every operation. Client generators name their functions and types after these,
 * so they are part of the interface: changing one breaks generated clients. */
const OPERATION_IDS: Record<string, string> = {
  'GET /api/openapi.json': 'getOpenApiDocument',
  'GET /api/health': 'getHealth',
  'POST /api/auth/login': 'login',
  'POST /api/auth/logout': 'logout',
  'GET /api/auth/me': 'getCurrentUser',
  'GET /api/auth/csrf': 'getCsrfToken',
  'POST /api/auth/password': 'changePassword',
  'GET /api/auth/sso/providers': 'listSsoProviders',
  'GET /api/auth/sso/login': 'startSsoLogin',
  'GET /api/auth/sso/callback': 'completeSsoLogin',
  'POST /api/auth/2fa/setup': 'setUpTwoFactor',
  'POST /api/auth/2fa/enable': 'enableTwoFactor',
  'POST /api/auth/2fa/disable': 'disableTwoFactor',
  'POST /api/auth/2fa/verify': 'verifyTwoFactor',
  'DELETE /api/users/{id}/2fa': 'resetUserTwoFactor',
  'GET /api/users': 'listUsers',
  'POST /api/users': 'createUser',
  'PATCH /api/users/{id}': 'updateUser',
  'DELETE /api/users/{id}': 'deleteUser',
  'GET /api/audit': 'listAuditEntries',
  'GET /api/field_mapping_presets': 'listFieldMappingPresets',
  'POST /api/index_patterns': 'createIndexPattern',
  'GET /api/index_patterns': 'listIndexPatterns',
  'GET /api/index_patterns/{id}': 'getIndexPattern',
  'PATCH /api/index_patterns/{id}': 'updateIndexPattern',
  'DELETE /api/index_patterns/{id}': 'deleteIndexPattern',
  'POST /api/index_patterns/{id}/rotate_token': 'rotateIngestToken',
  'GET /api/index_patterns/{id}/fields': 'listIndexPatternFields',
  'POST /api/rules': 'createRule',
  'GET /api/rules': 'listRules',
  'GET /api/rules/{id}': 'getRule',
  'PUT /api/rules/{id}': 'updateRule',
  'DELETE /api/rules/{id}': 'deleteRule',
  'POST /api/rules/{id}/deploy': 'deployRule',
  'POST /api/rules/{id}/undeploy': 'undeployRule',
  'POST /api/rules/bulk/delete': 'bulkDeleteRules',
  'POST /api/rules/bulk/deploy': 'bulkDeployRules',
  'POST /api/rules/bulk/undeploy': 'bulkUndeployRules',
  'POST /api/rules/reconcile': 'reconcileRules',
  'GET /api/rules/{id}/versions': 'listRuleVersions',
  'GET /api/rules/{id}/versions/{version}': 'getRuleVersion',
  'POST /api/rules/{id}/rollback': 'rollbackRule',
  'GET /api/rules/{id}/exceptions': 'listRuleExceptions',
  'POST /api/rules/{id}/exceptions': 'createRuleException',
  'POST /api/rules/{id}/exceptions/preview': 'previewRuleException',
  'PATCH /api/rules/{id}/exceptions/{eid}': 'updateRuleException',
  'DELETE /api/rules/{id}/exceptions/{eid}': 'deleteRuleException',
  'GET /api/rules/{id}/suppression': 'getRuleSuppression',
  'GET /api/alerts/groups': 'groupAlerts',
  'GET /api/alerts/histogram': 'alertHistogram',
  'GET /api/auth/session': 'getSessionStatus',
  'GET /api/alerts/{id}/context': 'getAlertContext',
  'GET /api/alerts/{id}/process_tree': 'getAlertProcessTree',
  'PATCH /api/auth/me': 'updateCurrentUserSettings',
  'PUT /api/rules/{id}/suppression': 'setRuleSuppression',
  'DELETE /api/rules/{id}/suppression': 'deleteRuleSuppression',
  'POST /api/rules/{id}/test': 'testRule',
  'POST /api/rules/test': 'testRuleYaml',
  'POST /api/rules/{id}/test/historical': 'testRuleHistorical',
  'GET /api/alerts': 'listAlerts',
  'GET /api/alerts/{id}': 'getAlert',
  'PATCH /api/alerts/{id}': 'updateAlertStatus',
  'POST /api/alerts/bulk/status': 'bulkUpdateAlertStatus',
  'GET /api/alerts/{id}/comments': 'listAlertComments',
  'POST /api/alerts/{id}/comments': 'addAlertComment',
  'GET /api/stats': 'getStats',
  'POST /api/api_keys': 'createApiKey',
  'GET /api/api_keys': 'listApiKeys',
  'DELETE /api/api_keys/{id}': 'revokeApiKey',
  'POST /api/notification_channels': 'createNotificationChannel',
  'GET /api/notification_channels': 'listNotificationChannels',
  'GET /api/notification_channels/{id}': 'getNotificationChannel',
  'PATCH /api/notification_channels/{id}': 'updateNotificationChannel',
  'DELETE /api/notification_channels/{id}': 'deleteNotificationChannel',
  'POST /api/notification_channels/{id}/test': 'testNotificationChannel',
  'GET /api/notification_channels/{id}/deliveries': 'listNotificationDeliveries',
  'POST /api/notification_channels/{id}/deliveries/{delivery_id}/retry': 'retryNotificationDelivery',
  'GET /api/external/alerts': 'listExternalAlerts',
  'GET /api/external/alerts/{id}': 'getExternalAlert',
  'GET /api/external/rules': 'listExternalRules',
  'GET /api/external/rules/{id}': 'getExternalRule',
  'GET /api/external/stats': 'getExternalStats',
  'POST /api/rules/import': 'importRules',
  'POST /api/logs/{name}': 'ingestEvents',
  'POST /api/threat_intel/feeds': 'createThreatIntelFeed',
  'GET /api/threat_intel/feeds': 'listThreatIntelFeeds',
  'DELETE /api/threat_intel/feeds/{id}': 'deleteThreatIntelFeed',
  'GET /api/es': 'getEsRoot',
  'GET /api/es/': 'getEsRootWithSlash',
  'GET /api/es/_license': 'getEsLicense',
  'GET /api/es/_cluster/health': 'getEsClusterHealth',
  'GET /api/es/{path}': 'getEsSetup',
  'PUT /api/es/{path}': 'putEsSetup',
  'POST /api/es/{path}': 'postEsSetup',
  'DELETE /api/es/{path}': 'deleteEsSetup',
  'POST /api/es/_bulk': 'postEsBulk',
  'PUT /api/es/_bulk': 'putEsBulk',
  'POST /api/es/{index}/_bulk': 'postEsIndexBulk',
  'PUT /api/es/{index}/_bulk': 'putEsIndexBulk',
  'GET /api/alerts/stream': 'streamAlerts',
};
const LIST_PARAMETERS = ['page', 'page_size', 'sort_by', 'sort_order'];
/** Lists of a collection (not the sub-lists of one resource, such as a rule's versions) also search,
 * and by creation time when their items have one. */
const FILTER_PARAMETERS = ['search'];
const TIME_PARAMETERS = ['created_after', 'created_before'];
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'];

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** Every "METHOD /path" Fastify routes, read from its route tree (HEAD twins of GET routes left out). */
function registeredRoutes(tree: string): Set<string> {
  const routes = new Set<string>();
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const at = line.search(/[├└]── /);
    if (at < 0) continue;
    const depth = at / 4;
    const match = /^(\S*)(?: \(([A-Z, ]+)\))?/.exec(line.slice(at + 4));
    if (!match) continue;
    stack.length = depth;
    const path = (stack[depth - 1] ?? '') + match[1];
    stack[depth] = path;
    for (const method of (match[2] ?? '').split(',').map((m) => m.trim()).filter(Boolean)) {
      if (method === 'HEAD') continue;
      const documented = WILDCARDS[path] ?? path.replace(/:(\w+)/g, '{$1}');
      routes.add(`${method} ${documented}`);
    }
  }
  return routes;
}

function collectRefs(node: Json, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => collectRefs(n, out));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') out.push(value);
      else collectRefs(value, out);
    }
  }
  return out;
}

function resolveRef(doc: Json, ref: string): Json {
  assert.match(ref, /^#\//, `only local references: ${ref}`);
  return ref
    .slice(2)
    .split('/')
    .reduce((node: Json, part) => (node === undefined ? undefined : node[part.replace(/~1/g, '/').replace(/~0/g, '~')]), doc);
}

describe('OpenAPI document', () => {
  let service: TestService;
  let doc: Json;
  const operations: Array<{ key: string; path: string; method: string; op: Json }> = [];

  /** Warnings the process emits while the routes are declared (Fastify warns about odd schemas). */
  const warnings: string[] = [];
  const onWarning = (w: Error): void => {
    warnings.push(`${w.name}: ${w.message}`);
  };

  before(async () => {
    process.on('warning', onWarning);
    service = await startService('pglite');
    process.off('warning', onWarning);
    const res = await anonymous(service).get('/api/openapi.json');
    assert.equal(res.statusCode, 200, res.body);
    doc = res.data;
    for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
      for (const method of HTTP_METHODS) {
        if (item[method]) operations.push({ key: `${method.toUpperCase()} ${path}`, path, method: method.toUpperCase(), op: item[method] });
      }
    }
  });
  after(async () => {
    await service?.close();
  });

  test('is served without credentials as JSON, declaring OpenAPI 3.x', async () => {
    const res = await anonymous(service).get('/api/openapi.json');
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.match(String(doc.openapi), /^3\.\d+\.\d+$/);
    assert.equal(typeof doc.info?.title, 'string');
    assert.equal(typeof doc.info?.version, 'string');
    assert.ok(operations.length > 0);
  });

  test('declares the bearer token and session cookie security schemes and requires one by default', () => {
    const schemes = doc.components?.securitySchemes ?? {};
    const bearer = Object.values<Json>(schemes).find((s) => s.type === 'http' && String(s.scheme).toLowerCase() === 'bearer');
    assert.ok(bearer, 'an HTTP bearer scheme');
    const cookie = Object.values<Json>(schemes).find((s) => s.type === 'apiKey' && s.in === 'cookie');
    assert.equal(cookie?.name, 'svc_session');
    const csrf = Object.values<Json>(schemes).find((s) => s.type === 'apiKey' && s.in === 'header');
    assert.equal(csrf?.name, 'X-CSRF-Token');
    assert.ok(Array.isArray(doc.security) && doc.security.length > 0, 'a default security requirement');
    for (const requirement of doc.security) for (const name of Object.keys(requirement)) assert.ok(schemes[name], `unknown scheme ${name}`);
  });

  test('lists exactly the routes Fastify serves, except the hidden ones', () => {
    const registered = registeredRoutes(service.app.printRoutes({ commonPrefix: false }));
    assert.ok(registered.size >= 10, `parsed routes: ${[...registered].join(', ')}`);
    const documented = new Set(operations.map((o) => o.key));
    // Paths outside /api are the web UI's files, not part of the API.
    const missing = [...registered].filter((r) => r.includes(' /api') && !HIDDEN.has(r) && !documented.has(r));
    assert.deepEqual(missing, [], 'registered but not documented');
    const served = Object.fromEntries(Object.entries(WILDCARDS).map(([route, path]) => [path, route]));
    for (const { path, method, key } of operations) {
      assert.ok(service.app.hasRoute({ method, url: served[path] ?? path.replace(/\{(\w+)\}/g, ':$1') }), `documented but not served: ${key}`);
      assert.ok(!HIDDEN.has(key), `hidden route is documented: ${key}`);
    }
  });

  test('every operation has a summary, success and error responses with schemas', () => {
    for (const { key, op } of operations) {
      assert.equal(typeof op.summary, 'string', `${key}: summary`);
      const responses = op.responses ?? {};
      // A redirect (302: the single sign-on steps) is the success answer of a redirecting operation.
      const success = Object.keys(responses).filter((code) => /^2\d\d$/.test(code) || code === '302');
      assert.equal(success.length, 1, `${key}: one success response`);
      const ok = responses[success[0]];
      // The live alert stream answers Server-Sent Events rather than JSON.
      if (success[0] !== '204' && success[0] !== '302') assert.ok((ok.content?.['application/json'] ?? ok.content?.['text/event-stream'])?.schema, `${key}: success schema`);
      const errors = Object.keys(responses).filter((code) => /^[45]\d\d$/.test(code));
      if (!PUBLIC.has(key)) assert.ok(errors.includes('401'), `${key}: documents 401`);
      for (const code of errors) {
        if (key === 'GET /api/health' && code === '503') continue; // the health report itself, not an error
        const schema = responses[code].content?.['application/json']?.schema;
        assert.ok(schema, `${key} ${code}: schema`);
        const resolved = schema.$ref ? resolveRef(doc, schema.$ref) : schema;
        assert.deepEqual([...(resolved.required ?? [])].sort(), ['detail', 'status_code'], `${key} ${code}: error model`);
      }
    }
  });

  test('every operation has its stable, unique, readable operationId', () => {
    const ids = operations.map((o) => o.op.operationId as unknown);
    for (const { key, op } of operations) assert.match(String(op.operationId), /^[a-z][A-Za-z]*$/, `${key}: operationId`);
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
    assert.deepEqual(Object.fromEntries(operations.map((o) => [o.key, o.op.operationId])), OPERATION_IDS);
  });

  test('every operation lists the answers the HTTP server gives whatever the operation', () => {
    // 400 (a request the parser or the router cannot read), 408 (not arrived in time) and 431 (headers
    // too large) come from the HTTP server before any route runs; 429 from the API-key rate limit.
    for (const { key, op } of operations) {
      for (const code of ['400', '401', '408', '429', '431']) assert.ok(op.responses?.[code], `${key}: ${code}`);
    }
    // The answers a fuzzer found undocumented, each listed where it occurs.
    const listed = (k: string) => Object.keys(operations.find((o) => o.key === k)!.op.responses);
    assert.ok(listed('GET /api/auth/sso/callback').includes('431'));
    assert.ok(listed('DELETE /api/api_keys/{id}').includes('403'));
    for (const k of ['POST /api/es/{index}/_bulk', 'PUT /api/es/{index}/_bulk']) assert.ok(listed(k).includes('404'), `${k}: 404 for an odd index name`);
  });

  test('declaring the routes raises no warning', () => {
    assert.deepEqual(warnings.filter((w) => /Fastify/i.test(w)), []);
  });

  test('request bodies, path and query parameters are described', () => {
    for (const { key, path, method, op } of operations) {
      const params = (op.parameters ?? []) as Json[];
      for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
        const param = params.find((p) => p.in === 'path' && p.name === name);
        assert.ok(param?.schema, `${key}: path parameter ${name}`);
        assert.equal(param.required, true, `${key}: path parameter ${name} required`);
      }
      // Action endpoints (logout, deploy, ...) take no body; updates always do.
      if (['PUT', 'PATCH'].includes(method)) assert.ok(op.requestBody, `${key}: request body`);
      if (op.requestBody) {
        const contents = Object.entries<Json>(op.requestBody.content ?? {});
        assert.ok(contents.length > 0, `${key}: request body content`);
        for (const [type, content] of contents) assert.ok(content.schema, `${key}: request body schema for ${type}`);
        const json = op.requestBody.content['application/json']?.schema;
        if (json?.type === 'object') assert.equal(json.additionalProperties, false, `${key}: strict JSON body`);
      }
      const successSchema = op.responses?.['200']?.content?.['application/json']?.schema;
      if (method === 'GET' && successSchema?.properties?.items && successSchema?.properties?.pages) {
        const names = params.filter((p) => p.in === 'query').map((p) => p.name);
        const item = successSchema.properties.items.items;
        const created = (item?.$ref ? resolveRef(doc, item.$ref) : item)?.properties?.created_at !== undefined;
        const expected = path.includes('{') ? LIST_PARAMETERS : [...LIST_PARAMETERS, ...FILTER_PARAMETERS, ...(created ? TIME_PARAMETERS : [])];
        for (const name of expected) assert.ok(names.includes(name), `${key}: list parameter ${name}`);
        const pageSize = params.find((p) => p.name === 'page_size');
        assert.equal(pageSize.schema.maximum, 100, `${key}: page_size maximum`);
      }
      // A query parameter with a default may be left out.
      for (const p of params.filter((x) => x.in === 'query')) {
        if (p.schema?.default !== undefined) assert.notEqual(p.required, true, `${key}: ${p.name} has a default, so it is optional`);
      }
      // Every route that reads a body documents 413 and 415.
      if (op.requestBody) for (const code of ['413', '415']) assert.ok(op.responses?.[code], `${key}: ${code}`);
    }
    // Bodies that are not JSON are described by their media types.
    const media = (k: string) => Object.keys(operations.find((o) => o.key === k)!.op.requestBody?.content ?? {}).sort();
    assert.deepEqual(media('POST /api/rules/import'), ['application/yaml', 'application/zip']);
    assert.deepEqual(media('POST /api/logs/{name}'), ['application/json', 'application/x-ndjson']);
    const bodyFields = (k: string) => Object.keys(operations.find((o) => o.key === k)!.op.requestBody.content['application/json'].schema.properties).sort();
    assert.deepEqual(bodyFields('POST /api/auth/login'), ['password', 'username']);
    assert.deepEqual(bodyFields('POST /api/auth/password'), ['current_password', 'new_password']);
    assert.deepEqual(bodyFields('POST /api/users'), ['password', 'role', 'username']);
    assert.deepEqual(bodyFields('PATCH /api/users/{id}'), ['disabled', 'password', 'role']);
  });

  test('public operations say so; the rest need credentials', () => {
    for (const { key, op } of operations) {
      if (PUBLIC.has(key)) assert.deepEqual(op.security, [], `${key}: public`);
      else assert.ok(op.security === undefined || op.security.length > 0, `${key}: must not be public`);
    }
  });

  test('every $ref resolves inside the document', () => {
    const refs = collectRefs(doc);
    assert.ok(refs.length > 0);
    for (const ref of refs) assert.ok(resolveRef(doc, ref) !== undefined, `unresolved ${ref}`);
  });
});

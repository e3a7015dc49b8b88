// The permission matrix: every operation of GET /api/openapi.json is tried as an admin, an analyst, a
// viewer, an API key, an ingest token and nobody, and the class of each answer is checked against
// the table below (decisions §3–§4): "pass" (anything but 401/403: the request got past access
// control), 401, or 403. The suite fails when an operation has no row, or a row names no operation.
//
// Adding a route? Add one row to MATRIX: `'<METHOD> <path as in the OpenAPI description>': <who>`,
// where <who> is one of
//   'public'    — everyone passes but an API key (keys work on the external API only);
//   'signed-in' — any session user (admin, analyst, viewer);
//   'analyst'   — analysts and admins (viewers get 403);
//   'admin'     — admins only (analysts and viewers get 403);
//   'api-key'   — API keys only (a session token gets 401);
//   'ingest'    — an index pattern's ingest token only;
//   'es-probe'  — the Elasticsearch facade's probes: no credentials or an ingest token (any other
//                 credential is refused with 401, as Elasticsearch refuses wrong credentials).
// For all but 'api-key', an API key gets 403 (decisions §4); for 'api-key' and 'ingest', session tokens
// get 401; nobody gets 401 wherever credentials are needed. Write the row as `[who, options]` when
// the request needs a query string that reaches past access control without side effects
// (`query`), or when the operation ends the session it is sent with (`endsSession`: it is then sent
// with a session of its own). Path parameters get a random UUID, `{name}`/`{index}` the pattern's
// name and `{version}` 1; writes send `{}`, so no request changes anything that matters.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ADMIN_PASSWORD, anonymous, Client, describeEachDatabase, login, loginAdmin } from '../helpers/service.js';
import { createPattern, userAs, type CreatedPattern, type Json } from '../rules/fixtures.js';
import { createKey, keyClient } from './fixtures.js';

type Who = 'public' | 'signed-in' | 'analyst' | 'admin' | 'api-key' | 'ingest' | 'es-probe';
type Row = Who | [Who, { query?: string; endsSession?: boolean }];

const MATRIX: Record<string, Row> = {
  'GET /api/health': 'public',
  'GET /api/openapi.json': 'public',

  // Sessions, two-factor login, single sign-on.
  'POST /api/auth/login': 'public',
  'POST /api/auth/logout': ['signed-in', { endsSession: true }],
  'GET /api/auth/me': 'signed-in',
  'GET /api/auth/csrf': 'signed-in',
  'POST /api/auth/password': 'signed-in',
  'POST /api/auth/2fa/setup': 'signed-in',
  'POST /api/auth/2fa/enable': 'signed-in',
  'POST /api/auth/2fa/disable': 'signed-in',
  'POST /api/auth/2fa/verify': 'public',
  'GET /api/auth/sso/providers': 'public',
  'GET /api/auth/session': 'public',
  'GET /api/auth/sso/login': 'public',
  'GET /api/auth/sso/callback': 'public',

  // Users and the audit log.
  'GET /api/users': 'admin',
  'POST /api/users': 'admin',
  'PATCH /api/users/{id}': 'admin',
  'DELETE /api/users/{id}': 'admin',
  'DELETE /api/users/{id}/2fa': 'admin',
  'GET /api/audit': 'admin',

  // Index patterns and field mappings: everyone reads, admins change.
  'GET /api/field_mapping_presets': 'signed-in',
  'GET /api/index_patterns': 'signed-in',
  'POST /api/index_patterns': 'admin',
  'GET /api/index_patterns/{id}': 'signed-in',
  'PATCH /api/index_patterns/{id}': 'admin',
  'DELETE /api/index_patterns/{id}': 'admin',
  'POST /api/index_patterns/{id}/rotate_token': 'admin',
  'GET /api/index_patterns/{id}/fields': 'signed-in',

  // Rules: everyone reads; analysts create, change, test, deploy; admins delete.
  'GET /api/rules': 'signed-in',
  'POST /api/rules': 'analyst',
  'GET /api/rules/{id}': 'signed-in',
  'PUT /api/rules/{id}': 'analyst',
  'DELETE /api/rules/{id}': 'admin',
  'POST /api/rules/{id}/deploy': 'analyst',
  'POST /api/rules/{id}/undeploy': 'analyst',
  'POST /api/rules/bulk/delete': 'admin',
  'POST /api/rules/bulk/deploy': 'analyst',
  'POST /api/rules/bulk/undeploy': 'analyst',
  'POST /api/rules/reconcile': 'admin',
  'POST /api/rules/import': 'analyst',
  'GET /api/rules/{id}/versions': 'signed-in',
  'GET /api/rules/{id}/versions/{version}': 'signed-in',
  'POST /api/rules/{id}/rollback': 'analyst',
  'GET /api/rules/{id}/exceptions': 'signed-in',
  'POST /api/rules/{id}/exceptions': 'analyst',
  'POST /api/rules/{id}/exceptions/preview': 'analyst',
  'PATCH /api/rules/{id}/exceptions/{eid}': 'analyst',
  'DELETE /api/rules/{id}/exceptions/{eid}': 'analyst',
  'GET /api/rules/{id}/suppression': 'signed-in',
  'GET /api/alerts/groups': 'signed-in',
  'GET /api/alerts/histogram': 'signed-in',
  'GET /api/alerts/{id}/context': 'signed-in',
  'GET /api/alerts/{id}/process_tree': 'signed-in',
  'PATCH /api/auth/me': 'signed-in',
  'PUT /api/rules/{id}/suppression': 'analyst',
  'DELETE /api/rules/{id}/suppression': 'analyst',
  'POST /api/rules/{id}/test': 'analyst',
  'POST /api/rules/test': 'analyst',
  'POST /api/rules/{id}/test/historical': 'analyst',

  // Alerts: everyone reads; analysts triage and comment.
  'GET /api/alerts': 'signed-in',
  'GET /api/alerts/{id}': 'signed-in',
  'PATCH /api/alerts/{id}': 'analyst',
  'POST /api/alerts/bulk/status': 'analyst',
  'GET /api/alerts/{id}/comments': 'signed-in',
  'POST /api/alerts/{id}/comments': 'analyst',
  'GET /api/alerts/stream': ['signed-in', { query: 'last_event_id=not-a-number' }],
  'GET /api/stats': 'signed-in',

  // Threat intelligence: everyone sees the feeds, admins manage them.
  'GET /api/threat_intel/feeds': 'signed-in',
  'POST /api/threat_intel/feeds': 'admin',
  'DELETE /api/threat_intel/feeds/{id}': 'admin',

  // API keys: every user manages their own (admins: all).
  'POST /api/api_keys': 'signed-in',
  'GET /api/api_keys': 'signed-in',
  'DELETE /api/api_keys/{id}': 'signed-in',
  'POST /api/notification_channels': 'admin',
  'GET /api/notification_channels': 'admin',
  'GET /api/notification_channels/{id}': 'admin',
  'PATCH /api/notification_channels/{id}': 'admin',
  'DELETE /api/notification_channels/{id}': 'admin',
  'POST /api/notification_channels/{id}/test': 'admin',
  'GET /api/notification_channels/{id}/deliveries': 'admin',
  'POST /api/notification_channels/{id}/deliveries/{delivery_id}/retry': 'admin',

  // The external API: API keys only, read-only.
  'GET /api/external/alerts': 'api-key',
  'GET /api/external/alerts/{id}': 'api-key',
  'GET /api/external/rules': 'api-key',
  'GET /api/external/rules/{id}': 'api-key',
  'GET /api/external/stats': 'api-key',

  // Ingestion: the pattern's ingest token (the Elasticsearch facade's probes also answer no credentials).
  'POST /api/logs/{name}': 'ingest',
  'GET /api/es': 'es-probe',
  'GET /api/es/': 'es-probe',
  'GET /api/es/_license': 'es-probe',
  'GET /api/es/_cluster/health': 'es-probe',
  'GET /api/es/{path}': 'es-probe',
  'PUT /api/es/{path}': 'es-probe',
  'POST /api/es/{path}': 'es-probe',
  'DELETE /api/es/{path}': 'es-probe',
  'POST /api/es/_bulk': 'ingest',
  'PUT /api/es/_bulk': 'ingest',
  'POST /api/es/{index}/_bulk': 'ingest',
  'PUT /api/es/{index}/_bulk': 'ingest',
};

type Principal = 'admin' | 'analyst' | 'viewer' | 'api key' | 'ingest token' | 'nobody';
type Outcome = 'pass' | 401 | 403;
const PRINCIPALS: Principal[] = ['admin', 'analyst', 'viewer', 'api key', 'ingest token', 'nobody'];
const ROLE_RANK: Partial<Record<Principal, number>> = { viewer: 0, analyst: 1, admin: 2 };
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The answer class the table promises `principal` for `method` on a route declared `who`. */
function expected(who: Who, method: string, principal: Principal): Outcome {
  if (principal === 'api key') return who === 'api-key' ? 'pass' : 403;
  if (who === 'public') return 'pass';
  if (who === 'es-probe') return principal === 'nobody' || principal === 'ingest token' ? 'pass' : 401;
  if (principal === 'nobody') return 401;
  if (who === 'api-key') return 401;
  if (who === 'ingest') return principal === 'ingest token' ? 'pass' : 401;
  if (principal === 'ingest token') return 401;
  const needed = who === 'admin' ? 2 : who === 'analyst' ? 1 : 0;
  return ROLE_RANK[principal]! >= needed ? 'pass' : 403;
}

const classOf = (status: number): Outcome => (status === 401 || status === 403 ? status : 'pass');

describeEachDatabase('permission matrix', (ctx) => {
  let doc: Json;
  let pattern: CreatedPattern;
  const clients = new Map<Principal, Client>();
  const passwords = new Map<Principal, [string, string]>();

  before(async () => {
    doc = (await anonymous(ctx.service).get('/api/openapi.json')).data;
    const admin = await loginAdmin(ctx.service);
    const run = Math.random().toString(36).slice(2, 7);
    clients.set('admin', admin);
    for (const role of ['analyst', 'viewer'] as const) {
      const username = `matrix-${role}-${run}`;
      clients.set(role, await userAs(admin, role, username));
      passwords.set(role, [username, `${username}-password-123`]);
    }
    passwords.set('admin', ['admin', ADMIN_PASSWORD]);
    // A high-tier key, so the whole table stays within one minute's budget.
    clients.set('api key', keyClient(ctx.service, await createKey(admin, { tier: 'high' })));
    pattern = await createPattern(admin, { name: `matrix-${run}` });
    clients.set('ingest token', new Client(ctx.service, pattern.ingest_token));
    clients.set('nobody', anonymous(ctx.service));
  });

  const operations = (): string[] =>
    Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );

  test('every operation of the OpenAPI description has its row, and every row its operation', () => {
    const ops = operations();
    assert.deepEqual(ops.filter((op) => !(op in MATRIX)), [], 'operations without a row in MATRIX (see the comment at the top)');
    assert.deepEqual(Object.keys(MATRIX).filter((row) => !ops.includes(row)), [], 'rows naming no operation');
  });

  test('each principal gets the answer class the table promises, on every operation', async () => {
    const mismatches: string[] = [];
    for (const op of operations()) {
      const row = MATRIX[op];
      if (!row) continue;
      const [who, options] = typeof row === 'string' ? [row, {}] : row;
      const [method, template] = op.split(' ');
      const path = template
        .replace(/\{(name|index)\}/g, pattern.name)
        .replace('{version}', '1')
        .replace(/\{[a-z_]+\}/g, () => randomUUID());
      const url = options.query ? `${path}?${options.query}` : path;
      for (const principal of PRINCIPALS) {
        let client = clients.get(principal)!;
        if (options.endsSession && passwords.has(principal)) client = await login(ctx.service, ...passwords.get(principal)!);
        const response = await client.request(method as 'GET', url, WRITES.has(method) ? {} : undefined);
        const got = classOf(response.statusCode);
        const want = expected(who, method, principal);
        if (got !== want) mismatches.push(`${op} as ${principal}: expected ${want}, got ${response.statusCode} ${response.body.slice(0, 120)}`);
      }
    }
    assert.deepEqual(mismatches, []);
  });
});

// The external API from an integration's side: /api/external/{alerts,alerts/{id},rules,rules/{id},stats}
// answer with an API key exactly what their internal counterparts answer with a session (same query
// parameters, same shapes, same errors); a session token there is refused; a key is read-only and
// confined to these endpoints; every answer after the key is checked carries the rate-limit headers.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { anonymous, describeEachDatabase, type Client } from '../helpers/service.js';
import { assertError, NIL_UUID, type Json } from '../rules/fixtures.js';
import { alertWorld, type AlertWorld } from '../alerts/fixtures.js';
import { createKey, keyClient, rateHeaders } from './fixtures.js';

const COUNTERPARTS = [
  '/api/alerts',
  '/api/alerts?status=new&severity=high&sort_by=rule_title&sort_order=asc',
  '/api/alerts?page=2&page_size=2',
  '/api/alerts?search=needle',
  '/api/alerts?created_after=2000-01-01T00:00:00Z&host=ws-01',
  '/api/rules',
  '/api/rules?status=deployed&sort_by=title&sort_order=asc&page_size=3',
  '/api/rules?severity=critical',
];

describeEachDatabase('external API', (ctx) => {
  let world: AlertWorld;
  /** A high-tier key (300 a minute), so this suite's requests stay within one budget. */
  let key: Client;

  before(async () => {
    world = await alertWorld(ctx.service, 'ext');
    key = keyClient(ctx.service, await createKey(world.admin, { tier: 'high' }));
  });
  const external = (path: string) => path.replace('/api/', '/api/external/');

  test('lists answer what their internal counterparts answer, for the same query', async () => {
    for (const path of COUNTERPARTS) {
      const internal = await world.viewer.get(path);
      const outside = await key.get(external(path));
      assert.equal(internal.statusCode, 200, `${path}: ${internal.body}`);
      assert.equal(outside.statusCode, 200, `${external(path)}: ${outside.body}`);
      assert.deepEqual(outside.data, internal.data, path);
    }
    const all = await key.get('/api/external/alerts');
    assert.equal(all.data.total, 5);
    assert.deepEqual(Object.keys(all.data).sort(), ['items', 'page', 'page_size', 'pages', 'total', 'total_exact']);
  });

  test('one alert and one rule read the same as inside', async () => {
    for (const path of [`/api/alerts/${world.alerts.procBob}`, `/api/rules/${world.rules.login}`]) {
      const internal = await world.viewer.get(path);
      const outside = await key.get(external(path));
      assert.equal(outside.statusCode, 200, outside.body);
      assert.deepEqual(outside.data, internal.data, path);
    }
    const alert = await key.get(`/api/external/alerts/${world.alerts.procBob}`);
    assert.equal(alert.data.rule_title, 'Beta Process');
    assert.ok(alert.data.event, 'the full alert carries its event');
  });

  test('stats answer the dashboard figures', async () => {
    const internal = await world.viewer.get('/api/stats');
    const outside = await key.get('/api/external/stats');
    assert.equal(outside.statusCode, 200, outside.body);
    assert.deepEqual(outside.data.alerts, internal.data.alerts);
    assert.deepEqual(outside.data.rules, internal.data.rules);
    assert.deepEqual(outside.data.top_rules, internal.data.top_rules);
    assert.equal(outside.data.timeline.length, 24);
    assert.equal(outside.data.alerts.total, 5);
  });

  test('bad parameters and unknown ids answer as inside', async () => {
    assertError(await key.get('/api/external/alerts?status=bogus'), 400, 'Invalid status value');
    assertError(await key.get('/api/external/alerts?page_size=101'), 400, 'Invalid request');
    assertError(await key.get('/api/external/rules?sort_by=nope'), 400, 'Invalid request');
    assertError(await key.get(`/api/external/alerts/${NIL_UUID}`), 404, 'Alert not found');
    assertError(await key.get('/api/external/alerts/not-a-uuid'), 404, 'Alert not found');
    assertError(await key.get(`/api/external/rules/${NIL_UUID}`), 404, 'Rule not found');
    assertError(await key.get('/api/external/nothing-here'), 404, 'Not Found');
  });

  test('a session token, a cookie, no credentials or an unknown key get 401 on the external API', async () => {
    for (const path of ['/api/external/alerts', `/api/external/alerts/${world.alerts.scan}`, '/api/external/rules', '/api/external/stats']) {
      for (const client of [world.admin, world.viewer, anonymous(ctx.service), keyClient(ctx.service, `svc_ak_${'a'.repeat(43)}`)]) {
        const res = await client.get(path);
        assertError(res, 401, 'Could not validate credentials');
        assert.equal(res.headers['www-authenticate'], 'Bearer');
        assert.equal(res.headers['x-ratelimit-limit'], undefined, 'no budget is reported before a key is checked');
      }
    }
    const cookie = await anonymous(ctx.service).get('/api/external/alerts', { cookie: `svc_session=${world.admin.token}` });
    assertError(cookie, 401, 'Could not validate credentials');
  });

  test('a key is read-only and confined to the external API: 403 Not enough permissions elsewhere', async () => {
    const refused: Array<[string, string, unknown?]> = [
      ['GET', '/api/alerts'],
      ['GET', `/api/alerts/${world.alerts.scan}`],
      ['GET', '/api/rules'],
      ['GET', '/api/stats'],
      ['GET', '/api/api_keys'],
      ['GET', '/api/users'],
      ['GET', '/api/auth/me'],
      ['POST', '/api/rules', { yaml_content: 'title: x' }],
      ['PATCH', `/api/alerts/${world.alerts.scan}`, { status: 'acknowledged' }],
      ['POST', '/api/alerts/bulk/status', { ids: [world.alerts.scan], status: 'acknowledged' }],
      ['POST', `/api/rules/${world.rules.login}/undeploy`],
      ['DELETE', `/api/rules/${world.rules.login}`],
      ['POST', '/api/api_keys', { name: 'another' }],
      ['POST', '/api/external/alerts', {}],
      ['PATCH', `/api/external/alerts/${world.alerts.scan}`, { status: 'resolved' }],
      ['DELETE', `/api/external/rules/${world.rules.login}`],
      ['PUT', '/api/external/stats', {}],
      ['POST', '/api/no-such-route', {}],
    ];
    for (const [method, path, body] of refused) {
      const res = await key.request(method as 'GET', path, body);
      assertError(res, 403, 'Not enough permissions');
      assert.ok(rateHeaders(res).limit === 300, `${method} ${path} counts against the key's budget`);
    }
    const alert = await world.viewer.get(`/api/alerts/${world.alerts.scan}`);
    assert.equal(alert.data.status, 'new', 'nothing changed');
    const rule = await world.viewer.get(`/api/rules/${world.rules.login}`);
    assert.equal(rule.data.status, 'deployed');
  });

  test('public routes refuse a key too, reads included: 403 for a valid key, 401 for an unknown one', async () => {
    const refused: Array<[string, string, unknown?]> = [
      ['GET', '/api/health'],
      ['GET', '/api/openapi.json'],
      ['GET', '/api/auth/sso/providers'],
      ['GET', '/api/auth/sso/login?provider=oidc'],
      ['GET', '/api/es/'],
      ['POST', '/api/no-such-route', {}],
      ['POST', `/api/logs/${world.win.name}`, [{ Action: 'login' }]],
      ['POST', '/api/auth/login', { username: 'admin', password: 'x'.repeat(12) }],
    ];
    const unknown = keyClient(ctx.service, `svc_ak_${'b'.repeat(43)}`);
    for (const [method, path, body] of refused) {
      const res = await key.request(method as 'GET', path, body);
      assertError(res, 403, 'Not enough permissions');
      assert.equal(rateHeaders(res).limit, 300, `${method} ${path} counts against the key's budget`);
      assertError(await unknown.request(method as 'GET', path, body), 401, 'Could not validate credentials');
    }
    // The key is recognised where a session would be: also in the session cookie.
    assertError(await anonymous(ctx.service).get('/api/health', { cookie: `svc_session=${key.token}` }), 403, 'Not enough permissions');
    // Without a key, the public routes answer as ever; a credential that is not a key is ignored there.
    assert.equal((await anonymous(ctx.service).get('/api/health')).statusCode, 200);
    assert.equal((await world.viewer.get('/api/openapi.json')).statusCode, 200);
    assert.equal((await anonymous(ctx.service).get('/api/auth/sso/providers', { authorization: 'Bearer something-else' })).statusCode, 200);
    assert.equal(await ctx.service.db.query('SELECT 1 FROM events WHERE event::text LIKE $1', ['%"Action":"login"%']).then((r) => r.length), 2, 'nothing was ingested');
  });

  test('every answer after the key is checked carries X-RateLimit-Limit, -Remaining and -Reset', async () => {
    const fresh = keyClient(ctx.service, await createKey(world.viewer));
    const answers = [
      await fresh.get('/api/external/alerts'),
      await fresh.get('/api/external/alerts?status=bogus'),
      await fresh.get(`/api/external/rules/${NIL_UUID}`),
      await fresh.get('/api/external/stats'),
      await fresh.get('/api/rules'),
    ];
    assert.deepEqual(answers.map((a) => a.statusCode), [200, 400, 404, 200, 403]);
    // Each answer counts one request down, unless a new minute window began between two of them.
    let expected = 59;
    let previousReset = Infinity;
    answers.forEach((answer, i) => {
      const h = rateHeaders(answer);
      assert.equal(h.limit, 60);
      if (i > 0 && h.remaining === 59 && h.reset > previousReset) expected = 59;
      assert.equal(h.remaining, expected, `answer ${i}`);
      assert.ok(Number.isInteger(h.reset) && h.reset >= 1 && h.reset <= 60, String(h.reset));
      expected--;
      previousReset = h.reset;
    });
    assert.equal(answers[0].headers['cache-control'], 'no-store');
    assert.equal(answers[0].headers['x-content-type-options'], 'nosniff');
  });

  test('the OpenAPI description marks external operations with the API-key scheme and the rest with the session ones', async () => {
    const doc = (await anonymous(ctx.service).get('/api/openapi.json')).data as Json;
    assert.deepEqual(Object.keys(doc.components.securitySchemes).filter((s) => ['bearerAuth', 'cookieAuth', 'apiKey'].includes(s)).sort(), ['apiKey', 'bearerAuth', 'cookieAuth']);
    assert.equal(doc.components.securitySchemes.apiKey.scheme, 'bearer');
    for (const path of ['/api/external/alerts', '/api/external/alerts/{id}', '/api/external/rules', '/api/external/rules/{id}', '/api/external/stats']) {
      assert.deepEqual(doc.paths[path].get.security, [{ apiKey: [] }], path);
      assert.deepEqual(Object.keys(doc.paths[path]), ['get'], `${path} is read-only`);
      const responses = doc.paths[path].get.responses;
      assert.deepEqual(Object.keys(responses['200'].headers).sort(), ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'], path);
      assert.ok(responses['429'].headers['Retry-After'], `${path}: 429 documents Retry-After`);
    }
    assert.deepEqual(doc.paths['/api/alerts'].get.security, [{ bearerAuth: [] }, { cookieAuth: [] }]);
    assert.deepEqual(doc.paths['/api/api_keys'].post.security, [
      { bearerAuth: [], csrfToken: [] },
      { cookieAuth: [], csrfToken: [] },
    ]);
    assert.deepEqual(doc.paths['/api/external/alerts'].get.parameters, doc.paths['/api/alerts'].get.parameters);
  });
});

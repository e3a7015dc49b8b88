// The Elasticsearch-compatible receiver under /api/es: the probe documents shippers check (root,
// licence, health, nodes, set-up calls), X-Elastic-Product on every answer, the ingest token in every
// form shippers send it, and _bulk answered item by item through the ingest pipeline.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { ConfigError, loadConfig } from '../../../src/config.js';
import { describeEachDatabase, loginAdmin, type Client } from '../../helpers/service.js';
import { countRows, createPattern, createRule, equalsRule, type CreatedPattern, type Json } from '../../rules/fixtures.js';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const ndjson = (...lines: unknown[]) => lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n';

describeEachDatabase(
  'Elasticsearch-compatible receiver',
  (ctx) => {
    let admin: Client;
    let pattern: CreatedPattern;
    let other: CreatedPattern;

    before(async () => {
      admin = await loginAdmin(ctx.service);
      pattern = await createPattern(admin, { name: 'shipped' });
      other = await createPattern(admin, { name: 'elsewhere' });
      await createRule(admin, { yaml_content: equalsRule('Shipped Marker', 'marker', 'bad-thing', 'high'), index_pattern: pattern.name, deploy: true });
    });

    const send = async (method: string, url: string, options: { body?: string | Buffer; headers?: Record<string, string> } = {}) => {
      const response = await ctx.service.app.inject({ method: method as 'GET', url, payload: options.body, headers: options.headers });
      let data: Json;
      try {
        data = response.body ? JSON.parse(response.body) : undefined;
      } catch {
        data = undefined;
      }
      return Object.assign(response, { data });
    };
    const bulk = (body: string | Buffer, headers: Record<string, string> = {}, url = '/api/es/_bulk', token = pattern.ingest_token) =>
      send('POST', url, { body, headers: { authorization: basic('elastic', token), 'content-type': 'application/x-ndjson', ...headers } });
    const storedWith = (field: string, value: string, target = pattern) =>
      countRows(ctx.service, `events WHERE index_pattern_id = $1 AND event->>'${field}' = $2`, [target.id, value]);
    const alertsFor = (value: string) => countRows(ctx.service, `alerts WHERE event->>'marker' = $1`, [value]);

    function assertProduct(response: { headers: Record<string, unknown> }): void {
      assert.equal(response.headers['x-elastic-product'], 'Elasticsearch');
      assert.match(String(response.headers['content-type']), /^application\/json/);
    }
    function assertEsError(response: { statusCode: number; data: Json; body: string; headers: Record<string, unknown> }, status: number): void {
      assert.equal(response.statusCode, status, response.body);
      assertProduct(response);
      assert.equal(response.data.status, status);
      assert.equal(typeof response.data.error.type, 'string');
      assert.equal(typeof response.data.error.reason, 'string');
      assert.equal(response.data.status_code, status);
    }

    test('the root document answers GET and HEAD, with and without the trailing slash, without credentials', async () => {
      for (const url of ['/api/es', '/api/es/']) {
        const root = await send('GET', url);
        assert.equal(root.statusCode, 200, root.body);
        assertProduct(root);
        assert.equal(root.data.version.number, '8.18.2', 'ES_COMPAT_VERSION');
        assert.equal(root.data.version.build_flavor, 'default');
        assert.equal(root.data.tagline, 'You Know, for Search');
        for (const key of ['name', 'cluster_name', 'cluster_uuid']) assert.equal(typeof root.data[key], 'string');
        for (const key of ['build_type', 'lucene_version', 'minimum_wire_compatibility_version', 'minimum_index_compatibility_version']) {
          assert.equal(typeof root.data.version[key], 'string', key);
        }
        const head = await send('HEAD', url);
        assert.equal(head.statusCode, 200);
        assert.equal(head.headers['x-elastic-product'], 'Elasticsearch');
      }
      const withToken = await send('GET', '/api/es', { headers: { authorization: basic('elastic', pattern.ingest_token) } });
      assert.equal(withToken.statusCode, 200);
    });

    test('wrong credentials are refused on probes too, with a Basic challenge in the Elasticsearch error shape', async () => {
      for (const authorization of [basic('elastic', 'svc_it_wrong'), basic('elastic', 'changeme'), 'Bearer nope', 'Digest x']) {
        const response = await send('GET', '/api/es', { headers: { authorization } });
        assertEsError(response, 401);
        assert.match(String(response.headers['www-authenticate']), /^Basic realm="vigil"/);
        assert.equal(response.data.error.type, 'security_exception');
        assert.ok(!response.body.includes('svc_it_wrong'));
      }
    });

    test('licence, health, nodes, X-Pack and set-up calls answer what shippers check', async () => {
      const license = await send('GET', '/api/es/_license');
      assert.equal(license.statusCode, 200);
      assertProduct(license);
      assert.equal(license.data.license.status, 'active');
      assert.equal(license.data.license.type, 'basic');
      const health = await send('GET', '/api/es/_cluster/health');
      assert.equal(health.statusCode, 200);
      assert.equal(health.data.status, 'green');
      const nodes = await send('GET', '/api/es/_nodes/http', { headers: { host: 'vigil.example:8080' } });
      assert.equal(nodes.statusCode, 200);
      const [node] = Object.values<Json>(nodes.data.nodes);
      assert.equal(node.http.publish_address, 'vigil.example:8080');
      const xpack = await send('GET', '/api/es/_xpack');
      assert.equal(xpack.data.features.ilm.enabled, true);
      const auth = { authorization: basic('elastic', pattern.ingest_token), 'content-type': 'application/json' };
      for (const [method, url, body] of [
        ['HEAD', '/api/es/_index_template/filebeat-8.17.0', undefined],
        ['PUT', '/api/es/_index_template/logstash', '{"index_patterns":["logstash-*"],"template":{}}'],
        ['GET', '/api/es/_ilm/policy/logstash-policy', undefined],
        ['PUT', '/api/es/_ilm/policy/filebeat', '{"policy":{"phases":{}}}'],
        ['PUT', '/api/es/_ingest/pipeline/winlogbeat-routing', '{"processors":[]}'],
        ['GET', '/api/es/_logstash/pipeline/main', undefined],
        ['PUT', '/api/es/my-index', '{"settings":{}}'],
        ['HEAD', '/api/es/my-index', undefined],
      ] as const) {
        const response = await send(method, url, { body, headers: auth });
        assert.equal(response.statusCode, 200, `${method} ${url}: ${response.body}`);
        assert.equal(response.headers['x-elastic-product'], 'Elasticsearch', `${method} ${url}`);
      }
      assertEsError(await send('GET', '/api/es/_search'), 404);
      // Methods and paths no route serves still answer as Elasticsearch.
      for (const [method, url] of [
        ['PATCH', '/api/es/my-index'],
        ['OPTIONS', '/api/es/_bulk'],
        ['POST', '/api/es'],
        ['DELETE', '/api/es/'],
        ['GET', '/api/es/_bulk'],
      ] as const) {
        assertEsError(await send(method, url, { headers: auth }), 404);
      }
      assertEsError(await send('POST', '/api/es/my-index/_doc', { body: '{}', headers: auth }), 404);
    });

    test('_bulk stores index and create documents, refuses the rest item by item, in order', async () => {
      const body = ndjson(
        { index: { _index: 'filebeat-8.17.0' } },
        { marker: 'bad-thing', message: 'first', '@timestamp': '2026-11-20T10:00:00Z' },
        { create: { _index: 'logs-generic-default', _id: 'given-id' } },
        { marker: 'fine', message: 'second' },
        { delete: { _index: 'x', _id: '1' } },
        { update: { _index: 'x', _id: '2' } },
        { doc: { a: 1 } },
        { index: {} },
        '{"broken": ',
        { create: {} },
        '[1, 2]',
        { index: {} },
        { marker: 'too-old', '@timestamp': '0000-01-01T00:00:00Z' },
        { create: { _index: 'last' } },
        { marker: 'fine', message: 'third' },
      );
      const response = await bulk(body, {}, '/api/es/_bulk?filter_path=errors,items.*.error,items.*.status&timeout=1m&pipeline=p&refresh=false');
      assert.equal(response.statusCode, 200, response.body);
      assertProduct(response);
      assert.equal(typeof response.data.took, 'number');
      assert.equal(response.data.errors, true);
      const items: Json[] = response.data.items;
      assert.deepEqual(items.map((i) => Object.keys(i)[0]), ['index', 'create', 'delete', 'update', 'index', 'create', 'index', 'create']);
      const results = items.map((i) => Object.values<Json>(i)[0]);
      assert.deepEqual(results.map((r) => r.status), [201, 201, 400, 400, 400, 400, 400, 201]);
      assert.deepEqual(results.map((r) => r._index), ['filebeat-8.17.0', 'logs-generic-default', 'x', 'x', 'shipped', 'shipped', 'shipped', 'last']);
      assert.equal(results[0].result, 'created');
      assert.equal(results[1]._id, 'given-id');
      assert.match(results[0]._id, /^[\w-]{20}$/);
      for (const r of results.filter((x) => x.status === 400)) {
        assert.equal(typeof r.error.type, 'string');
        assert.equal(typeof r.error.reason, 'string');
        assert.equal(r.result, undefined);
      }
      assert.match(results[6].error.reason, /timestamp/);
      // Stored: the three good documents, each tagged with the index its shipper named.
      assert.equal(await storedWith('message', 'first'), 1);
      assert.equal(await storedWith('_index', 'logs-generic-default'), 1);
      assert.equal(await storedWith('_index', 'last'), 1);
      assert.equal(await storedWith('marker', 'too-old'), 0);
      assert.equal(await alertsFor('bad-thing'), 1);
    });

    test('the ingest token works as Basic password, ApiKey (encoded or raw) and Bearer; it alone picks the pattern', async () => {
      const forms = {
        basic: basic('any-user', pattern.ingest_token),
        apikeyEncoded: `ApiKey ${Buffer.from(`key-id:${pattern.ingest_token}`).toString('base64')}`,
        apikeyRaw: `ApiKey ${pattern.ingest_token}`,
        bearer: `Bearer ${pattern.ingest_token}`,
      };
      for (const [form, authorization] of Object.entries(forms)) {
        const response = await bulk(ndjson({ create: {} }, { form }), { authorization });
        assert.equal(response.statusCode, 200, `${form}: ${response.body}`);
        assert.equal(response.data.errors, false);
        assert.equal(await storedWith('form', form), 1, form);
      }
      // The other pattern's token sends to the other pattern, whatever index the path names.
      const elsewhere = await bulk(ndjson({ index: {} }, { form: 'other-token' }), {}, '/api/es/shipped/_bulk', other.ingest_token);
      assert.equal(elsewhere.statusCode, 200, elsewhere.body);
      assert.equal(await storedWith('form', 'other-token', other), 1);
      assert.equal(await storedWith('form', 'other-token', pattern), 0);
      assert.equal(elsewhere.data.items[0].index._index, 'shipped');
    });

    test('missing or wrong credentials on _bulk: 401 with a Basic challenge, nothing stored', async () => {
      for (const authorization of [undefined, basic('elastic', 'svc_it_notatoken'), `ApiKey ${Buffer.from('id:key').toString('base64')}`, basic(pattern.ingest_token.slice(0, -1), '')]) {
        const headers: Record<string, string> = { 'content-type': 'application/x-ndjson' };
        if (authorization) headers.authorization = authorization;
        const response = await send('POST', '/api/es/_bulk', { body: ndjson({ index: {} }, { form: 'refused' }), headers });
        assertEsError(response, 401);
        assert.match(String(response.headers['www-authenticate']), /^Basic/);
      }
      assert.equal(await storedWith('form', 'refused'), 0);
    });

    test('gzip, application/json, PUT and the index in the path', async () => {
      const body = gzipSync(ndjson({ index: {} }, { form: 'gzipped' }));
      const response = await send('PUT', '/api/es/vector-2026.11.26/_bulk', {
        body,
        headers: { authorization: `Bearer ${pattern.ingest_token}`, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.data.items[0].index._index, 'vector-2026.11.26');
      assert.equal(await storedWith('form', 'gzipped'), 1);
      assert.equal(await storedWith('_index', 'vector-2026.11.26'), 1);
    });

    test('re-sending a batch stores nothing twice and raises no alert twice', async () => {
      const body = ndjson({ create: {} }, { marker: 'bad-thing', message: 'resent' }, { create: {} }, { marker: 'bad-thing', message: 'resent-2' });
      const first = await bulk(body);
      const second = await bulk(body);
      assert.equal(first.statusCode, 200);
      assert.deepEqual(second.data.items, first.data.items);
      assert.equal(await storedWith('message', 'resent'), 1);
      assert.equal(await alertsFor('bad-thing'), 3);
    });

    test('unreadable requests are refused whole, in the Elasticsearch shape', async () => {
      assertEsError(await bulk(''), 400);
      assertEsError(await bulk('\n\n'), 400);
      assertEsError(await bulk(ndjson('{"index": ', { a: 1 })), 400);
      assertEsError(await bulk(ndjson({ upsert: {} }, { a: 1 })), 400);
      assertEsError(await bulk(ndjson({ index: {}, create: {} }, { a: 1 })), 400);
      assertEsError(await bulk(Buffer.from('not gzip'), { 'content-encoding': 'gzip' }), 400);
      assertEsError(await bulk(ndjson({ index: {} }, { a: 1 }), { 'content-encoding': 'br' }), 415);
      assertEsError(await send('POST', `/api/es/${'x'.repeat(300)}/_bulk`, { body: ndjson({ index: {} }, { a: 1 }), headers: { authorization: `Bearer ${pattern.ingest_token}` } }), 404);
    });

    test('an index in the path that cannot be an index name: 404 saying why, nothing stored', async () => {
      const cases: Record<string, RegExp> = {
        'a%2Fb': /must not contain "\/"/,
        '_bulk': /must not start with/,
        '-logs': /must not start with/,
        'a%20b': /spaces or control characters/,
        '%00': /spaces or control characters/,
        'x%23y': /must not contain "#"/,
        '%2A': /must not contain "\*"/,
        ['%C3%BC'.repeat(200)]: /longer than 255 bytes/,
      };
      for (const [index, why] of Object.entries(cases)) {
        for (const method of ['POST', 'PUT']) {
          const response = await send(method, `/api/es/${index}/_bulk`, { body: ndjson({ index: {} }, { form: 'odd-index' }), headers: { authorization: `Bearer ${pattern.ingest_token}`, 'content-type': 'application/x-ndjson' } });
          assertEsError(response, 404);
          assert.match(response.data.detail, /^No such index \[.*\]: not a valid index name/s, index);
          assert.match(response.data.detail, why, index);
        }
      }
      assert.equal(await storedWith('form', 'odd-index'), 0);
      // Upper case and other text are kept as the tag.
      const upper = await send('POST', '/api/es/Logs-%C3%9C/_bulk', { body: ndjson({ index: {} }, { form: 'upper-index' }), headers: { authorization: `Bearer ${pattern.ingest_token}` } });
      assert.equal(upper.statusCode, 200, upper.body);
      assert.equal(upper.data.items[0].index._index, 'Logs-Ü');
    });

    test('bodies over 10 MiB, sent or unzipped, answer 413', async () => {
      const line = ndjson({ index: {} }, { pad: 'p'.repeat(1000) });
      const big = line.repeat(Math.ceil((10 * 1024 * 1024) / line.length) + 1);
      assertEsError(await bulk(big), 413);
      assertEsError(await bulk(gzipSync(big), { 'content-encoding': 'gzip' }), 413);
    });
  },
  { ES_COMPAT_VERSION: '8.18.2' },
);

test('ES_COMPAT_VERSION defaults to 8.19.0 and must be a version number', () => {
  assert.equal(loadConfig({}).esCompatVersion, '8.19.0');
  assert.equal(loadConfig({ ES_COMPAT_VERSION: '9.1.0' }).esCompatVersion, '9.1.0');
  for (const bad of ['8', 'v8.17.0', '8.17.0-SNAPSHOT', '8.17.0; rm']) {
    assert.throws(() => loadConfig({ ES_COMPAT_VERSION: bad }), (e: unknown) => e instanceof ConfigError && /ES_COMPAT_VERSION/.test((e as Error).message), bad);
  }
});

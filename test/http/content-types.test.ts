// Bodies a route does not read: a content type it does not take is 415 (JSON routes take JSON only,
// import YAML or zip, ingest JSON/NDJSON with gzip or no content coding); routes that take no body
// (deploy, undeploy, rotate_token, logout) refuse one, an empty body or `{}` aside.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase, loginAdmin, type Client } from '../helpers/service.js';
import { assertError, createPattern, createRule, ingest, sigma, type CreatedPattern } from '../rules/fixtures.js';

describeEachDatabase('content types and body-less routes', (ctx) => {
  let admin: Client;
  let pattern: CreatedPattern;

  before(async () => {
    admin = await loginAdmin(ctx.service);
    pattern = await createPattern(admin, { name: 'bodies', is_default: true });
  });

  test('JSON routes answer 415 to a JSON text sent as text/plain or another type', async () => {
    const body = JSON.stringify({ yaml_content: sigma() });
    for (const type of ['text/plain', 'text/plain; charset=utf-8', 'application/xml', 'application/x-www-form-urlencoded']) {
      assertError(await admin.post('/api/rules', body, { 'content-type': type }), 415, 'Unsupported Content-Type');
    }
    assertError(await admin.post('/api/auth/login', '{"username":"a","password":"b"}', { 'content-type': 'text/plain' }), 415, 'Unsupported Content-Type');
  });

  test('import reads YAML (text/plain too) and zip; JSON is 415', async () => {
    assertError(await admin.post('/api/rules/import', { yaml_content: sigma() }), 415, 'Unsupported Content-Type');
    const plain = await admin.post('/api/rules/import', sigma({ title: 'Imported as text' }), { 'content-type': 'text/plain' });
    assert.equal(plain.statusCode, 200, plain.body);
    assert.equal(plain.data.created, 1);
  });

  test('ingest refuses a content coding other than gzip with 415, naming it', async () => {
    const post = (encoding: string) =>
      ctx.service.app.inject({
        method: 'POST',
        url: `/api/logs/${pattern.name}`,
        payload: '{"a":1}',
        headers: { authorization: `Bearer ${pattern.ingest_token}`, 'content-type': 'application/json', 'content-encoding': encoding },
      });
    for (const encoding of ['br', 'zstd', 'deflate', 'gzip, gzip']) {
      const response = await post(encoding);
      assert.equal(response.statusCode, 415, `${encoding}: ${response.body}`);
      assert.match(JSON.parse(response.body).detail, /^Unsupported Content-Encoding '.+': send the body uncompressed or gzip-compressed$/);
    }
    assert.equal((await post('identity')).statusCode, 200);
    assert.equal((await ingest(ctx.service, pattern, { b: 2 })).statusCode, 200);
  });

  test('routes that take no body refuse one; an empty body or {} is fine', async () => {
    const rule = await createRule(admin, { yaml_content: sigma() });
    assert.equal((await admin.post(`/api/rules/${rule.id}/deploy`, { index_pattern: 'bodies' })).statusCode, 400);
    assert.equal((await admin.get(`/api/rules/${rule.id}`)).data.status, 'undeployed', 'a refused deploy changes nothing');
    for (const url of [`/api/rules/${rule.id}/deploy`, `/api/rules/${rule.id}/undeploy`, `/api/index_patterns/${pattern.id}/rotate_token`]) {
      const refused = await admin.post(url, { x: 1 });
      assertError(refused, 400, 'Invalid request');
      assert.deepEqual(refused.data.errors, [{ field: 'body', message: 'this request takes no body' }]);
      assert.equal((await admin.post(url, [])).statusCode, 400, `${url} []`);
      assert.equal((await admin.post(url, {})).statusCode, 200, `${url} {}`);
      assert.equal((await admin.post(url)).statusCode, 200, `${url} without a body`);
      assert.equal((await admin.post(url, '', { 'content-type': 'application/json' })).statusCode, 200, `${url} empty JSON body`);
    }
  });
});

// Index patterns: CRUD (admin writes, analysts and viewers read), the one-time ingest token and its
// rotation, percolator_index, 409/400/404 errors, the field-mapping presets, DELETE refused while in use.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { anonymous, describeEachDatabase, loginAdmin, type Client } from '../helpers/service.js';
import { NIL_UUID, assertError, createPattern, createRule, ingest, sigma, userAs } from '../rules/fixtures.js';

const PATTERN_FIELDS = [
  'created_at', 'default_mapping', 'description', 'entity_fields', 'field_mappings', 'id', 'ingest_token_prefix', 'is_default', 'name',
  'percolator_index', 'preset', 'retention_days', 'timestamp_field', 'updated_at', 'placeholders', 'logsource_scope',
].sort();

describeEachDatabase('index patterns', (ctx) => {
  let admin: Client;
  let analyst: Client;
  let viewer: Client;

  before(async () => {
    admin = await loginAdmin(ctx.service);
    analyst = await userAs(admin, 'analyst', 'ian');
    viewer = await userAs(admin, 'viewer', 'ivy');
  });

  test('create: 201 with defaults, percolator_index and a one-time svc_it_ token', async () => {
    const response = await admin.post('/api/index_patterns', { name: 'web-logs' });
    assert.equal(response.statusCode, 201, response.body);
    const p = response.data;
    assert.deepEqual(Object.keys(p).sort(), [...PATTERN_FIELDS, 'ingest_token'].sort());
    assert.equal(p.name, 'web-logs');
    assert.equal(p.description, '');
    assert.equal(p.timestamp_field, '@timestamp');
    assert.equal(p.default_mapping, 'identity');
    assert.deepEqual(p.field_mappings, []);
    assert.equal(p.preset, null);
    assert.equal(p.is_default, false);
    assert.equal(p.retention_days, 7);
    assert.equal(p.percolator_index, 'svc-percolator-web-logs');
    assert.match(p.ingest_token, /^svc_it_[0-9A-Za-z]{32,}$/);
    assert.ok(p.ingest_token.startsWith(p.ingest_token_prefix));
    for (const key of ['source_ip', 'user', 'host']) assert.ok(Array.isArray(p.entity_fields[key]) && p.entity_fields[key].length > 0, key);

    for (const reader of [admin, analyst, viewer]) {
      const read = await reader.get(`/api/index_patterns/${p.id}`);
      assert.equal(read.statusCode, 200, read.body);
      assert.deepEqual(Object.keys(read.data).sort(), PATTERN_FIELDS);
      assert.equal(read.data.ingest_token, undefined);
      assert.ok(!read.body.includes(p.ingest_token), 'the token is never shown again');
    }
    const list = await viewer.get('/api/index_patterns');
    assert.equal(list.statusCode, 200, list.body);
    assert.ok(list.data.items.some((x: { id: string }) => x.id === p.id));
    assert.ok(!list.body.includes(p.ingest_token));
    const stored = await ctx.service.db.query<{ ingest_token_hash: string }>('SELECT ingest_token_hash FROM index_patterns WHERE id = $1', [p.id]);
    assert.notEqual(stored[0].ingest_token_hash, p.ingest_token, 'only a hash is stored');
  });

  test('create with every field; is_default moves the default', async () => {
    const first = await createPattern(admin, { name: 'first-default', is_default: true });
    const p = await createPattern(admin, {
      name: 'sysmon.v2_x',
      description: 'Sysmon via Winlogbeat',
      timestamp_field: 'event.created',
      default_mapping: 'none',
      field_mappings: [{ sigma_field: 'Image', target_field: 'process.executable' }],
      preset: 'ecs-windows',
      is_default: true,
      retention_days: 30,
      entity_fields: { user: ['user.name'] },
    });
    assert.equal(p.description, 'Sysmon via Winlogbeat');
    assert.equal(p.timestamp_field, 'event.created');
    assert.equal(p.default_mapping, 'none');
    assert.deepEqual(p.field_mappings, [{ sigma_field: 'Image', target_field: 'process.executable' }]);
    assert.equal(p.preset, 'ecs-windows');
    assert.equal(p.is_default, true);
    assert.equal(p.retention_days, 30);
    assert.deepEqual((p.entity_fields as { user: string[] }).user, ['user.name']);
    assert.equal((await viewer.get(`/api/index_patterns/${first.id}`)).data.is_default, false);
  });

  test('duplicate name is 409; bad names, unknown presets and bad fields are 400', async () => {
    await createPattern(admin, { name: 'dup' });
    assert.equal((await admin.post('/api/index_patterns', { name: 'dup' })).statusCode, 409);
    for (const name of ['', 'Upper', 'has space', '../etc', '-lead', 'a/b', 'x'.repeat(101), 'ümlaut']) {
      const response = await admin.post('/api/index_patterns', { name });
      assert.equal(response.statusCode, 400, `${JSON.stringify(name)}: ${response.body}`);
    }
    assert.equal((await admin.post('/api/index_patterns', { name: 'preset-x', preset: 'no-such-preset' })).statusCode, 400);
    assert.equal((await admin.post('/api/index_patterns', { name: 'bad-map', default_mapping: 'prefix' })).statusCode, 400);
    assert.equal((await admin.post('/api/index_patterns', { name: 'bad-ret', retention_days: 0 })).statusCode, 400);
    assert.equal((await admin.post('/api/index_patterns', { name: 'bad-fm', field_mappings: [{ sigma_field: 'Image' }] })).statusCode, 400);
    assert.equal((await admin.post('/api/index_patterns', { name: 'bad-extra', colour: 'blue' })).statusCode, 400);
    assert.equal((await admin.get('/api/index_patterns?search=preset-x')).data.total, 0);
  });

  test('writes are admin only: analysts and viewers 403, anonymous 401', async () => {
    const p = await createPattern(admin, { name: 'guarded' });
    for (const client of [analyst, viewer]) {
      assertError(await client.post('/api/index_patterns', { name: 'not-mine' }), 403, 'Not enough permissions');
      assertError(await client.patch(`/api/index_patterns/${p.id}`, { description: 'x' }), 403, 'Not enough permissions');
      assertError(await client.delete(`/api/index_patterns/${p.id}`), 403, 'Not enough permissions');
      assertError(await client.post(`/api/index_patterns/${p.id}/rotate_token`), 403, 'Not enough permissions');
    }
    assertError(await anonymous(ctx.service).get('/api/index_patterns'), 401, 'Could not validate credentials');
    assertError(await anonymous(ctx.service).get('/api/field_mapping_presets'), 401, 'Could not validate credentials');
  });

  test('PATCH changes the named fields; unknown and non-UUID ids are 404; empty body 400', async () => {
    const p = await createPattern(admin, { name: 'patch-me' });
    const response = await admin.patch(`/api/index_patterns/${p.id}`, { description: 'changed', retention_days: 14 });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.data.description, 'changed');
    assert.equal(response.data.retention_days, 14);
    assert.equal(response.data.name, 'patch-me');
    assert.equal((await admin.patch(`/api/index_patterns/${p.id}`, {})).statusCode, 400);
    assert.equal((await admin.patch(`/api/index_patterns/${p.id}`, { name: 'renamed' })).statusCode, 400);
    assert.equal((await admin.patch(`/api/index_patterns/${p.id}`, { preset: 'nope' })).statusCode, 400);
    assert.equal((await admin.patch(`/api/index_patterns/${NIL_UUID}`, { description: 'x' })).statusCode, 404);
    assert.equal((await admin.get(`/api/index_patterns/${NIL_UUID}`)).statusCode, 404);
    assert.equal((await admin.get('/api/index_patterns/not-a-uuid')).statusCode, 404);
    assert.equal((await admin.delete(`/api/index_patterns/${NIL_UUID}`)).statusCode, 404);
  });

  test('token rotation: the old token is 401 on ingest at once, the new one works', async () => {
    const p = await createPattern(admin, { name: 'rotating' });
    assert.equal((await ingest(ctx.service, p, { msg: 'before' })).statusCode, 200);
    const rotated = await admin.post(`/api/index_patterns/${p.id}/rotate_token`);
    assert.equal(rotated.statusCode, 200, rotated.body);
    assert.match(rotated.data.ingest_token, /^svc_it_[0-9A-Za-z]{32,}$/);
    assert.notEqual(rotated.data.ingest_token, p.ingest_token);
    assertError(await ingest(ctx.service, p, { msg: 'old token' }), 401, 'Could not validate credentials');
    const fresh = await ingest(ctx.service, { name: p.name, ingest_token: rotated.data.ingest_token }, { msg: 'new token' });
    assert.equal(fresh.statusCode, 200, fresh.body);
    assert.equal((await admin.post(`/api/index_patterns/${NIL_UUID}/rotate_token`)).statusCode, 404);
  });

  test('GET /api/field_mapping_presets lists the engine presets in the list envelope', async () => {
    const response = await viewer.get('/api/field_mapping_presets?page_size=100');
    assert.equal(response.statusCode, 200, response.body);
    const { items, total, page, page_size, pages } = response.data;
    assert.deepEqual([total, page, page_size, pages], [items.length, 1, 100, 1]);
    const names = items.map((p: { name: string }) => p.name);
    for (const name of ['sigma-native', 'windows-thor', 'ecs-windows', 'winlogbeat-raw']) assert.ok(names.includes(name), `${name} in ${names}`);
    assert.deepEqual(names, [...names].sort(), 'sorted by name');
    for (const preset of items) {
      assert.equal(typeof preset.description, 'string');
      assert.ok(Array.isArray(preset.field_mappings));
      assert.ok(Array.isArray(preset.scoped_field_mappings));
    }
    const ecs = items.find((p: { name: string }) => p.name === 'ecs-windows');
    const processCreation = ecs.scoped_field_mappings.find((m: { logsource: { category?: string } }) => m.logsource.category === 'process_creation');
    assert.deepEqual(processCreation.logsource, { category: 'process_creation', product: 'windows' });
    assert.ok(processCreation.field_mappings.some((m: { sigma_field: string; target_field: string }) => m.sigma_field === 'CommandLine' && m.target_field === 'process.command_line'));

    // Paging, order and search as every list has them.
    const second = (await viewer.get('/api/field_mapping_presets?page=2&page_size=2&sort_order=desc')).data;
    assert.deepEqual([second.total, second.page, second.page_size, second.pages], [total, 2, 2, Math.ceil(total / 2)]);
    assert.deepEqual(second.items.map((p: { name: string }) => p.name), [...names].reverse().slice(2, 4));
    const winlogbeat = (await viewer.get('/api/field_mapping_presets?search=WINLOGBEAT%208')).data;
    assert.deepEqual(winlogbeat.items.map((p: { name: string }) => p.name), ['winlogbeat-raw']);
    assert.equal((await viewer.get('/api/field_mapping_presets')).data.page_size, 20);
    assertError(await viewer.get('/api/field_mapping_presets?page_size=101'), 400, 'Invalid request');
    assertError(await viewer.get('/api/field_mapping_presets?sort_by=created_at'), 400, 'Invalid request');
  });

  test('DELETE is refused with 409 while rules use the pattern; 204 once they are gone', async () => {
    const p = await createPattern(admin, { name: 'in-use' });
    const rule = await createRule(admin, { yaml_content: sigma(), index_pattern: 'in-use', deploy: true });
    const refused = await admin.delete(`/api/index_patterns/${p.id}`);
    assert.equal(refused.statusCode, 409, refused.body);
    assert.equal((await viewer.get(`/api/index_patterns/${p.id}`)).statusCode, 200);
    assert.equal((await admin.delete(`/api/rules/${rule.id}`)).statusCode, 204);
    const removed = await admin.delete(`/api/index_patterns/${p.id}`);
    assert.equal(removed.statusCode, 204, removed.body);
    assert.equal((await viewer.get(`/api/index_patterns/${p.id}`)).statusCode, 404);
    assertError(await ingest(ctx.service, p, { msg: 'gone' }), 401, 'Could not validate credentials');
  });

  test('list: pagination and search over names', async () => {
    const response = await viewer.get('/api/index_patterns?page_size=2&sort_by=name&sort_order=asc');
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.data.items.length, 2);
    assert.equal(response.data.pages, Math.ceil(response.data.total / 2));
    const names = response.data.items.map((p: { name: string }) => p.name);
    assert.deepEqual(names, [...names].sort());
    assert.equal((await viewer.get('/api/index_patterns?page_size=101')).statusCode, 400);
  });
});

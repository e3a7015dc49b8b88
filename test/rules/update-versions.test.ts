// PUT /api/rules/{id} (partial, versioned), version history newest first, GET …/versions/{n}, rollback,
// and the redeploy of a deployed rule on update (stored query follows; a failed redeploy changes nothing).
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase, type Client } from '../helpers/service.js';
import { NIL_UUID, assertError, backendOf, createPattern, createRule, equalsRule, sigma, whileBackendOffline, type CreatedPattern, setUpTeam } from './fixtures.js';

describeEachDatabase('rule update and versions', (ctx) => {
  let admin: Client;
  let analyst: Client;
  let viewer: Client;
  let pattern: CreatedPattern;

  before(async () => {
    ({ admin, analyst, viewer, pattern } = await setUpTeam(ctx.service, 'anna', 'vic', { name: 'hosts', is_default: true }));
  });

  test('a partial PUT changes only what it names and bumps the version', async () => {
    const rule = await createRule(admin, { yaml_content: sigma({ tags: ['attack.t1033'] }) });
    const response = await analyst.put(`/api/rules/${rule.id}`, { title: 'Renamed', change_reason: 'clearer name' });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.data.title, 'Renamed');
    assert.equal(response.data.version, 2);
    assert.equal(response.data.yaml_content, rule.yaml_content);
    assert.equal(response.data.created_by, 'admin');
    assert.equal(response.data.created_at, rule.created_at);
    assert.ok(response.data.updated_at >= rule.updated_at);
    assert.deepEqual(response.data.tags, ['attack.t1033']);

    const yaml = sigma({ level: 'critical', tags: ['attack.execution'] });
    const changed = await analyst.put(`/api/rules/${rule.id}`, { yaml_content: yaml });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.equal(changed.data.version, 3);
    assert.equal(changed.data.severity, 'critical');
    assert.deepEqual(changed.data.tags, ['attack.execution']);
    assert.equal(changed.data.yaml_content, yaml);
    assert.deepEqual((await viewer.get(`/api/rules/${rule.id}`)).data, changed.data);
  });

  test('a title given at creation survives a YAML change; a YAML-derived title follows the YAML', async () => {
    const overridden = await createRule(admin, { yaml_content: sigma({ title: 'Yaml title' }), title: 'Chosen title' });
    const changed = await analyst.put(`/api/rules/${overridden.id}`, { yaml_content: sigma({ title: 'Yaml title v2', level: 'low' }) });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.equal(changed.data.title, 'Chosen title');
    const derived = await createRule(admin, { yaml_content: sigma({ title: 'Derived' }) });
    const followed = await analyst.put(`/api/rules/${derived.id}`, { yaml_content: sigma({ title: 'Derived v2' }) });
    assert.equal(followed.data.title, 'Derived v2');
  });

  test('unbinding a deployed rule from its pattern is 400 and changes nothing', async () => {
    const rule = await createRule(analyst, { yaml_content: equalsRule('Bound', 'Image', 'bound.exe'), deploy: true });
    assertError(await analyst.put(`/api/rules/${rule.id}`, { index_pattern: null }), 400, 'Validation failed: no index pattern configured');
    assert.deepEqual((await viewer.get(`/api/rules/${rule.id}`)).data, rule);
  });

  test('a PUT that changes nothing keeps the version and adds no history', async () => {
    const rule = await createRule(admin, { yaml_content: sigma(), title: 'Stable' });
    for (const body of [{}, { title: 'Stable' }, { yaml_content: rule.yaml_content, title: 'Stable' }, { change_reason: 'nothing really' }, { index_pattern: 'hosts' }]) {
      const response = await analyst.put(`/api/rules/${rule.id}`, body);
      assert.equal(response.statusCode, 200, `${JSON.stringify(body)}: ${response.body}`);
      assert.equal(response.data.version, 1, JSON.stringify(body));
    }
    const versions = await viewer.get(`/api/rules/${rule.id}/versions`);
    assert.equal(versions.data.items.length, 1);
  });

  test('PUT validates like POST: 400 YAML, 422 schema, 422 unknown pattern; nothing changes', async () => {
    const rule = await createRule(admin, { yaml_content: sigma() });
    assertError(await analyst.put(`/api/rules/${rule.id}`, { yaml_content: 'title: [oops' }), 400, /^Invalid YAML syntax: /);
    const missing = await analyst.put(`/api/rules/${rule.id}`, { yaml_content: sigma().replace(/^level: .*$/m, '') });
    assertError(missing, 422, 'Validation failed');
    assert.ok(missing.data.errors.some((e: { field: string }) => e.field === 'level'), missing.body);
    assertError(await analyst.put(`/api/rules/${rule.id}`, { index_pattern: 'nope' }), 422, 'Validation failed');
    assert.equal((await analyst.put(`/api/rules/${rule.id}`, { title: '' })).statusCode, 400);
    assert.equal((await analyst.put(`/api/rules/${rule.id}`, { colour: 'red' })).statusCode, 400);
    const after = await viewer.get(`/api/rules/${rule.id}`);
    assert.deepEqual(after.data, rule);
  });

  test('version history: newest first with changed_by, changed_at, change_reason; one version by number', async () => {
    const rule = await createRule(admin, { yaml_content: sigma({ title: 'History v1' }) });
    await analyst.put(`/api/rules/${rule.id}`, { title: 'History v2', change_reason: 'rename' });
    await admin.put(`/api/rules/${rule.id}`, { yaml_content: sigma({ title: 'History v3', level: 'low' }), title: 'History v3', change_reason: 'tune' });
    const response = await viewer.get(`/api/rules/${rule.id}/versions`);
    assert.equal(response.statusCode, 200, response.body);
    const versions = response.data.items;
    assert.deepEqual({ ...response.data, items: undefined }, { items: undefined, total: 3, page: 1, page_size: 20, pages: 1 });
    assert.deepEqual(versions.map((v: { version: number }) => v.version), [3, 2, 1]);
    for (const v of versions) assert.deepEqual(Object.keys(v).sort(), ['change_reason', 'changed_at', 'changed_by', 'title', 'version', 'yaml_content']);
    assert.deepEqual(versions.map((v: { changed_by: string }) => v.changed_by), ['admin', 'anna', 'admin']);
    assert.deepEqual(versions.map((v: { title: string }) => v.title), ['History v3', 'History v2', 'History v1']);
    assert.equal(versions[0].change_reason, 'tune');
    assert.equal(versions[1].change_reason, 'rename');
    assert.equal(versions[2].yaml_content, rule.yaml_content);
    assert.ok(versions[0].changed_at >= versions[1].changed_at && versions[1].changed_at >= versions[2].changed_at);

    const one = await viewer.get(`/api/rules/${rule.id}/versions/2`);
    assert.equal(one.statusCode, 200, one.body);
    assert.deepEqual(one.data, versions[1]);
    assert.equal((await viewer.get(`/api/rules/${rule.id}/versions/9`)).statusCode, 404);
    assert.equal((await viewer.get(`/api/rules/${rule.id}/versions/zero`)).statusCode, 404);
    assertError(await viewer.get(`/api/rules/${NIL_UUID}/versions`), 404, 'Rule not found');
    assertError(await viewer.get('/api/rules/not-a-uuid/versions'), 404, 'Rule not found');
    assertError(await viewer.get('/api/rules/not-a-uuid/versions/1'), 404, 'Rule not found');
    assertError(await viewer.get(`/api/rules/${NIL_UUID}/versions/1`), 404, 'Rule not found');
    assertError(await viewer.get(`/api/rules/${rule.id}/versions/9`), 404, 'Version not found');
  });

  test('rollback makes a new version with the old content; a missing version is 404', async () => {
    const rule = await createRule(admin, { yaml_content: sigma({ title: 'Roll v1', level: 'low' }) });
    await analyst.put(`/api/rules/${rule.id}`, { yaml_content: sigma({ title: 'Roll v2', level: 'critical' }) });
    const rolled = await analyst.post(`/api/rules/${rule.id}/rollback`, { version: 1 });
    assert.equal(rolled.statusCode, 200, rolled.body);
    assert.equal(rolled.data.version, 3);
    assert.equal(rolled.data.title, 'Roll v1');
    assert.equal(rolled.data.severity, 'low');
    assert.equal(rolled.data.yaml_content, rule.yaml_content);
    const versions = (await viewer.get(`/api/rules/${rule.id}/versions`)).data.items;
    assert.deepEqual(versions.map((v: { version: number }) => v.version), [3, 2, 1]);
    assert.equal(versions[0].changed_by, 'anna');
    assert.equal(versions[0].yaml_content, rule.yaml_content);

    const missing = await analyst.post(`/api/rules/${rule.id}/rollback`, { version: 42 });
    assert.equal(missing.statusCode, 404, missing.body);
    assert.equal((await viewer.get(`/api/rules/${rule.id}`)).data.version, 3);
    assertError(await analyst.post(`/api/rules/${NIL_UUID}/rollback`, { version: 1 }), 404, 'Rule not found');
    assert.equal((await analyst.post(`/api/rules/${rule.id}/rollback`, { version: 'one' })).statusCode, 400);
    assertError(await viewer.post(`/api/rules/${rule.id}/rollback`, { version: 1 }), 403, 'Not enough permissions');
  });

  test('PUT on a deployed rule redeploys: the stored query follows the new content', async () => {
    const rule = await createRule(analyst, { yaml_content: equalsRule('Redeploy me', 'Image', 'calc.exe'), deploy: true });
    const backend = backendOf(ctx.service);
    assert.deepEqual(await backend.percolate(pattern.percolator_index, [{ Image: 'calc.exe' }, { Image: 'mspaint.exe' }]).then((h) => h.map((ids) => ids.includes(rule.id))), [true, false]);
    const response = await analyst.put(`/api/rules/${rule.id}`, { yaml_content: equalsRule('Redeploy me', 'Image', 'mspaint.exe') });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.data.status, 'deployed');
    assert.equal(response.data.version, 2);
    assert.equal(response.data.deployed_version, 2);
    const hits = await backend.percolate(pattern.percolator_index, [{ Image: 'calc.exe' }, { Image: 'mspaint.exe' }]);
    assert.deepEqual(hits.map((ids) => ids.includes(response.data.percolator_id)), [false, true]);
  });

  test('a PUT whose redeploy fails changes nothing: backend offline → 503, rule and stored query as before', async () => {
    const rule = await createRule(analyst, { yaml_content: equalsRule('Keep me', 'Image', 'keep.exe'), deploy: true });
    const response = await whileBackendOffline(ctx.service, () => analyst.put(`/api/rules/${rule.id}`, { yaml_content: equalsRule('Keep me', 'Image', 'other.exe'), title: 'Changed' }));
    assertError(response, 503, 'Search backend connection failed');
    const after = await viewer.get(`/api/rules/${rule.id}`);
    assert.deepEqual(after.data, rule);
    assert.equal((await viewer.get(`/api/rules/${rule.id}/versions`)).data.items.length, 1);
    const hits = await backendOf(ctx.service).percolate(pattern.percolator_index, [{ Image: 'keep.exe' }, { Image: 'other.exe' }]);
    assert.deepEqual(hits.map((ids) => ids.includes(rule.id)), [true, false]);
  });

  test('moving a deployed rule to a pattern that cannot take it fails and changes nothing', async () => {
    await createPattern(admin, { name: 'mapped-only', default_mapping: 'none', field_mappings: [{ sigma_field: 'User', target_field: 'user.name' }] });
    const rule = await createRule(analyst, { yaml_content: equalsRule('Stay home', 'Image', 'home.exe'), deploy: true });
    const response = await analyst.put(`/api/rules/${rule.id}`, { index_pattern: 'mapped-only' });
    assert.ok(response.statusCode === 422 || response.statusCode === 400, response.body);
    assert.match(response.data.detail, /^Validation failed/);
    assert.deepEqual((await viewer.get(`/api/rules/${rule.id}`)).data, rule);
    assert.ok(await backendOf(ctx.service).hasStoredQuery(pattern.percolator_index, rule.percolator_id));
  });

  test('moving a deployed rule to another pattern moves its stored query', async () => {
    const other = await createPattern(admin, { name: 'elsewhere' });
    const rule = await createRule(analyst, { yaml_content: equalsRule('Mover', 'Image', 'move.exe'), deploy: true });
    const response = await analyst.put(`/api/rules/${rule.id}`, { index_pattern: 'elsewhere' });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.data.index_pattern, 'elsewhere');
    assert.equal(response.data.status, 'deployed');
    const backend = backendOf(ctx.service);
    assert.equal(await backend.hasStoredQuery(pattern.percolator_index, rule.percolator_id), false);
    assert.ok(await backend.hasStoredQuery(other.percolator_index, response.data.percolator_id));
    const [hits] = await backend.percolate(other.percolator_index, [{ Image: 'move.exe' }]);
    assert.ok(hits.includes(response.data.percolator_id));
  });

  test('concurrent PUTs never lose a version or fail with a server error', async () => {
    const rule = await createRule(analyst, { yaml_content: equalsRule('Busy', 'Image', 'busy.exe'), deploy: true });
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) => analyst.put(`/api/rules/${rule.id}`, { yaml_content: equalsRule('Busy', 'Image', `busy-${i}.exe`) })),
    );
    for (const r of responses) assert.equal(r.statusCode, 200, r.body);
    const after = (await viewer.get(`/api/rules/${rule.id}`)).data;
    assert.equal(after.version, 7);
    assert.equal(after.deployed_version, 7);
    const versions = (await viewer.get(`/api/rules/${rule.id}/versions`)).data.items;
    assert.deepEqual(versions.map((v: { version: number }) => v.version), [7, 6, 5, 4, 3, 2, 1]);
    assert.equal(versions[0].yaml_content, after.yaml_content);
    const value = /'(busy-\d\.exe)'/.exec(after.yaml_content)![1];
    const [hits] = await backendOf(ctx.service).percolate(pattern.percolator_index, [{ Image: value }]);
    assert.ok(hits.includes(rule.id), 'the stored query holds the latest version');
  });

  test('PUT needs analyst; unknown and non-UUID ids are 404 Rule not found', async () => {
    const rule = await createRule(admin, { yaml_content: sigma() });
    assertError(await viewer.put(`/api/rules/${rule.id}`, { title: 'x' }), 403, 'Not enough permissions');
    assertError(await analyst.put(`/api/rules/${NIL_UUID}`, { title: 'x' }), 404, 'Rule not found');
    assertError(await analyst.put('/api/rules/123', { title: 'x' }), 404, 'Rule not found');
  });
});

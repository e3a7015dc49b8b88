// Deploy, redeploy, undeploy and delete of single rules: response shapes, the stored query in
// svc-percolator-{pattern} (exists, matches, gone), prerequisites (400/503), roles and unknown ids.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { anonymous, describeEachDatabase, loginAdmin, startService, type Client } from '../helpers/service.js';
import {
  NIL_UUID,
  SYSTEM_WHOAMI_EVENT,
  WHOAMI_EVENT,
  assertError,
  backendOf,
  countRows,
  createPattern,
  createRule,
  equalsRule,
  sigma,
  whileBackendOffline,
  type CreatedPattern,
  setUpTeam,
} from './fixtures.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describeEachDatabase('rule deploy, undeploy and delete', (ctx) => {
  let admin: Client;
  let analyst: Client;
  let viewer: Client;
  let pattern: CreatedPattern;

  before(async () => {
    ({ admin, analyst, viewer, pattern } = await setUpTeam(ctx.service, 'dana', 'wes', { name: 'endpoint', is_default: true }));
  });

  test('deploy answers {id, title, status, deployed_at, percolator_id}; the stored query exists and matches', async () => {
    const rule = await createRule(analyst, { yaml_content: sigma(), title: 'Deploy shape' });
    const response = await analyst.post(`/api/rules/${rule.id}/deploy`);
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(Object.keys(response.data).sort(), ['deployed_at', 'id', 'percolator_id', 'status', 'title']);
    assert.equal(response.data.id, rule.id);
    assert.equal(response.data.title, 'Deploy shape');
    assert.equal(response.data.status, 'deployed');
    assert.match(response.data.deployed_at, ISO);
    const percolatorId = response.data.percolator_id;
    const backend = backendOf(ctx.service);
    assert.ok(await backend.hasStoredQuery('svc-percolator-endpoint', percolatorId));
    const hits = await backend.percolate('svc-percolator-endpoint', [WHOAMI_EVENT, SYSTEM_WHOAMI_EVENT, { Image: 'C:\\notepad.exe' }]);
    assert.deepEqual(hits.map((ids) => ids.includes(percolatorId)), [true, false, false]);

    const read = (await viewer.get(`/api/rules/${rule.id}`)).data;
    assert.equal(read.status, 'deployed');
    assert.equal(read.deployed_at, response.data.deployed_at);
    assert.equal(read.percolator_id, percolatorId);
    assert.equal(read.deployed_version, 1);
  });

  test('deploying a deployed rule redeploys it (200, same stored query id, new deployed_at)', async () => {
    const rule = await createRule(analyst, { yaml_content: equalsRule('Twice', 'Image', 'twice.exe'), deploy: true });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const again = await analyst.post(`/api/rules/${rule.id}/deploy`);
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.data.percolator_id, rule.percolator_id);
    assert.ok(again.data.deployed_at > rule.deployed_at);
    assert.equal(await countRows(ctx.service, 'stored_queries WHERE rule_id = $1 AND NOT deleted', [rule.id]), 1);
    const [hits] = await backendOf(ctx.service).percolate(pattern.percolator_index, [{ Image: 'twice.exe' }]);
    assert.deepEqual(hits.filter((id) => id === rule.percolator_id), [rule.percolator_id]);
  });

  test('undeploy answers {id, status}; detection stops; the rule is kept; undeploying again is 200', async () => {
    const rule = await createRule(analyst, { yaml_content: equalsRule('Stop me', 'Image', 'stop.exe'), deploy: true });
    const response = await analyst.post(`/api/rules/${rule.id}/undeploy`);
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.data, { id: rule.id, status: 'undeployed' });
    const backend = backendOf(ctx.service);
    assert.equal(await backend.hasStoredQuery(pattern.percolator_index, rule.percolator_id), false);
    assert.deepEqual(await backend.percolate(pattern.percolator_index, [{ Image: 'stop.exe' }]).then(([ids]) => ids.includes(rule.id)), false);
    const read = (await viewer.get(`/api/rules/${rule.id}`)).data;
    assert.equal(read.status, 'undeployed');
    assert.equal(read.deployed_at, null);
    assert.equal(read.percolator_id, null);
    assert.equal(read.version, 1);
    const again = await analyst.post(`/api/rules/${rule.id}/undeploy`);
    assert.equal(again.statusCode, 200, again.body);
    assert.deepEqual(again.data, { id: rule.id, status: 'undeployed' });
    const never = await createRule(analyst, { yaml_content: sigma() });
    assert.deepEqual((await analyst.post(`/api/rules/${never.id}/undeploy`)).data, { id: never.id, status: 'undeployed' });
  });

  test('deploy without an index pattern is 400 "Validation failed: no index pattern configured"', async () => {
    const rule = await createRule(analyst, { yaml_content: sigma(), index_pattern: null });
    assert.equal(rule.index_pattern, null);
    assertError(await analyst.post(`/api/rules/${rule.id}/deploy`), 400, 'Validation failed: no index pattern configured');
    assert.equal((await viewer.get(`/api/rules/${rule.id}`)).data.status, 'undeployed');
  });

  test('deploy with a field the pattern does not map is 400 naming the field and the pattern', async () => {
    const strict = await createPattern(admin, { name: 'strict-deploy' });
    const rule = await createRule(analyst, { yaml_content: sigma(), index_pattern: 'strict-deploy' });
    const narrowed = await admin.patch(`/api/index_patterns/${strict.id}`, {
      default_mapping: 'none',
      field_mappings: [{ sigma_field: 'User', target_field: 'user.name' }],
    });
    assert.equal(narrowed.statusCode, 200, narrowed.body);
    const response = await analyst.post(`/api/rules/${rule.id}/deploy`);
    assertError(response, 400, "Validation failed: field 'Image' is not mapped in index pattern 'strict-deploy'");
    assert.equal((await viewer.get(`/api/rules/${rule.id}`)).data.status, 'undeployed');
    assert.equal(await countRows(ctx.service, 'stored_queries WHERE rule_id = $1 AND NOT deleted', [rule.id]), 0);
  });

  test('backend offline: deploy and undeploy are 503 "Search backend connection failed"; nothing changes', async () => {
    const undeployed = await createRule(analyst, { yaml_content: sigma() });
    const deployed = await createRule(analyst, { yaml_content: sigma(), deploy: true });
    await whileBackendOffline(ctx.service, async () => {
      assertError(await analyst.post(`/api/rules/${undeployed.id}/deploy`), 503, 'Search backend connection failed');
      assertError(await analyst.post(`/api/rules/${deployed.id}/undeploy`), 503, 'Search backend connection failed');
      assertError(await analyst.post(`/api/rules/${deployed.id}/deploy`), 503, 'Search backend connection failed');
    });
    assert.deepEqual((await viewer.get(`/api/rules/${undeployed.id}`)).data, undeployed);
    assert.deepEqual((await viewer.get(`/api/rules/${deployed.id}`)).data, deployed);
    assert.ok(await backendOf(ctx.service).hasStoredQuery(pattern.percolator_index, deployed.percolator_id));
  });

  test('a service started with SEARCH_BACKEND_OFFLINE answers 503 on deploy and reports the backend unavailable', async (t) => {
    // A configuration switch, independent of the database: checked once, on the embedded database.
    if (ctx.service.kind !== 'pglite') return t.skip('checked on the pglite run');
    const offline = await startService(ctx.service.kind, { SEARCH_BACKEND_OFFLINE: 'true' });
    try {
      const offAdmin = await loginAdmin(offline);
      await createPattern(offAdmin, { name: 'offline', is_default: true });
      const rule = await createRule(offAdmin, { yaml_content: sigma() });
      assertError(await offAdmin.post(`/api/rules/${rule.id}/deploy`), 503, 'Search backend connection failed');
      assertError(await offAdmin.post('/api/rules', { yaml_content: sigma(), deploy: true }), 503, 'Search backend connection failed');
      const health = await anonymous(offline).get('/api/health');
      assert.equal(health.data.search_backend, 'unavailable');
    } finally {
      await offline.close();
    }
  });

  test('DELETE (admin) is 204: rule, versions, exceptions and stored query gone; audit entries kept', async () => {
    const rule = await createRule(analyst, { yaml_content: equalsRule('Delete me', 'Image', 'delete.exe'), deploy: true });
    assert.equal((await analyst.put(`/api/rules/${rule.id}`, { title: 'Delete me v2' })).statusCode, 200);
    const exception = await analyst.post(`/api/rules/${rule.id}/exceptions`, { field: 'User', operator: 'equals', value: 'svc' });
    assert.equal(exception.statusCode, 201, exception.body);

    const response = await admin.delete(`/api/rules/${rule.id}`);
    assert.equal(response.statusCode, 204);
    assert.equal(response.body, '');
    assertError(await viewer.get(`/api/rules/${rule.id}`), 404, 'Rule not found');
    assertError(await viewer.get(`/api/rules/${rule.id}/versions`), 404, 'Rule not found');
    assertError(await viewer.get(`/api/rules/${rule.id}/exceptions`), 404, 'Rule not found');
    assert.equal(await countRows(ctx.service, 'rule_versions WHERE rule_id = $1', [rule.id]), 0);
    assert.equal(await countRows(ctx.service, 'rule_exceptions WHERE rule_id = $1', [rule.id]), 0);
    const backend = backendOf(ctx.service);
    assert.equal(await backend.hasStoredQuery(pattern.percolator_index, rule.percolator_id), false);
    const [hits] = await backend.percolate(pattern.percolator_index, [{ Image: 'delete.exe' }]);
    assert.equal(hits.includes(rule.percolator_id), false);

    const audit = await admin.get(`/api/audit?target_id=${rule.id}&page_size=100`);
    assert.equal(audit.statusCode, 200, audit.body);
    const actions = audit.data.items.map((e: { action: string }) => e.action);
    for (const action of ['rule.create', 'rule.update', 'rule.delete']) assert.ok(actions.includes(action), `${action} in ${actions}`);
    assertError(await admin.delete(`/api/rules/${rule.id}`), 404, 'Rule not found');
  });

  test('DELETE of an undeployed rule works too', async () => {
    const rule = await createRule(analyst, { yaml_content: sigma() });
    assert.equal((await admin.delete(`/api/rules/${rule.id}`)).statusCode, 204);
    assert.equal((await viewer.get(`/api/rules/${rule.id}`)).statusCode, 404);
  });

  test('roles: analysts may undeploy but not delete (403 Admin role required); viewers cannot write', async () => {
    const rule = await createRule(analyst, { yaml_content: sigma(), deploy: true });
    assertError(await analyst.delete(`/api/rules/${rule.id}`), 403, 'Admin role required');
    assertError(await viewer.delete(`/api/rules/${rule.id}`), 403, 'Admin role required');
    assertError(await viewer.post(`/api/rules/${rule.id}/deploy`), 403, 'Not enough permissions');
    assertError(await viewer.post(`/api/rules/${rule.id}/undeploy`), 403, 'Not enough permissions');
    assertError(await viewer.put(`/api/rules/${rule.id}`, { title: 'viewer was here' }), 403, 'Not enough permissions');
    assert.equal((await viewer.get(`/api/rules/${rule.id}`)).data.status, 'deployed');
    assert.equal((await analyst.post(`/api/rules/${rule.id}/undeploy`)).statusCode, 200);
    assertError(await anonymous(ctx.service).delete(`/api/rules/${rule.id}`), 401, 'Could not validate credentials');
    assertError(await anonymous(ctx.service).post(`/api/rules/${rule.id}/deploy`), 401, 'Could not validate credentials');
  });

  test('unknown and non-UUID ids are 404 Rule not found on every single-rule operation', async () => {
    for (const id of [NIL_UUID, 'not-a-uuid', '1234']) {
      assertError(await viewer.get(`/api/rules/${id}`), 404, 'Rule not found');
      assertError(await analyst.post(`/api/rules/${id}/deploy`), 404, 'Rule not found');
      assertError(await analyst.post(`/api/rules/${id}/undeploy`), 404, 'Rule not found');
      assertError(await admin.delete(`/api/rules/${id}`), 404, 'Rule not found');
      assertError(await analyst.put(`/api/rules/${id}`, { title: 'x' }), 404, 'Rule not found');
    }
  });
});

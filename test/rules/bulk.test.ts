// Bulk rule operations: delete {deleted, failed}, deploy {deployed, failed, skipped}, undeploy
// {undeployed, failed, skipped}; entries {id, error} / {id, reason}; at most 1000 ids; roles.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describeEachDatabase, type Client } from '../helpers/service.js';
import { NIL_UUID, assertError, backendOf, createRule, equalsRule, sigma, whileBackendOffline, type CreatedPattern, setUpTeam } from './fixtures.js';

describeEachDatabase('bulk rule operations', (ctx) => {
  let admin: Client;
  let analyst: Client;
  let viewer: Client;
  let pattern: CreatedPattern;

  before(async () => {
    ({ admin, analyst, viewer, pattern } = await setUpTeam(ctx.service, 'bert', 'bea', { name: 'bulk', is_default: true }));
  });

  const statusOf = async (id: string) => (await viewer.get(`/api/rules/${id}`)).data.status as string;

  test('bulk deploy: deploys undeployed rules, skips rules deployed at their current version, reports failures', async () => {
    const fresh = await createRule(analyst, { yaml_content: equalsRule('Bulk A', 'Image', 'a.exe') });
    const current = await createRule(analyst, { yaml_content: equalsRule('Bulk B', 'Image', 'b.exe'), deploy: true });
    const unbound = await createRule(analyst, { yaml_content: equalsRule('Bulk C', 'Image', 'c.exe'), index_pattern: null });
    const response = await analyst.post('/api/rules/bulk/deploy', { ids: [fresh.id, current.id, unbound.id, NIL_UUID, 'nope'] });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(Object.keys(response.data).sort(), ['deployed', 'failed', 'skipped']);
    assert.equal(response.data.deployed, 1);
    assert.equal(response.data.skipped.length, 1);
    assert.equal(response.data.skipped[0].id, current.id);
    assert.equal(typeof response.data.skipped[0].reason, 'string');
    assert.deepEqual(Object.keys(response.data.skipped[0]).sort(), ['id', 'reason']);
    const failed = Object.fromEntries(response.data.failed.map((f: { id: string; error: string }) => [f.id, f.error]));
    assert.deepEqual(Object.keys(failed).sort(), [NIL_UUID, 'nope', unbound.id].sort());
    for (const f of response.data.failed) assert.deepEqual(Object.keys(f).sort(), ['error', 'id']);
    assert.equal(failed[unbound.id], 'Validation failed: no index pattern configured');
    assert.equal(failed[NIL_UUID], 'Rule not found');
    assert.equal(failed.nope, 'Rule not found');
    assert.equal(await statusOf(fresh.id), 'deployed');
    assert.equal(await statusOf(unbound.id), 'undeployed');
    const hits = await backendOf(ctx.service).percolate(pattern.percolator_index, [{ Image: 'a.exe' }, { Image: 'b.exe' }]);
    assert.deepEqual(hits.map((ids) => ids.length), [1, 1]);
  });

  test('bulk deploy after an undeployed change ships the current version; a second run skips it', async () => {
    const rule = await createRule(analyst, { yaml_content: equalsRule('Stale', 'Image', 'stale.exe'), deploy: true });
    await analyst.post(`/api/rules/${rule.id}/undeploy`);
    await analyst.put(`/api/rules/${rule.id}`, { yaml_content: equalsRule('Stale', 'Image', 'fresh.exe') });
    const response = await analyst.post('/api/rules/bulk/deploy', { ids: [rule.id] });
    assert.deepEqual(response.data, { deployed: 1, failed: [], skipped: [] });
    const again = await analyst.post('/api/rules/bulk/deploy', { ids: [rule.id] });
    assert.equal(again.data.deployed, 0);
    assert.deepEqual(again.data.skipped.map((s: { id: string }) => s.id), [rule.id]);
    const [hits] = await backendOf(ctx.service).percolate(pattern.percolator_index, [{ Image: 'fresh.exe' }]);
    assert.ok(hits.includes(rule.id));
  });

  test('bulk deploy with the backend offline reports each rule as failed', async () => {
    const rule = await createRule(analyst, { yaml_content: sigma() });
    const response = await whileBackendOffline(ctx.service, () => analyst.post('/api/rules/bulk/deploy', { ids: [rule.id] }));
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.data, { deployed: 0, failed: [{ id: rule.id, error: 'Search backend connection failed' }], skipped: [] });
    assert.equal(await statusOf(rule.id), 'undeployed');
  });

  test('bulk undeploy: {undeployed, failed, skipped}; rules not deployed are skipped', async () => {
    const a = await createRule(analyst, { yaml_content: equalsRule('Off A', 'Image', 'off-a.exe'), deploy: true });
    const b = await createRule(analyst, { yaml_content: equalsRule('Off B', 'Image', 'off-b.exe') });
    const response = await analyst.post('/api/rules/bulk/undeploy', { ids: [a.id, b.id, NIL_UUID] });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.data.undeployed, 1);
    assert.deepEqual(response.data.skipped.map((s: { id: string }) => s.id), [b.id]);
    assert.deepEqual(response.data.failed, [{ id: NIL_UUID, error: 'Rule not found' }]);
    assert.equal(await statusOf(a.id), 'undeployed');
    assert.equal(await backendOf(ctx.service).hasStoredQuery(pattern.percolator_index, a.percolator_id), false);
  });

  test('bulk delete (admin): {deleted, failed}; stored queries go with the rules', async () => {
    const a = await createRule(analyst, { yaml_content: equalsRule('Del A', 'Image', 'del-a.exe'), deploy: true });
    const b = await createRule(analyst, { yaml_content: equalsRule('Del B', 'Image', 'del-b.exe') });
    const response = await admin.post('/api/rules/bulk/delete', { ids: [a.id, b.id, NIL_UUID, 'x'] });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(Object.keys(response.data).sort(), ['deleted', 'failed']);
    assert.equal(response.data.deleted, 2);
    assert.deepEqual(
      [...response.data.failed].sort((p: { id: string }, q: { id: string }) => p.id.localeCompare(q.id)),
      [{ id: NIL_UUID, error: 'Rule not found' }, { id: 'x', error: 'Rule not found' }],
    );
    assert.equal((await viewer.get(`/api/rules/${a.id}`)).statusCode, 404);
    assert.equal((await viewer.get(`/api/rules/${b.id}`)).statusCode, 404);
    assert.equal(await backendOf(ctx.service).hasStoredQuery(pattern.percolator_index, a.percolator_id), false);
  });

  test('roles: bulk delete is admin only (403 Admin role required); viewers cannot bulk deploy or undeploy', async () => {
    const rule = await createRule(analyst, { yaml_content: sigma() });
    assertError(await analyst.post('/api/rules/bulk/delete', { ids: [rule.id] }), 403, 'Admin role required');
    assertError(await viewer.post('/api/rules/bulk/deploy', { ids: [rule.id] }), 403, 'Not enough permissions');
    assertError(await viewer.post('/api/rules/bulk/undeploy', { ids: [rule.id] }), 403, 'Not enough permissions');
    assert.equal(await statusOf(rule.id), 'undeployed');
  });

  test('1000 ids are accepted, 1001 are 400; empty or malformed bodies are 400', async () => {
    // Ids that are not UUIDs fail without touching the database, which keeps this check fast.
    const thousand = Array.from({ length: 1000 }, (_, i) => `not-a-rule-${i}`);
    const ok = await analyst.post('/api/rules/bulk/undeploy', { ids: thousand });
    assert.equal(ok.statusCode, 200, ok.body.slice(0, 300));
    assert.equal(ok.data.failed.length, 1000);
    assert.deepEqual(ok.data.failed[0], { id: 'not-a-rule-0', error: 'Rule not found' });
    const tooMany = [...Array.from({ length: 1000 }, () => randomUUID()), randomUUID()];
    for (const [client, path] of [[admin, 'delete'], [analyst, 'deploy'], [analyst, 'undeploy']] as const) {
      const response = await client.post(`/api/rules/bulk/${path}`, { ids: tooMany });
      assert.equal(response.statusCode, 400, `${path}: ${response.body.slice(0, 300)}`);
      assert.ok(Array.isArray(response.data.errors), response.body.slice(0, 300));
      assert.equal((await client.post(`/api/rules/bulk/${path}`, {})).statusCode, 400);
      assert.equal((await client.post(`/api/rules/bulk/${path}`, { ids: 'all' })).statusCode, 400);
    }
  });
});

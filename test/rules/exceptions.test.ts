// Rule exceptions: CRUD (201, 409 duplicate, 404s, 400 bad regex/cidr/value) and their effect at once on
// POST /api/rules/{id}/test (`excepted`), every operator, enable/disable flipping it.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase, loginAdmin, type Client } from '../helpers/service.js';
import { NIL_UUID, assertError, createPattern, createRule, sigma, userAs } from './fixtures.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describeEachDatabase('rule exceptions', (ctx) => {
  let admin: Client;
  let analyst: Client;
  let viewer: Client;
  let ruleId: string;

  before(async () => {
    admin = await loginAdmin(ctx.service);
    analyst = await userAs(admin, 'analyst', 'erin');
    viewer = await userAs(admin, 'viewer', 'eve');
    await createPattern(admin, { name: 'exc', is_default: true });
    ruleId = (await createRule(analyst, { yaml_content: sigma(), deploy: true })).id;
  });

  const testEvent = async (id: string, sample_log: object) => {
    const response = await analyst.post(`/api/rules/${id}/test`, { sample_log });
    assert.equal(response.statusCode, 200, response.body);
    return response.data as { matches: boolean; excepted: boolean };
  };

  test('create answers 201 with the exception record; list shows it; viewers read, cannot write', async () => {
    const response = await analyst.post(`/api/rules/${ruleId}/exceptions`, { field: 'host.name', operator: 'equals', value: 'build-01', reason: 'build server' });
    assert.equal(response.statusCode, 201, response.body);
    const exception = response.data;
    for (const key of ['id', 'rule_id', 'field', 'operator', 'value', 'reason', 'enabled', 'created_by', 'created_at']) assert.ok(key in exception, key);
    assert.equal(exception.rule_id, ruleId);
    assert.equal(exception.field, 'host.name');
    assert.equal(exception.operator, 'equals');
    assert.equal(exception.value, 'build-01');
    assert.equal(exception.reason, 'build server');
    assert.equal(exception.enabled, true);
    assert.equal(exception.created_by, 'erin');
    assert.match(exception.created_at, ISO);
    const list = await viewer.get(`/api/rules/${ruleId}/exceptions`);
    assert.equal(list.statusCode, 200, list.body);
    assert.ok(list.data.items.some((e: { id: string }) => e.id === exception.id));
    assertError(await viewer.post(`/api/rules/${ruleId}/exceptions`, { field: 'x', operator: 'equals', value: 'y' }), 403, 'Not enough permissions');
    assertError(await viewer.patch(`/api/rules/${ruleId}/exceptions/${exception.id}`, { enabled: false }), 403, 'Not enough permissions');
    assertError(await viewer.delete(`/api/rules/${ruleId}/exceptions/${exception.id}`), 403, 'Not enough permissions');
  });

  test('a duplicate exception (same field, operator, value; any case) is 409', async () => {
    const first = await analyst.post(`/api/rules/${ruleId}/exceptions`, { field: 'User', operator: 'equals', value: 'backup-svc' });
    assert.equal(first.statusCode, 201, first.body);
    assert.equal((await analyst.post(`/api/rules/${ruleId}/exceptions`, { field: 'User', operator: 'equals', value: 'backup-svc' })).statusCode, 409);
    assert.equal((await analyst.post(`/api/rules/${ruleId}/exceptions`, { field: 'User', operator: 'equals', value: 'BACKUP-SVC' })).statusCode, 409);
    const other = await analyst.post(`/api/rules/${ruleId}/exceptions`, { field: 'User', operator: 'contains', value: 'backup-svc' });
    assert.equal(other.statusCode, 201, other.body);
    const clash = await analyst.patch(`/api/rules/${ruleId}/exceptions/${other.data.id}`, { operator: 'equals' });
    assert.equal(clash.statusCode, 409, clash.body);
  });

  test('bad values are 400: unsafe or invalid regex, bad CIDR, "in" without a list, unknown operator, empty field', async () => {
    const bodies = [
      { field: 'CommandLine', operator: 'regex', value: '(?=x)y' },
      { field: 'CommandLine', operator: 'regex', value: '([a-z' },
      { field: 'src', operator: 'cidr', value: '10.0.0.0/33' },
      { field: 'src', operator: 'cidr', value: 'not-an-ip' },
      { field: 'User', operator: 'in', value: 'alice' },
      { field: 'User', operator: 'equals', value: ['a', 'b'] },
      { field: 'User', operator: 'like', value: 'a' },
      { field: '', operator: 'equals', value: 'a' },
      { field: 'User', operator: 'equals' },
    ];
    for (const body of bodies) {
      const response = await analyst.post(`/api/rules/${ruleId}/exceptions`, body);
      assert.equal(response.statusCode, 400, `${JSON.stringify(body)}: ${response.body}`);
    }
  });

  test('unknown rule, unknown exception and non-UUID ids are 404', async () => {
    assertError(await analyst.post(`/api/rules/${NIL_UUID}/exceptions`, { field: 'a', operator: 'equals', value: 'b' }), 404, 'Rule not found');
    assertError(await viewer.get(`/api/rules/${NIL_UUID}/exceptions`), 404, 'Rule not found');
    assertError(await viewer.get('/api/rules/abc/exceptions'), 404, 'Rule not found');
    assert.equal((await analyst.patch(`/api/rules/${ruleId}/exceptions/${NIL_UUID}`, { enabled: false })).statusCode, 404);
    assert.equal((await analyst.delete(`/api/rules/${ruleId}/exceptions/${NIL_UUID}`)).statusCode, 404);
    assert.equal((await analyst.delete(`/api/rules/${ruleId}/exceptions/abc`)).statusCode, 404);
    assertError(await analyst.patch(`/api/rules/not-a-uuid/exceptions/${NIL_UUID}`, { enabled: false }), 404, 'Rule not found');
    assertError(await analyst.delete(`/api/rules/not-a-uuid/exceptions/${NIL_UUID}`), 404, 'Rule not found');
    assertError(await analyst.delete(`/api/rules/${NIL_UUID}/exceptions/${NIL_UUID}`), 404, 'Rule not found');
    assertError(await analyst.delete(`/api/rules/${ruleId}/exceptions/abc`), 404, 'Exception not found');
    // An exception of another rule is not reachable through this rule.
    const other = await createRule(analyst, { yaml_content: sigma() });
    const foreign = await analyst.post(`/api/rules/${other.id}/exceptions`, { field: 'a', operator: 'equals', value: 'b' });
    assert.equal((await analyst.patch(`/api/rules/${ruleId}/exceptions/${foreign.data.id}`, { enabled: false })).statusCode, 404);
  });

  test('an enabled exception makes /test answer excepted:true at once; disabling flips it back; delete removes it', async () => {
    const rule = await createRule(analyst, { yaml_content: sigma(), deploy: true });
    const event = { Image: 'C:\\Windows\\System32\\whoami.exe', User: 'alice', host: { name: 'Jump-Host-7' } };
    assert.deepEqual(await testEvent(rule.id, event).then((r) => [r.matches, r.excepted]), [true, false]);

    const created = await analyst.post(`/api/rules/${rule.id}/exceptions`, { field: 'host.name', operator: 'equals', value: 'jump-host-7' });
    assert.equal(created.statusCode, 201, created.body);
    assert.deepEqual(await testEvent(rule.id, event).then((r) => [r.matches, r.excepted]), [true, true]);
    // Flat dotted keys are the same path.
    assert.equal((await testEvent(rule.id, { ...event, host: undefined, 'host.name': 'JUMP-HOST-7' })).excepted, true);

    const disabled = await analyst.patch(`/api/rules/${rule.id}/exceptions/${created.data.id}`, { enabled: false });
    assert.equal(disabled.statusCode, 200, disabled.body);
    assert.equal(disabled.data.enabled, false);
    assert.equal((await testEvent(rule.id, event)).excepted, false);

    assert.equal((await analyst.patch(`/api/rules/${rule.id}/exceptions/${created.data.id}`, { enabled: true })).statusCode, 200);
    assert.equal((await testEvent(rule.id, event)).excepted, true);
    assert.equal((await analyst.delete(`/api/rules/${rule.id}/exceptions/${created.data.id}`)).statusCode, 204);
    assert.equal((await testEvent(rule.id, event)).excepted, false);
    assert.deepEqual((await viewer.get(`/api/rules/${rule.id}/exceptions`)).data.items, []);

    // A non-matching event is never "excepted".
    await analyst.post(`/api/rules/${rule.id}/exceptions`, { field: 'User', operator: 'equals', value: 'SYSTEM' });
    assert.deepEqual(await testEvent(rule.id, { ...event, User: 'SYSTEM' }).then((r) => [r.matches, r.excepted]), [false, false]);
  });

  test('every operator, case-insensitive', async () => {
    const rule = await createRule(analyst, { yaml_content: sigma(), deploy: true });
    const base = { Image: 'C:\\Windows\\System32\\whoami.exe', User: 'alice' };
    const cases: [object, object, object][] = [
      [{ field: 'CommandLine', operator: 'contains', value: 'QUERY' }, { CommandLine: 'whoami /query /all' }, { CommandLine: 'whoami /all' }],
      [{ field: 'ParentImage', operator: 'startswith', value: 'c:\\tools\\' }, { ParentImage: 'C:\\Tools\\agent.exe' }, { ParentImage: 'C:\\Temp\\agent.exe' }],
      [{ field: 'ParentImage', operator: 'endswith', value: '\\SCCM.EXE' }, { ParentImage: 'C:\\x\\sccm.exe' }, { ParentImage: 'C:\\x\\sccm.exe.bak' }],
      [{ field: 'Computer', operator: 'regex', value: '^build-\\d+$' }, { Computer: 'BUILD-42' }, { Computer: 'build-x' }],
      [{ field: 'source.ip', operator: 'cidr', value: '10.20.0.0/16' }, { source: { ip: '10.20.3.4' } }, { source: { ip: '10.21.3.4' } }],
      [{ field: 'User', operator: 'in', value: ['Bob', 'ALICE'] }, { User: 'alice' }, { User: 'carol' }],
    ];
    for (const [exception, hit, miss] of cases) {
      const created = await analyst.post(`/api/rules/${rule.id}/exceptions`, exception);
      assert.equal(created.statusCode, 201, created.body);
      assert.equal((await testEvent(rule.id, { ...base, User: 'dave', ...hit })).excepted, true, `${JSON.stringify(exception)} should except ${JSON.stringify(hit)}`);
      assert.equal((await testEvent(rule.id, { ...base, User: 'dave', ...miss })).excepted, false, `${JSON.stringify(exception)} should not except ${JSON.stringify(miss)}`);
      assert.equal((await analyst.delete(`/api/rules/${rule.id}/exceptions/${created.data.id}`)).statusCode, 204);
    }
  });

  test('exception changes are audited', async () => {
    const created = await analyst.post(`/api/rules/${ruleId}/exceptions`, { field: 'audit.me', operator: 'equals', value: 'yes' });
    await analyst.patch(`/api/rules/${ruleId}/exceptions/${created.data.id}`, { reason: 'documented' });
    await analyst.delete(`/api/rules/${ruleId}/exceptions/${created.data.id}`);
    const audit = await admin.get(`/api/audit?target_id=${ruleId}&page_size=100`);
    const actions = audit.data.items.map((e: { action: string }) => e.action);
    assert.ok(actions.filter((a: string) => a.includes('exception')).length >= 3, actions.join(','));
  });
});

describeEachDatabase('concurrent duplicate exceptions', (ctx) => {
  test('the same exception posted twice at once is stored once; the other answer is 409', async () => {
    const admin = await loginAdmin(ctx.service);
    const created = await admin.post('/api/rules', { yaml_content: CONCURRENCY_RULE });
    assert.equal(created.statusCode, 201, created.body);
    const body = { field: 'User', operator: 'equals', value: 'svc-backup', reason: 'backup job' };
    const answers = await Promise.all([1, 2, 3].map(() => admin.post(`/api/rules/${created.data.id}/exceptions`, body)));
    assert.deepEqual(answers.map((a) => a.statusCode).sort(), [201, 409, 409]);
    for (const a of answers.filter((x) => x.statusCode === 409)) assert.equal(a.data.detail, 'Exception already exists');
    const list = await admin.get(`/api/rules/${created.data.id}/exceptions`);
    assert.equal(list.data.items.length, 1);
  });
});

const CONCURRENCY_RULE = `title: Concurrency
logsource: {product: windows, category: process_creation}
detection:
  selection: {Image|endswith: '\\\\backup.exe'}
  condition: selection
level: low
`;

describeEachDatabase('sub-lists of a rule are pages', (ctx) => {
  test('exceptions and versions answer {items,total,page,page_size,pages}, sort and refuse bad paging', async () => {
    const admin = await loginAdmin(ctx.service);
    await createPattern(admin, { name: 'pages', is_default: true });
    const rule = await createRule(admin, { yaml_content: sigma() });
    for (const value of ['a', 'b', 'c']) {
      assert.equal((await admin.post(`/api/rules/${rule.id}/exceptions`, { field: 'User', operator: 'equals', value })).statusCode, 201);
    }
    const first = await admin.get(`/api/rules/${rule.id}/exceptions?page_size=2`);
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual({ ...first.data, items: first.data.items.map((e: { value: string }) => e.value) }, { items: ['a', 'b'], total: 3, page: 1, page_size: 2, pages: 2 });
    const second = await admin.get(`/api/rules/${rule.id}/exceptions?page_size=2&page=2`);
    assert.deepEqual(second.data.items.map((e: { value: string }) => e.value), ['c']);
    const newest = await admin.get(`/api/rules/${rule.id}/exceptions?sort_order=desc`);
    assert.deepEqual(newest.data.items.map((e: { value: string }) => e.value), ['c', 'b', 'a']);

    for (const title of ['Two', 'Three']) assert.equal((await admin.put(`/api/rules/${rule.id}`, { title })).statusCode, 200);
    const versions = await admin.get(`/api/rules/${rule.id}/versions?page_size=1&page=2`);
    assert.equal(versions.statusCode, 200, versions.body);
    assert.deepEqual({ ...versions.data, items: versions.data.items.map((v: { version: number }) => v.version) }, { items: [2], total: 3, page: 2, page_size: 1, pages: 3 });
    const oldest = await admin.get(`/api/rules/${rule.id}/versions?sort_order=asc`);
    assert.deepEqual(oldest.data.items.map((v: { version: number }) => v.version), [1, 2, 3]);

    for (const list of ['exceptions', 'versions']) {
      for (const query of ['page_size=101', 'page_size=0', 'page=0', 'sort_by=colour']) {
        const response = await admin.get(`/api/rules/${rule.id}/${list}?${query}`);
        assertError(response, 400, 'Invalid request');
        assert.ok(response.data.errors.length > 0, response.body);
      }
    }
  });
});

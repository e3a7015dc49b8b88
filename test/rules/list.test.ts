// GET /api/rules: pagination, the filters status, severity, created_after/before (exclusive), search,
// tag and index_pattern combined with AND, sorting (severity by rank), and 400 for bad values.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { anonymous, describeEachDatabase, loginAdmin, type Client } from '../helpers/service.js';
import { assertError, createPattern, createRule, sigma, userAs } from './fixtures.js';

interface Rule {
  id: string;
  title: string;
  severity: string;
  status: string;
  created_at: string;
}

const LEVELS = ['low', 'critical', 'informational', 'high', 'medium', 'high'];
const RANK: Record<string, number> = { informational: 0, low: 1, medium: 2, high: 3, critical: 4 };

describeEachDatabase('rule list', (ctx) => {
  let admin: Client;
  let viewer: Client;
  const rules: Rule[] = [];

  before(async () => {
    admin = await loginAdmin(ctx.service);
    viewer = await userAs(admin, 'viewer', 'vera');
    await createPattern(admin, { name: 'alpha', is_default: true });
    await createPattern(admin, { name: 'beta' });
    for (let i = 0; i < LEVELS.length; i++) {
      const tags = i % 2 === 0 ? ['attack.t1033', `group.${i}`] : [`group.${i}`];
      const rule = await createRule(admin, {
        yaml_content: sigma({ title: `Rule ${String.fromCharCode(65 + i)} ${i === 4 ? 'Mimikatz Hunt' : 'plain'}`, level: LEVELS[i], tags }),
        index_pattern: i < 4 ? 'alpha' : 'beta',
        deploy: i % 3 === 0,
      });
      rules.push(rule as Rule);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  });

  const ids = (response: { data: { items: Rule[] } }) => response.data.items.map((r) => r.id);
  const get = async (query: string) => {
    const response = await viewer.get(`/api/rules${query}`);
    assert.equal(response.statusCode, 200, response.body);
    return response;
  };

  test('defaults: page 1, page_size 20, newest first, the list shape', async () => {
    const response = await get('');
    assert.deepEqual(Object.keys(response.data).sort(), ['items', 'page', 'page_size', 'pages', 'total']);
    assert.equal(response.data.total, 6);
    assert.equal(response.data.page, 1);
    assert.equal(response.data.page_size, 20);
    assert.equal(response.data.pages, 1);
    assert.deepEqual(ids(response), rules.map((r) => r.id).reverse());
    assert.ok('yaml_content' in response.data.items[0] && 'index_pattern' in response.data.items[0]);
  });

  test('pagination: pages = ceil(total / page_size), stable and complete', async () => {
    const seen: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const response = await get(`?page=${page}&page_size=4`);
      assert.equal(response.data.pages, 2);
      assert.equal(response.data.page, page);
      assert.equal(response.data.page_size, 4);
      assert.equal(response.data.items.length, page === 1 ? 4 : page === 2 ? 2 : 0);
      seen.push(...ids(response));
    }
    assert.deepEqual(seen, rules.map((r) => r.id).reverse());
    const none = await get('?search=nothing-matches-this');
    assert.equal(none.data.total, 0);
    assert.equal(none.data.pages, 0);
  });

  test('status and severity filters', async () => {
    const deployed = await get('?status=deployed');
    assert.deepEqual(new Set(ids(deployed)), new Set([rules[0].id, rules[3].id]));
    assert.ok(deployed.data.items.every((r: Rule) => r.status === 'deployed'));
    const undeployed = await get('?status=undeployed');
    assert.equal(undeployed.data.total, 4);
    const high = await get('?severity=high');
    assert.deepEqual(new Set(ids(high)), new Set([rules[3].id, rules[5].id]));
    const both = await get('?severity=high&status=deployed');
    assert.deepEqual(ids(both), [rules[3].id]);
  });

  test('created_after and created_before are exclusive bounds', async () => {
    const after = await get(`?created_after=${encodeURIComponent(rules[2].created_at)}&sort_order=asc`);
    assert.deepEqual(ids(after), rules.slice(3).map((r) => r.id));
    const beforeBound = await get(`?created_before=${encodeURIComponent(rules[2].created_at)}&sort_order=asc`);
    assert.deepEqual(ids(beforeBound), rules.slice(0, 2).map((r) => r.id));
    const between = await get(`?created_after=${encodeURIComponent(rules[1].created_at)}&created_before=${encodeURIComponent(rules[4].created_at)}&sort_order=asc`);
    assert.deepEqual(ids(between), [rules[2].id, rules[3].id]);
  });

  test('search is case-insensitive over the title; tag and index_pattern filters; all combined with AND', async () => {
    const search = await get('?search=MIMIKATZ');
    assert.deepEqual(ids(search), [rules[4].id]);
    const tagged = await get('?tag=attack.t1033&sort_order=asc');
    assert.deepEqual(ids(tagged), [rules[0].id, rules[2].id, rules[4].id]);
    const beta = await get('?index_pattern=beta&sort_order=asc');
    assert.deepEqual(ids(beta), [rules[4].id, rules[5].id]);
    const combined = await get('?index_pattern=alpha&tag=attack.t1033&severity=informational');
    assert.deepEqual(ids(combined), [rules[2].id]);
    const unknownPattern = await get('?index_pattern=gamma');
    assert.equal(unknownPattern.data.total, 0);
  });

  test('sorting: severity by rank (not alphabetically), title, and the default created_at', async () => {
    const asc = await get('?sort_by=severity&sort_order=asc');
    const ranks = asc.data.items.map((r: Rule) => RANK[r.severity]);
    assert.deepEqual(ranks, [...ranks].sort((a, b) => a - b));
    assert.equal(asc.data.items[0].severity, 'informational');
    assert.equal(asc.data.items.at(-1).severity, 'critical');
    const desc = await get('?sort_by=severity&sort_order=desc');
    assert.equal(desc.data.items[0].severity, 'critical');
    assert.equal(desc.data.items.at(-1).severity, 'informational');
    const titles = await get('?sort_by=title&sort_order=asc');
    const names = titles.data.items.map((r: Rule) => r.title);
    assert.deepEqual(names, [...names].sort());
    const oldest = await get('?sort_by=created_at&sort_order=asc');
    assert.deepEqual(ids(oldest), rules.map((r) => r.id));
  });

  test('bad values are 400 with errors', async () => {
    for (const query of [
      '?status=active',
      '?severity=severe',
      '?created_after=yesterday',
      '?created_before=2024-13-45T00:00:00Z',
      '?sort_by=password',
      '?sort_order=sideways',
      '?page=0',
      '?page=abc',
      '?page_size=0',
      '?page_size=101',
    ]) {
      const response = await viewer.get(`/api/rules${query}`);
      assert.equal(response.statusCode, 400, `${query}: ${response.body}`);
      assert.ok(Array.isArray(response.data.errors) && response.data.errors.length > 0, `${query}: ${response.body}`);
    }
  });

  test('reading needs a session: anonymous 401, unknown id and non-UUID id 404 Rule not found', async () => {
    assertError(await anonymous(ctx.service).get('/api/rules'), 401, 'Could not validate credentials');
    assertError(await viewer.get('/api/rules/00000000-0000-4000-8000-000000000000'), 404, 'Rule not found');
    assertError(await viewer.get('/api/rules/not-a-uuid'), 404, 'Rule not found');
  });
});

describeEachDatabase('rule list status filter', (ctx) => {
  test('an unknown status value is 400 Invalid status value', async () => {
    const admin = await loginAdmin(ctx.service);
    const res = await admin.get('/api/rules?status=bogus');
    assert.equal(res.statusCode, 400);
    assert.equal(res.data.detail, 'Invalid status value');
    assert.deepEqual(res.data.errors, [{ field: 'query.status', message: 'must be one of: deployed, undeployed' }]);
  });
});

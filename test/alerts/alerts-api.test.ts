// GET /api/alerts and GET /api/alerts/{id}: the list shape, every filter, every sort, paging, the
// errors for bad parameters, and the full record of one alert. Alerts are raised through real ingest.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { pageAlerts } from '../../src/alerts/queries.js';
import { describeEachDatabase } from '../helpers/service.js';
import { assertError, NIL_UUID, type Json } from '../rules/fixtures.js';
import { alertWorld, EVENTS, type AlertWorld } from './fixtures.js';

describeEachDatabase('alerts API: list and read', (ctx) => {
  let world: AlertWorld;
  /** Alert ids by label, reversed: label by id. */
  let labelOf: Map<string, string>;

  before(async () => {
    world = await alertWorld(ctx.service, 'list');
    labelOf = new Map(Object.entries(world.alerts).map(([label, id]) => [id, label]));
  });

  const list = async (query = ''): Promise<Json> => {
    const response = await world.viewer.get(`/api/alerts${query ? `?${query}` : ''}`);
    assert.equal(response.statusCode, 200, response.body);
    return response.data;
  };
  const labels = async (query: string): Promise<string[]> => (await list(query)).items.map((a: Json) => labelOf.get(a.id));

  test('the default page lists every alert newest first, in the list shape, without the event', async () => {
    const page = await list();
    assert.equal(page.total, 5);
    assert.equal(page.total_exact, true);
    assert.equal(page.page, 1);
    assert.equal(page.page_size, 20);
    assert.equal(page.pages, 1);
    assert.deepEqual(page.items.map((a: Json) => labelOf.get(a.id)), ['linDave', 'loginCarol', 'scan', 'procBob', 'loginAlice']);
    const alice = page.items.find((a: Json) => a.id === world.alerts.loginAlice);
    assert.deepEqual(Object.keys(alice).sort(), [
      'assignee', 'created_at', 'event_time', 'host', 'id', 'index_pattern', 'last_seen_at', 'level', 'occurrences', 'rule_id', 'rule_title', 'severity', 'source_ip', 'status', 'tags', 'updated_at', 'user',
    ]);
    assert.equal(alice.occurrences, 1);
    assert.equal(alice.assignee, null);
    assert.equal(alice.last_seen_at, alice.created_at);
    assert.equal(alice.rule_id, world.rules.login);
    assert.equal(alice.rule_title, 'Alpha Login');
    assert.equal(alice.severity, 'high');
    assert.equal(alice.level, 'high');
    assert.equal(alice.status, 'new');
    assert.deepEqual(alice.tags, ['attack.initial_access']);
    assert.equal(alice.index_pattern, 'win');
    assert.equal(alice.user, 'alice');
    assert.equal(alice.host, 'ws-01');
    assert.equal(alice.source_ip, '10.0.0.1');
    assert.match(alice.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const scan = page.items.find((a: Json) => a.id === world.alerts.scan);
    assert.equal('user' in scan, false, 'absent entities are omitted');
    assert.equal('host' in scan, false);
    assert.equal('enrichment' in scan, false);
    assert.equal('acknowledged_at' in scan, false);
  });

  test('one alert adds its event, matched conditions and comment count', async () => {
    const response = await world.viewer.get(`/api/alerts/${world.alerts.procBob}`);
    assert.equal(response.statusCode, 200, response.body);
    const alert = response.data;
    assert.equal(alert.id, world.alerts.procBob);
    assert.equal(alert.rule_title, 'Beta Process');
    assert.equal(alert.severity, 'critical');
    assert.deepEqual(alert.event, EVENTS.procBob);
    assert.deepEqual(alert.matched_conditions, [{ selection: { Action: 'proc' } }]);
    assert.equal(alert.comments_count, 0);
    assert.equal(alert.host, 'ws-02');
    const [{ event_hash }] = await ctx.service.db.query<{ event_hash: string }>('SELECT event_hash FROM alerts WHERE id = $1', [world.alerts.procBob]);
    assert.deepEqual(alert.event_ids, [event_hash], 'an alert without suppression stands for its one event');
  });

  test('an unknown or malformed alert id answers 404 Alert not found', async () => {
    assertError(await world.viewer.get(`/api/alerts/${NIL_UUID}`), 404, 'Alert not found');
    assertError(await world.viewer.get('/api/alerts/not-a-uuid'), 404, 'Alert not found');
  });

  test('reading alerts needs a session', async () => {
    const response = await ctx.service.app.inject({ method: 'GET', url: '/api/alerts' });
    assert.equal(response.statusCode, 401);
  });

  test('each filter narrows the list; filters combine with AND', async () => {
    assert.deepEqual(await labels(`rule_id=${world.rules.login}`), ['loginCarol', 'loginAlice']);
    assert.deepEqual(await labels('severity=critical'), ['procBob']);
    assert.deepEqual(await labels('severity=informational'), []);
    assert.deepEqual(await labels('index_pattern=lin'), ['linDave']);
    assert.deepEqual(await labels('host=ws-02'), ['procBob']);
    assert.deepEqual(await labels('user=carol'), ['loginCarol']);
    assert.deepEqual(await labels('source_ip=10.0.0.9'), ['scan']);
    assert.deepEqual(await labels('status=new&severity=high'), ['loginCarol', 'loginAlice']);
    assert.deepEqual(await labels(`status=new&severity=high&user=alice&rule_id=${world.rules.login}`), ['loginAlice']);
    assert.deepEqual(await labels('status=resolved'), []);
    const changed = await world.analyst.patch(`/api/alerts/${world.alerts.scan}`, { status: 'acknowledged' });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.deepEqual(await labels('status=acknowledged'), ['scan']);
    assert.equal((await list('status=new')).total, 4);
    assert.equal((await world.analyst.patch(`/api/alerts/${world.alerts.scan}`, { status: 'new' })).statusCode, 200);
  });

  test('created_after and created_before are exclusive bounds', async () => {
    const all = (await list('sort_order=asc')).items;
    const [, second, third, fourth] = all;
    assert.deepEqual(await labels(`created_after=${encodeURIComponent(second.created_at)}&created_before=${encodeURIComponent(fourth.created_at)}`), [labelOf.get(third.id)]);
    assert.equal((await list(`created_after=${encodeURIComponent(all[4].created_at)}`)).total, 0);
    assert.equal((await list(`created_before=${encodeURIComponent(all[0].created_at)}`)).total, 0);
    assert.equal((await list('created_after=2000-01-01T00:00:00Z')).total, 5);
  });

  test('search is case-insensitive over the rule title, entities and the event text', async () => {
    assert.deepEqual(await labels('search=alpha%20LOG'), ['loginCarol', 'loginAlice']);
    assert.deepEqual(await labels('search=WS-02'), ['procBob']);
    assert.deepEqual(await labels('search=CAROL'), ['loginCarol']);
    assert.deepEqual(await labels('search=10.0.0.9'), ['scan']);
    assert.deepEqual(await labels('search=needle%20IN%20the'), ['loginAlice'], 'a value inside the event');
    assert.deepEqual(await labels(`search=${encodeURIComponent('c:\\tools\\MIMIKATZ')}`), ['procBob'], 'backslashes as typed');
    assert.deepEqual(await labels(`search=${encodeURIComponent('.exe "sekur')}`), ['procBob'], 'quotes as typed');
    assert.deepEqual(await labels('search=%25_%25'), [], 'LIKE wildcards are literal');
    assert.deepEqual(await labels('search=nothing-like-this'), []);
    assert.deepEqual(await labels('search=login&user=alice'), ['loginAlice']);
    assert.deepEqual(await labels('search=login&sort_by=user&sort_order=asc'), ['loginAlice', 'loginCarol'], 'sorted');
    const second = await list('search=login&page_size=1&page=2');
    assert.deepEqual([second.total, second.pages, second.total_exact, second.items.map((a: Json) => labelOf.get(a.id))], [2, 2, true, ['loginAlice']]);
    const past = await list('search=login&page=3');
    assert.deepEqual([past.total, past.items], [2, []]);
  });

  test('a search matching more alerts than it counts says so and still pages in order', async () => {
    const q = { page: 1, page_size: 20, sort_order: 'desc' as const, search: 'login' };
    const capped = await pageAlerts(ctx.service.db, q, 1);
    assert.deepEqual([capped.total, capped.total_exact, capped.pages], [1, false, 1]);
    assert.deepEqual(capped.items.map((a) => labelOf.get(a.id)), ['loginCarol', 'loginAlice']);
    const exact = await pageAlerts(ctx.service.db, q, 2);
    assert.deepEqual([exact.total, exact.total_exact], [2, true]);
  });

  test('every sort field orders the list both ways, ties newest first by creation', async () => {
    assert.deepEqual(await labels('sort_by=created_at&sort_order=asc'), ['loginAlice', 'procBob', 'scan', 'loginCarol', 'linDave']);
    assert.deepEqual(await labels('sort_by=severity&sort_order=desc'), ['procBob', 'loginCarol', 'loginAlice', 'linDave', 'scan']);
    assert.deepEqual(await labels('sort_by=severity&sort_order=asc'), ['scan', 'linDave', 'loginAlice', 'loginCarol', 'procBob']);
    assert.deepEqual(await labels('sort_by=rule_title&sort_order=asc'), ['loginAlice', 'loginCarol', 'procBob', 'linDave', 'scan']);
    assert.deepEqual(await labels('sort_by=host&sort_order=asc'), ['linDave', 'loginCarol', 'loginAlice', 'procBob', 'scan']);
    assert.deepEqual(await labels('sort_by=host&sort_order=desc'), ['procBob', 'loginAlice', 'loginCarol', 'linDave', 'scan'], 'no host last');
    assert.deepEqual(await labels('sort_by=user&sort_order=asc'), ['loginAlice', 'procBob', 'loginCarol', 'linDave', 'scan']);
    assert.deepEqual(await labels('sort_by=user&sort_order=desc'), ['linDave', 'loginCarol', 'procBob', 'loginAlice', 'scan']);
    assert.deepEqual(await labels('sort_by=source_ip&sort_order=asc'), ['loginAlice', 'loginCarol', 'procBob', 'scan', 'linDave']);
    assert.deepEqual(await labels('sort_by=source_ip&sort_order=desc'), ['scan', 'procBob', 'loginCarol', 'loginAlice', 'linDave']);
    // No alert is enriched here: all share an empty risk score, so creation decides.
    assert.deepEqual(await labels('sort_by=risk_score&sort_order=desc'), ['linDave', 'loginCarol', 'scan', 'procBob', 'loginAlice']);
    assert.equal((await world.analyst.patch(`/api/alerts/${world.alerts.procBob}`, { status: 'acknowledged' })).statusCode, 200);
    assert.deepEqual((await labels('sort_by=status&sort_order=asc'))[0], 'procBob');
    assert.deepEqual((await labels('sort_by=updated_at&sort_order=desc'))[0], 'procBob');
    assert.deepEqual((await labels('sort_by=updated_at&sort_order=asc')).at(-1), 'procBob');
    assert.equal((await world.analyst.patch(`/api/alerts/${world.alerts.procBob}`, { status: 'new' })).statusCode, 200);
  });

  test('pages split the list without overlap', async () => {
    const first = await list('page_size=2');
    assert.equal(first.total, 5);
    assert.equal(first.pages, 3);
    const second = await list('page_size=2&page=2');
    const third = await list('page_size=2&page=3');
    assert.equal(third.items.length, 1);
    const ids = [...first.items, ...second.items, ...third.items].map((a: Json) => a.id);
    assert.equal(new Set(ids).size, 5);
    assert.deepEqual((await list('page_size=2&page=4')).items, []);
  });

  test('bad filters answer 400 naming the parameter', async () => {
    const status = await world.viewer.get('/api/alerts?status=open');
    assertError(status, 400, 'Invalid status value');
    assert.equal(status.data.errors[0].field, 'query.status');
    for (const [query, field] of [
      ['severity=urgent', 'query.severity'],
      ['rule_id=abc', 'query.rule_id'],
      ['sort_by=event', 'query.sort_by'],
      ['sort_order=up', 'query.sort_order'],
      ['created_after=yesterday', 'query.created_after'],
      ['created_before=2026-13-01T00:00:00Z', 'query.created_before'],
      ['page_size=101', 'query.page_size'],
      ['page=0', 'query.page'],
      [`search=${'x'.repeat(201)}`, 'query.search'],
      ['search=ab', 'query.search'],
      [`host=${'h'.repeat(1025)}`, 'query.host'],
    ]) {
      const response = await world.viewer.get(`/api/alerts?${query}`);
      assertError(response, 400, 'Invalid request');
      assert.deepEqual(response.data.errors.map((e: Json) => e.field), [field], query);
    }
  });
});

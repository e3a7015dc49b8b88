// GET /api/stats: alert totals (open = new or acknowledged), the last 24 hours, breakdowns by status and
// severity, rule counts, the rules with most alerts, the hourly timeline and ingested event counts.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase } from '../helpers/service.js';
import { foldAlertCounts } from '../../src/alerts/counts.js';
import { foldEventCounts } from '../../src/stats/store.js';
import { countRows, createPattern, createRule, equalsRule, ingest, type Json } from '../rules/fixtures.js';
import { alertWorld, type AlertWorld } from './fixtures.js';

describeEachDatabase('stats', (ctx) => {
  let world: AlertWorld;

  before(async () => {
    world = await alertWorld(ctx.service, 'stats');
    await createRule(world.analyst, { yaml_content: equalsRule('Idle Rule', 'Action', 'never') });
    // One more login alert and an event no rule matches.
    const more = await ingest(ctx.service, world.win, [{ Action: 'login', User: 'erin' }, { Action: 'nothing' }]);
    assert.equal(more.data.alerts_created, 1, more.body);
  });

  const stats = async (): Promise<Json> => {
    const response = await world.viewer.get('/api/stats');
    assert.equal(response.statusCode, 200, response.body);
    return response.data;
  };
  /** The two event counts of `ingest` (its hourly timeline is tested in test/stats/). */
  const eventFigures = (ingest: Json) => ({ events_total: ingest.events_total, events_last_24h: ingest.events_last_24h });

  test('answers the documented shape with the current figures', async () => {
    const s = await stats();
    assert.deepEqual(Object.keys(s).sort(), ['alerts', 'ingest', 'rules', 'timeline', 'top_rules', 'triage']);
    assert.equal(s.triage.mean_time_to_acknowledge_seconds, null);
    assert.equal(s.triage.mean_time_to_resolve_seconds, null);
    assert.ok(s.triage.oldest_open_alert_age_seconds >= 0);
    assert.deepEqual(s.triage.open_by_assignee, [{ assignee: null, assignee_name: null, count: 6 }]);
    assert.deepEqual(s.triage.rule_precision, []);
    assert.deepEqual(s.alerts, {
      total: 6,
      open: 6,
      last_24h: 6,
      by_status: { new: 6, acknowledged: 0, resolved: 0, false_positive: 0 },
      by_severity: { critical: 1, high: 3, medium: 1, low: 1, informational: 0 },
      suppressed: 0,
    });
    assert.deepEqual(s.rules, { total: 5, deployed: 4, undeployed: 1 });
    assert.deepEqual(eventFigures(s.ingest), { events_total: 7, events_last_24h: 7 });
    assert.deepEqual(s.top_rules[0], { rule_id: world.rules.login, rule_title: 'Alpha Login', count: 3 });
    assert.deepEqual(
      s.top_rules.slice(1).map((r: Json) => r.rule_id),
      [world.rules.proc, world.rules.scan, world.rules.lin].sort(),
      'ties by rule id',
    );
    assert.ok(s.top_rules.every((r: Json) => r.count >= 1));
  });

  test('the timeline has 24 hourly UTC buckets ending with the current hour, zero-filled', async () => {
    const { timeline } = await stats();
    assert.equal(timeline.length, 24);
    const hour = 3600_000;
    const now = Date.now();
    const last = Date.parse(timeline[23].time);
    assert.equal(last % hour, 0, 'aligned to the hour');
    assert.ok(last <= now && now - last < 2 * hour, `${timeline[23].time} is the current hour`);
    for (let i = 1; i < 24; i++) assert.equal(Date.parse(timeline[i].time) - Date.parse(timeline[i - 1].time), hour);
    assert.equal(timeline.reduce((sum: number, t: Json) => sum + t.count, 0), 6);
    assert.ok(timeline.slice(0, 22).every((t: Json) => t.count === 0));
  });

  test('triage moves alerts between the status counts; open counts new and acknowledged', async () => {
    const { loginAlice, procBob, scan } = world.alerts;
    for (const [id, status] of [[loginAlice, 'acknowledged'], [procBob, 'acknowledged'], [procBob, 'resolved'], [scan, 'acknowledged'], [scan, 'false_positive']]) {
      assert.equal((await world.analyst.patch(`/api/alerts/${id}`, { status })).statusCode, 200);
    }
    const s = await stats();
    assert.equal(s.alerts.total, 6);
    assert.equal(s.alerts.open, 4);
    assert.deepEqual(s.alerts.by_status, { new: 3, acknowledged: 1, resolved: 1, false_positive: 1 });
  });

  test('last_24h and events_last_24h leave out what is older than a day; totals keep it', async () => {
    await ctx.service.db.query(`UPDATE alerts SET created_at = now() - interval '25 hours' WHERE id = $1`, [world.alerts.linDave]);
    await ctx.service.db.query(`UPDATE event_blocks SET received_at = now() - interval '3 days' WHERE id IN (SELECT block_id FROM events WHERE event->>'action' = 'sudo')`);
    const s = await stats();
    assert.equal(s.alerts.total, 6);
    assert.equal(s.alerts.last_24h, 5);
    assert.equal(s.timeline.reduce((sum: number, t: Json) => sum + t.count, 0), 5);
    assert.deepEqual(eventFigures(s.ingest), { events_total: 7, events_last_24h: 6 });
    // Either side of the window's start, which falls inside an hour: counted exactly.
    await ctx.service.db.query(`UPDATE event_blocks SET received_at = now() - interval '23 hours 59 minutes' WHERE id IN (SELECT block_id FROM events WHERE event->>'User' = 'alice')`);
    await ctx.service.db.query(`UPDATE event_blocks SET received_at = now() - interval '24 hours 1 minute' WHERE id IN (SELECT block_id FROM events WHERE event->>'User' = 'bob')`);
    assert.deepEqual(eventFigures((await stats()).ingest), { events_total: 7, events_last_24h: 5 });
  });

  test('a deleted rule keeps its place in top_rules under the title its alerts carry', async () => {
    assert.equal((await world.admin.delete(`/api/rules/${world.rules.proc}`)).statusCode, 204);
    const s = await stats();
    assert.deepEqual(s.rules, { total: 4, deployed: 3, undeployed: 1 });
    assert.deepEqual(s.top_rules.find((r: Json) => r.rule_id === world.rules.proc), { rule_id: world.rules.proc, rule_title: 'Beta Process', count: 1 });
  });

  test('folding the stored counts changes no figure', async () => {
    const before = await stats();
    const list = async (query: string) => (await world.viewer.get(`/api/alerts?${query}`)).data.total;
    const totals = [await list(''), await list('status=new'), await list(`rule_id=${world.rules.login}&severity=high`)];
    await foldAlertCounts(ctx.service.db);
    await foldEventCounts(ctx.service.db);
    assert.equal(await countRows(ctx.service, 'alert_counts WHERE delta', []), 0);
    assert.equal(await countRows(ctx.service, 'event_counts WHERE delta', []), 0);
    // The oldest open alert ages while the test runs.
    const steady = (s: Json) => ({ ...s, triage: { ...s.triage, oldest_open_alert_age_seconds: 0 } });
    assert.deepEqual(steady(await stats()), steady(before));
    assert.deepEqual([await list(''), await list('status=new'), await list(`rule_id=${world.rules.login}&severity=high`)], totals);
    assert.deepEqual(totals, [6, 3, 3]);
  });

  test('events removed with their index pattern leave the event counts', async () => {
    const before = eventFigures((await stats()).ingest);
    const temp = await createPattern(world.admin, { name: 'temp' });
    assert.equal((await ingest(ctx.service, temp, [{ a: 1 }, { a: 2 }])).data.accepted, 2);
    assert.deepEqual(eventFigures((await stats()).ingest), { events_total: before.events_total + 2, events_last_24h: before.events_last_24h + 2 });
    assert.equal((await world.admin.delete(`/api/index_patterns/${temp.id}`)).statusCode, 204);
    assert.deepEqual(eventFigures((await stats()).ingest), before);
  });

  test('stats need a session; every role may read them', async () => {
    assert.equal((await ctx.service.app.inject({ method: 'GET', url: '/api/stats' })).statusCode, 401);
    assert.equal((await world.analyst.get('/api/stats')).statusCode, 200);
    assert.equal((await world.admin.get('/api/stats')).statusCode, 200);
  });

  // Last: it moves alerts the figures above count.
  test('triage figures: time to acknowledge and to close, the oldest open alert, open alerts per assignee, rule precision', async () => {
    const analystId = (await world.analyst.get('/api/auth/me')).data.id;
    const { loginAlice, procBob, scan } = world.alerts;
    // Created an hour ago (acknowledged now), two hours ago (closed now, one as a false positive).
    await ctx.service.db.query(`UPDATE alerts SET created_at = now() - interval '1 hour' WHERE id = $1`, [loginAlice]);
    await ctx.service.db.query(`UPDATE alerts SET created_at = now() - interval '2 hours' WHERE id = ANY($1::uuid[])`, [[procBob, scan]]);
    assert.equal((await world.analyst.patch(`/api/alerts/${loginAlice}`, { status: 'acknowledged', assignee: analystId })).statusCode, 200);
    for (const [id, status] of [[procBob, 'resolved'], [scan, 'false_positive']]) {
      assert.equal((await world.analyst.patch(`/api/alerts/${id}`, { status, acknowledge_first: true })).statusCode, 200);
    }
    const { triage } = await stats();
    // Three acknowledgements (1 h, 2 h, 2 h after creation) and two closes (2 h each).
    assert.ok(Math.abs(triage.mean_time_to_acknowledge_seconds - (3600 + 7200 + 7200) / 3) < 60, JSON.stringify(triage));
    assert.ok(Math.abs(triage.mean_time_to_resolve_seconds - 7200) < 60, JSON.stringify(triage));
    assert.ok(triage.oldest_open_alert_age_seconds >= 3600 - 60);
    assert.deepEqual(triage.open_by_assignee.map((o: Json) => [o.assignee_name, o.count]), [[null, 3], ['stats-analyst', 1]].sort((a, b) => (b[1] as number) - (a[1] as number)));
    assert.deepEqual(
      triage.rule_precision.map((p: Json) => [p.rule_title, p.closed, p.false_positives, p.false_positive_rate]).sort(),
      [['Beta Process', 1, 0, 0], ['Gamma Scan', 1, 1, 1]],
    );
  });
});

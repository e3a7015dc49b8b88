// Triage at volume through the API: bulk changes by filter (every alert the list's filters match, in
// chunks, audited once, refused moves skipped), closing new alerts in one step through acknowledged
// (both moves recorded), assignees (set, cleared, filtered with me/none/id, refused for users who cannot
// triage, taken on acknowledge when the user chose so, audited), and alerts grouped by rule, host, user
// or source IP under the list's filters.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase, type Client } from '../helpers/service.js';
import { assertError, ingest, NIL_UUID, userAs, type Json } from '../rules/fixtures.js';
import { alertWorld, type AlertWorld } from './fixtures.js';

describeEachDatabase('triage at volume', (ctx) => {
  let world: AlertWorld;
  let analystId: string;
  let viewerId: string;
  let second: Client;
  let secondId: string;

  before(async () => {
    world = await alertWorld(ctx.service, 'volume');
    analystId = (await world.analyst.get('/api/auth/me')).data.id;
    viewerId = (await world.viewer.get('/api/auth/me')).data.id;
    second = await userAs(world.admin, 'analyst', 'volume-second');
    secondId = (await second.get('/api/auth/me')).data.id;
    // Twelve more alerts of the scan rule on three hosts.
    const events = Array.from({ length: 12 }, (_, i) => ({ Action: 'scan', SourceIp: `10.9.0.${i % 3}`, Computer: `scan-${i % 3}`, n: i }));
    assert.equal((await ingest(ctx.service, world.win, events)).data.alerts_created, 12);
  });

  const statusOf = async (ruleId: string) =>
    (await ctx.service.db.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM alerts WHERE rule_id = $1 GROUP BY status ORDER BY status', [ruleId])).map((r) => [r.status, r.n]);
  const bulkAudits = () => ctx.service.db.query<{ details: Json }>(`SELECT details FROM audit_log WHERE action = 'alert.bulk_changed' ORDER BY created_at, id`);

  test('a bulk change by filter changes every matching alert and is audited once', async () => {
    const response = await world.analyst.post('/api/alerts/bulk/status', { filter: { rule_id: world.rules.scan, status: 'new' }, status: 'acknowledged', comment: 'triaged in bulk' });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.data, { updated: 13, skipped: 0, failed: [] });
    assert.deepEqual(await statusOf(world.rules.scan), [['acknowledged', 13]]);
    const audits = await bulkAudits();
    assert.equal(audits.length, 1);
    assert.deepEqual(audits[0].details, { filter: { rule_id: world.rules.scan, status: 'new' }, status: 'acknowledged', comment: true, matched: 13, updated: 13, skipped: 0 });
    const [{ n: comments }] = await ctx.service.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM alert_comments WHERE text = 'triaged in bulk'`);
    assert.equal(comments, 13);
    assert.equal((await ctx.service.db.query(`SELECT 1 FROM audit_log WHERE action = 'alert.status_changed' AND details->>'to' = 'acknowledged' AND actor = 'volume-analyst'`)).length, 0, 'no entry per alert');
  });

  test('refused moves are skipped; a filter matching nothing updates nothing', async () => {
    // Back to new is allowed from anything; new → resolved is not.
    const some = await world.analyst.post('/api/alerts/bulk/status', { filter: { rule_id: world.rules.scan, host: 'scan-0' }, status: 'new' });
    assert.deepEqual(some.data, { updated: 4, skipped: 0, failed: [] });
    const refused = await world.analyst.post('/api/alerts/bulk/status', { filter: { rule_id: world.rules.scan }, status: 'resolved' });
    assert.deepEqual(refused.data, { updated: 9, skipped: 4, failed: [] }, refused.body);
    const none = await world.analyst.post('/api/alerts/bulk/status', { filter: { host: 'no-such-host' }, status: 'acknowledged' });
    assert.deepEqual(none.data, { updated: 0, skipped: 0, failed: [] });
  });

  test('acknowledge_first closes new alerts in one step, both moves recorded', async () => {
    const response = await world.analyst.post('/api/alerts/bulk/status', { filter: { rule_id: world.rules.scan, status: 'new' }, status: 'false_positive', acknowledge_first: true });
    assert.deepEqual(response.data, { updated: 4, skipped: 0, failed: [] });
    const rows = await ctx.service.db.query<{ status: string; acknowledged_by: string | null; acknowledged_at: Date | null; id: string }>(
      `SELECT id, status, acknowledged_by, acknowledged_at FROM alerts WHERE rule_id = $1 AND host = 'scan-0'`,
      [world.rules.scan],
    );
    assert.ok(rows.every((r) => r.status === 'false_positive' && r.acknowledged_by === 'volume-analyst' && r.acknowledged_at !== null));
    const changes = await ctx.service.db.query<{ status: string }>('SELECT status FROM alert_changes WHERE alert_id = $1 ORDER BY seq', [rows[0].id]);
    assert.deepEqual(changes.map((c) => c.status).slice(-2), ['acknowledged', 'false_positive']);

    // One alert by PATCH: 409 without acknowledge_first, two audit entries with it.
    const id = world.alerts.loginCarol;
    assertError(await world.analyst.patch(`/api/alerts/${id}`, { status: 'resolved' }), 409, 'Invalid status transition from new to resolved');
    const closed = await world.analyst.patch(`/api/alerts/${id}`, { status: 'resolved', acknowledge_first: true });
    assert.equal(closed.statusCode, 200, closed.body);
    assert.equal(closed.data.status, 'resolved');
    assert.equal(closed.data.acknowledged_by, 'volume-analyst');
    const audit = await ctx.service.db.query<{ details: Json }>(`SELECT details FROM audit_log WHERE target_id = $1 AND action = 'alert.status_changed' ORDER BY created_at, id`, [id]);
    // Both entries carry the transaction's time, so they are compared in the order of the moves.
    const moves = audit.map((a) => [a.details.from, a.details.to]).sort((x, y) => (x[0] === y[1] ? 1 : y[0] === x[1] ? -1 : 0));
    assert.deepEqual(moves, [['new', 'acknowledged'], ['acknowledged', 'resolved']]);
  });

  test('bulk requests name either ids or a filter, and a status or an assignee', async () => {
    assertError(await world.analyst.post('/api/alerts/bulk/status', { status: 'acknowledged' }), 400, 'Give either ids or filter');
    assertError(await world.analyst.post('/api/alerts/bulk/status', { ids: [NIL_UUID], filter: {}, status: 'acknowledged' }), 400, 'Give either ids or filter');
    const nothing = await world.analyst.post('/api/alerts/bulk/status', { filter: {} });
    assertError(nothing, 400, 'Invalid status value');
    assert.deepEqual(nothing.data.errors, [{ field: 'body.status', message: 'is required unless an assignee is given' }]);
    const bad = await world.analyst.post('/api/alerts/bulk/status', { filter: { severity: 'urgent' }, status: 'acknowledged' });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.equal(bad.data.errors[0].field, 'body.filter.severity');
    assertError(await world.viewer.post('/api/alerts/bulk/status', { filter: {}, status: 'acknowledged' }), 403, /permission/i);
  });

  test('an alert is assigned, listed by assignee, and unassigned; only users who can triage may own one', async () => {
    const id = world.alerts.procBob;
    const given = await world.analyst.patch(`/api/alerts/${id}`, { assignee: secondId });
    assert.equal(given.statusCode, 200, given.body);
    assert.equal(given.data.assignee, secondId);
    assert.equal(given.data.status, 'new', 'the status is unchanged');
    const read = await world.viewer.get(`/api/alerts/${id}`);
    assert.equal(read.data.assignee, secondId);
    assert.equal(read.data.assignee_name, 'volume-second');
    const mine = await second.get('/api/alerts?assignee=me');
    assert.deepEqual(mine.data.items.map((a: Json) => a.id), [id]);
    assert.equal(mine.data.total, 1);
    assert.deepEqual((await world.viewer.get(`/api/alerts?assignee=${secondId}`)).data.items.map((a: Json) => a.id), [id]);
    const unassigned = await world.viewer.get('/api/alerts?assignee=none&page_size=100');
    assert.equal(unassigned.data.items.some((a: Json) => a.id === id), false);
    assert.equal(unassigned.data.total, (await world.viewer.get('/api/alerts')).data.total - 1);
    assertError(await world.viewer.get('/api/alerts?assignee=someone'), 400, 'Invalid request');

    const notTriage = await world.analyst.patch(`/api/alerts/${id}`, { assignee: viewerId });
    assertError(notTriage, 422, 'Validation failed');
    assert.deepEqual(notTriage.data.errors, [{ field: 'body.assignee', message: 'must be an active user with the analyst or admin role' }]);
    assertError(await world.analyst.patch(`/api/alerts/${id}`, { assignee: NIL_UUID }), 422, 'Validation failed');
    assertError(await world.analyst.patch(`/api/alerts/${id}`, {}), 400, 'Invalid status value');

    const cleared = await world.analyst.patch(`/api/alerts/${id}`, { assignee: null });
    assert.equal(cleared.data.assignee, null);
    const audit = await ctx.service.db.query<{ details: Json }>(`SELECT details FROM audit_log WHERE target_id = $1 AND action = 'alert.assigned' ORDER BY created_at, id`, [id]);
    assert.deepEqual(audit.map((a) => [a.details.from, a.details.to]), [[null, secondId], [secondId, null]]);
  });

  test('assignees in bulk, and alerts taken on acknowledge when the user chose so', async () => {
    const bulk = await world.analyst.post('/api/alerts/bulk/status', { filter: { rule_id: world.rules.scan, host: 'scan-1' }, assignee: analystId });
    assert.deepEqual(bulk.data, { updated: 4, skipped: 0, failed: [] });
    assert.equal((await world.viewer.get(`/api/alerts?assignee=${analystId}`)).data.total, 4);

    const me = await second.patch('/api/auth/me', { assign_on_acknowledge: true });
    assert.equal(me.statusCode, 200, me.body);
    assert.equal(me.data.assign_on_acknowledge, true);
    assert.equal((await second.get('/api/auth/me')).data.assign_on_acknowledge, true);
    const acknowledged = await second.patch(`/api/alerts/${world.alerts.loginAlice}`, { status: 'acknowledged' });
    assert.equal(acknowledged.data.assignee, secondId);
    // An alert someone owns stays theirs.
    const owned = (await ctx.service.db.query<{ id: string }>(`SELECT id FROM alerts WHERE assignee = $1 AND status = 'acknowledged' LIMIT 1`, [analystId]))[0];
    if (owned) {
      await second.patch(`/api/alerts/${owned.id}`, { status: 'new' });
      assert.equal((await second.patch(`/api/alerts/${owned.id}`, { status: 'acknowledged' })).data.assignee, analystId);
    }
  });

  test('groups by host, rule, user and source IP under the filters', async () => {
    const byHost = await world.viewer.get(`/api/alerts/groups?by=host&rule_id=${world.rules.scan}`);
    assert.equal(byHost.statusCode, 200, byHost.body);
    assert.equal(byHost.data.total, 4);
    assert.deepEqual(byHost.data.items.map((g: Json) => [g.key, g.count]), [['scan-0', 4], ['scan-1', 4], ['scan-2', 4], [null, 1]]);
    assert.equal(byHost.data.items[3].label, '(none)');
    assert.equal(byHost.data.items[0].max_severity, 'low');
    assert.ok(Date.parse(byHost.data.items[0].first_seen) <= Date.parse(byHost.data.items[0].last_seen));

    const byRule = await world.viewer.get('/api/alerts/groups?by=rule_id&limit=2');
    assert.equal(byRule.data.total, 4);
    assert.equal(byRule.data.items.length, 2);
    assert.deepEqual(byRule.data.items[0], { ...byRule.data.items[0], key: world.rules.scan, label: 'Gamma Scan', count: 13 });
    const bySource = await world.viewer.get('/api/alerts/groups?by=source_ip&status=false_positive');
    assert.deepEqual(bySource.data.items.map((g: Json) => [g.key, g.count]), [['10.9.0.0', 4]]);
    const byUser = await world.viewer.get('/api/alerts/groups?by=user&assignee=none');
    assert.equal(byUser.statusCode, 200, byUser.body);

    // Groups by rule under the filters alert_counts keeps are counted there: the same answer as counting the alerts.
    for (const filter of ['', 'status=new', 'severity=low', 'status=false_positive&index_pattern=' + encodeURIComponent(world.win.name), 'event_after=2000-01-01T00:00:00Z']) {
      const answer = await world.viewer.get(`/api/alerts/groups?by=rule_id&${filter}`);
      assert.equal(answer.statusCode, 200, answer.body);
      const params = new URLSearchParams(filter);
      const rows = await ctx.service.db.query<{ key: string; count: number; first_seen: Date; last_seen: Date }>(
        `SELECT rule_id::text AS key, count(*)::int AS count, min(created_at) AS first_seen, max(coalesce(last_seen_at, created_at)) AS last_seen FROM alerts
          WHERE ($1::text IS NULL OR status = $1) AND ($2::text IS NULL OR severity = $2) AND ($3::text IS NULL OR index_pattern = $3)
          GROUP BY 1 ORDER BY count(*) DESC, 1`,
        [params.get('status'), params.get('severity'), params.get('index_pattern')],
      );
      assert.deepEqual(
        answer.data.items.map((g: Json) => [g.key, g.count, g.first_seen, g.last_seen]),
        rows.map((r) => [r.key, r.count, r.first_seen.toISOString(), r.last_seen.toISOString()]),
        filter,
      );
      assert.equal(answer.data.total, rows.length, filter);
      if (filter !== 'status=new') assert.ok(rows.length > 0, `${filter} groups some alerts`);
    }

    const unknown = await world.viewer.get('/api/alerts/groups?by=severity');
    assertError(unknown, 400, 'Invalid request');
    assert.deepEqual(unknown.data.errors, [{ field: 'query.by', message: 'must be one of: rule_id, host, user, source_ip' }]);
  });
});

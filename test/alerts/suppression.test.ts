// Alert suppression per rule: PUT/GET/DELETE /api/rules/{id}/suppression (validated, audited, analysts
// only); while a group's alert is open and younger than the window, further matches of the group add
// occurrences to it (last seen moves, events linked and listed) instead of raising alerts; re-delivered
// events never count twice; a closed alert or an expired window opens a new alert; other groups and
// other rules are untouched; correlation alerts follow the same setting; stats count what was folded.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase, type Client } from '../helpers/service.js';
import { assertError, createRule, equalsRule, ingest, NIL_UUID, setUpTeam, userAs, type CreatedPattern, type Json } from '../rules/fixtures.js';
import { bruteForce, FAILED_LOGON } from '../correlation/rules.js';

describeEachDatabase('alert suppression', (ctx) => {
  let admin: Client;
  let analyst: Client;
  let viewer: Client;
  let pattern: CreatedPattern;
  let ruleId: string;
  let otherRuleId: string;

  before(async () => {
    ({ admin, analyst, viewer, pattern } = await setUpTeam(ctx.service, 'suri', 'vaughn', { name: 'win', is_default: true }));
    ruleId = (await createRule(analyst, { yaml_content: equalsRule('Noisy Logon', 'Action', 'logon', 'high'), deploy: true })).id as string;
    otherRuleId = (await createRule(analyst, { yaml_content: equalsRule('Quiet Scan', 'Action', 'scan', 'low'), deploy: true })).id as string;
  });

  const alertsOf = (id: string) => ctx.service.db.query<Record<string, Json>>('SELECT * FROM alerts WHERE rule_id = $1 ORDER BY created_at, id', [id]);
  const logon = (n: number, host = 'ws-01', user = 'alice') => ({ Action: 'logon', Computer: host, User: user, n });

  test('the setting is validated, read back, audited, and refused to viewers', async () => {
    assertError(await analyst.get(`/api/rules/${ruleId}/suppression`), 404, 'This rule has no suppression');
    assertError(await analyst.put(`/api/rules/${NIL_UUID}/suppression`, { group_by: ['host'], window_seconds: 60 }), 404, 'Rule not found');
    for (const body of [
      { group_by: [], window_seconds: 60 },
      { group_by: ['host'], window_seconds: 0 },
      { group_by: ['host'], window_seconds: 30 * 24 * 3600 + 1 },
      { group_by: ['host', 'host'], window_seconds: 60 },
      { group_by: ['  '], window_seconds: 60 },
      { group_by: ['a', 'b', 'c', 'd', 'e', 'f'], window_seconds: 60 },
      { group_by: ['host'] },
      { group_by: ['host'], window_seconds: 60, extra: 1 },
    ]) {
      const response = await analyst.put(`/api/rules/${ruleId}/suppression`, body);
      assert.equal(response.statusCode, 400, `${JSON.stringify(body)}: ${response.body}`);
      assert.ok(response.data.errors?.length > 0, response.body);
    }
    assertError(await viewer.put(`/api/rules/${ruleId}/suppression`, { group_by: ['host'], window_seconds: 60 }), 403, /permission/i);
    assertError(await analyst.get(`/api/rules/${ruleId}/suppression`), 404, 'This rule has no suppression');

    const set = await analyst.put(`/api/rules/${ruleId}/suppression`, { group_by: ['host', 'user'], window_seconds: 3600 });
    assert.equal(set.statusCode, 200, set.body);
    assert.deepEqual({ ...set.data, updated_at: undefined }, { rule_id: ruleId, group_by: ['host', 'user'], window_seconds: 3600, updated_by: 'suri', updated_at: undefined });
    const read = await viewer.get(`/api/rules/${ruleId}/suppression`);
    assert.equal(read.statusCode, 200, read.body);
    assert.deepEqual(read.data, set.data);
    const audit = await admin.get('/api/audit?action=rule.suppression_set');
    assert.equal(audit.statusCode, 200, audit.body);
    assert.equal(audit.data.items[0]?.target_id, ruleId, audit.body);
  });

  test('matches of one group fold into its open alert: occurrences, last seen and the events', async () => {
    const first = await ingest(ctx.service, pattern, [logon(1), logon(2), logon(3, 'ws-02'), { Action: 'scan', n: 1 }]);
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.data.alerts_created, 3, first.body);
    let rows = await alertsOf(ruleId);
    assert.equal(rows.length, 2);
    const ws01 = rows.find((r) => r.host === 'ws-01')!;
    assert.equal(ws01.occurrences, 2);
    assert.deepEqual(ws01.suppression_group, { host: 'ws-01', user: 'alice' });
    assert.equal(rows.find((r) => r.host === 'ws-02')!.occurrences, 1);

    const later = await ingest(ctx.service, pattern, [logon(4), logon(5), logon(6, 'ws-01', 'bob')]);
    assert.equal(later.data.alerts_created, 1, later.body);
    rows = await alertsOf(ruleId);
    assert.equal(rows.length, 3);
    const detail = await analyst.get(`/api/alerts/${ws01.id}`);
    assert.equal(detail.statusCode, 200, detail.body);
    assert.equal(detail.data.occurrences, 4);
    assert.ok(Date.parse(detail.data.last_seen_at) > Date.parse(detail.data.created_at), detail.body);
    assert.deepEqual(detail.data.suppression_group, { host: 'ws-01', user: 'alice' });
    assert.equal(detail.data.event_ids.length, 4);
    assert.equal(detail.data.event_ids[0], ws01.event_hash);
    assert.equal(new Set(detail.data.event_ids).size, 4);
    const listed = await analyst.get(`/api/alerts?rule_id=${ruleId}&host=ws-01&user=alice`);
    assert.equal(listed.data.items[0].occurrences, 4, listed.body);
    assert.equal(listed.data.items[0].last_seen_at, detail.data.last_seen_at);

    // The other rule has no suppression: each match is an alert.
    assert.equal((await ingest(ctx.service, pattern, [{ Action: 'scan', n: 2 }])).data.alerts_created, 1);
    assert.equal((await alertsOf(otherRuleId)).length, 2);
  });

  test('re-delivered events, the first one included, never count twice', async () => {
    const [before] = (await alertsOf(ruleId)).filter((r) => r.host === 'ws-01' && r.user === 'alice');
    const again = await ingest(ctx.service, pattern, [logon(1), logon(2), logon(5), logon(5)]);
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.data.alerts_created, 0);
    const [after] = (await alertsOf(ruleId)).filter((r) => r.host === 'ws-01' && r.user === 'alice');
    assert.equal(after.occurrences, before.occurrences);
    assert.equal(after.id, before.id);
  });

  test('stats count the folded matches', async () => {
    const stats = await analyst.get('/api/stats');
    assert.equal(stats.statusCode, 200, stats.body);
    assert.equal(stats.data.alerts.suppressed, 3, stats.body);
  });

  test('a closed alert or an expired window opens a new alert for the group', async () => {
    const [open] = (await alertsOf(ruleId)).filter((r) => r.host === 'ws-02');
    assert.equal((await analyst.patch(`/api/alerts/${open.id}`, { status: 'acknowledged' })).statusCode, 200);
    // Acknowledged is still open: the group's matches keep folding into it.
    assert.equal((await ingest(ctx.service, pattern, [logon(9, 'ws-02')])).data.alerts_created, 0);
    assert.equal((await analyst.patch(`/api/alerts/${open.id}`, { status: 'resolved' })).statusCode, 200);
    assert.equal((await ingest(ctx.service, pattern, [logon(10, 'ws-02')])).data.alerts_created, 1);
    // The window counts from the alert's creation: an alert older than it takes nothing more.
    await ctx.service.db.query(`UPDATE alerts SET created_at = created_at - interval '2 hours' WHERE rule_id = $1 AND host = 'ws-01' AND "user" = 'alice'`, [ruleId]);
    assert.equal((await ingest(ctx.service, pattern, [logon(11)])).data.alerts_created, 1);
    const ws01 = (await alertsOf(ruleId)).filter((r) => r.host === 'ws-01' && r.user === 'alice');
    assert.deepEqual(ws01.map((r) => r.occurrences).sort(), [1, 4]);
  });

  test('a group-by field read from the event, and deleting the setting', async () => {
    const set = await analyst.put(`/api/rules/${ruleId}/suppression`, { group_by: ['Target.Name'], window_seconds: 600 });
    assert.equal(set.statusCode, 200, set.body);
    const response = await ingest(ctx.service, pattern, [
      { Action: 'logon', Target: { Name: 'db-1' }, n: 20 },
      { Action: 'logon', Target: { Name: 'db-1' }, n: 21, Computer: 'other' },
      { Action: 'logon', n: 22 },
      { Action: 'logon', n: 23 },
    ]);
    assert.equal(response.data.alerts_created, 2, response.body);
    const groups = (await alertsOf(ruleId)).filter((r) => r.suppression_group && 'Target.Name' in r.suppression_group);
    assert.deepEqual(groups.map((r) => [r.suppression_group['Target.Name'], r.occurrences]).sort(), [[null, 2], ['db-1', 2]]);

    assertError(await viewer.delete(`/api/rules/${ruleId}/suppression`), 403, /permission/i);
    const deleted = await analyst.delete(`/api/rules/${ruleId}/suppression`);
    assert.equal(deleted.statusCode, 204, deleted.body);
    assertError(await analyst.delete(`/api/rules/${ruleId}/suppression`), 404, 'This rule has no suppression');
    assert.equal((await ingest(ctx.service, pattern, [logon(30), logon(31)])).data.alerts_created, 2);
  });

  test('correlation alerts follow the same setting', async () => {
    const team = await userAs(admin, 'analyst', 'corra');
    await createRule(team, { yaml_content: FAILED_LOGON });
    const correlation = (await createRule(team, { yaml_content: bruteForce(), deploy: true })).id as string;
    const set = await team.put(`/api/rules/${correlation}/suppression`, { group_by: ['TargetUserName'], window_seconds: 86400 });
    assert.equal(set.statusCode, 200, set.body);
    const failed = (user: string, minute: number) => ({ '@timestamp': `2026-11-20T10:${String(minute).padStart(2, '0')}:00Z`, EventID: 4625, TargetUserName: user });
    // Three windows of user eve (each three failures, 10 minutes apart) and one of frank.
    const events = [0, 1, 2, 10, 11, 12, 20, 21, 22].map((m) => failed('eve', m)).concat([0, 1, 2].map((m) => failed('frank', m)));
    assert.equal((await ingest(ctx.service, pattern, events)).statusCode, 200);
    const rows = await alertsOf(correlation);
    assert.deepEqual(rows.map((r) => [r.suppression_group?.TargetUserName, r.occurrences]).sort(), [['eve', 3], ['frank', 1]]);
  });
});

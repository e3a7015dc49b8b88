// Detection on ingest: an event matching a deployed rule becomes one alert (rule metadata, entities,
// matched conditions, the stored event); exceptions suppress; undeployed rules stop; re-delivery of the
// same event never adds an alert nor resets an existing alert's triage.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase, loginAdmin, type Client } from '../helpers/service.js';
import { countRows, createRule, ingest, setUpTeam, sigma, type CreatedPattern } from '../rules/fixtures.js';

describeEachDatabase('detection on ingest', (ctx) => {
  let analyst: Client;
  let pattern: CreatedPattern;
  let ruleId: string;

  before(async () => {
    ({ analyst, pattern } = await setUpTeam(ctx.service, 'dana', 'vic', { name: 'win', is_default: true }));
    const rule = await createRule(analyst, { yaml_content: sigma({ tags: ['attack.discovery', 'attack.t1033'] }), deploy: true });
    ruleId = rule.id;
  });

  const alertRows = () =>
    ctx.service.db.query<Record<string, unknown>>('SELECT * FROM alerts WHERE rule_id = $1 ORDER BY created_at', [ruleId]);

  test('a matching event raises one alert with the rule, entities and the selection that held', async () => {
    const event = {
      '@timestamp': '2026-11-01T10:00:00Z',
      Image: 'C:\\Windows\\System32\\whoami.exe',
      User: 'alice',
      Computer: 'ws-01.corp',
      SourceIp: '10.1.2.3',
    };
    const response = await ingest(ctx.service, pattern, [event, { Image: 'C:\\notepad.exe', User: 'bob' }]);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.data.accepted, 2);
    assert.equal(response.data.alerts_created, 1);
    const [alert] = await alertRows();
    assert.equal(alert.rule_title, 'Whoami Execution');
    assert.equal(alert.severity, 'high');
    assert.equal(alert.level, 'high');
    assert.equal(alert.status, 'new');
    assert.deepEqual(alert.tags, ['attack.discovery', 'attack.t1033']);
    assert.equal(alert.index_pattern, 'win');
    assert.equal(alert.user, 'alice');
    assert.equal(alert.host, 'ws-01.corp');
    assert.equal(alert.source_ip, '10.1.2.3');
    assert.deepEqual(alert.event, event);
    assert.deepEqual(alert.matched_conditions, [{ selection: { Image: 'C:\\Windows\\System32\\whoami.exe' } }]);
    assert.equal((alert.event_time as Date).toISOString(), '2026-11-01T10:00:00.000Z');
  });

  test('re-delivering the same event adds no alert and keeps the triage state', async () => {
    const event = { '@timestamp': '2026-11-01T11:00:00Z', Image: 'C:\\whoami.exe', User: 'carol' };
    assert.equal((await ingest(ctx.service, pattern, [event])).data.alerts_created, 1);
    await ctx.service.db.query(`UPDATE alerts SET status = 'acknowledged' WHERE event->>'User' = 'carol'`);
    const again = await ingest(ctx.service, pattern, [event, event]);
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.data.alerts_created, 0);
    const rows = (await alertRows()).filter((a) => (a.event as { User: string }).User === 'carol');
    assert.equal(rows.length, 1);
    assert.equal(rows[0].status, 'acknowledged');
  });

  test('an enabled exception suppresses the alert; the event is still stored', async () => {
    const created = await analyst.post(`/api/rules/${ruleId}/exceptions`, { field: 'User', operator: 'equals', value: 'svc-backup', reason: 'backup job' });
    assert.equal(created.statusCode, 201, created.body);
    const response = await ingest(ctx.service, pattern, [{ Image: 'C:\\whoami.exe', User: 'SVC-BACKUP', n: 1 }]);
    assert.equal(response.data.accepted, 1);
    assert.equal(response.data.alerts_created, 0);
  });

  test('an undeployed rule raises nothing on the next event; deployed again, it does', async () => {
    assert.equal((await analyst.post(`/api/rules/${ruleId}/undeploy`)).statusCode, 200);
    assert.equal((await ingest(ctx.service, pattern, [{ Image: 'C:\\whoami.exe', User: 'erin' }])).data.alerts_created, 0);
    assert.equal((await analyst.post(`/api/rules/${ruleId}/deploy`)).statusCode, 200);
    assert.equal((await ingest(ctx.service, pattern, [{ Image: 'C:\\whoami.exe', User: 'frank' }])).data.alerts_created, 1);
  });

  test('an event with a lone surrogate is rejected alone; the rest of its batch is stored and matched', async () => {
    const body = `[{"Image":"C:\\\\whoami.exe","User":"gina"},{"Image":"C:\\\\whoami.exe","User":"\\ud800"},{"ok":true}]`;
    const response = await ctx.service.app.inject({
      method: 'POST',
      url: `/api/logs/${pattern.name}`,
      payload: body,
      headers: { authorization: `Bearer ${pattern.ingest_token}`, 'content-type': 'application/json' },
    });
    assert.equal(response.statusCode, 200, response.body);
    const data = JSON.parse(response.body);
    assert.equal(data.accepted, 2);
    assert.equal(data.alerts_created, 1);
    assert.deepEqual(data.errors.map((e: { index: number }) => e.index), [1]);
    assert.match(data.errors[0].error, /surrogate/);
    assert.equal(await countRows(ctx.service, `events WHERE event->>'User' = 'gina'`, []), 1);
  });

  test("events in evtx_dump's shape are flattened by a sigma-native pattern, for ingest and for rule tests alike", async () => {
    const admin = analyst;
    const adminClient = await loginAdmin(ctx.service);
    const evtxPattern = await adminClient.post('/api/index_patterns', { name: 'evtx', preset: 'sigma-native' });
    assert.equal(evtxPattern.statusCode, 201, evtxPattern.body);
    const rule = await createRule(admin, { yaml_content: sigma({ title: 'Whoami evtx' }), index_pattern: 'evtx', deploy: true });
    const event = {
      Event: {
        System: { EventID: 1, Computer: 'dc-01', Channel: 'Microsoft-Windows-Sysmon/Operational' },
        EventData: { Image: 'C:\\Windows\\System32\\whoami.exe', User: 'CORP\\mallory' },
      },
    };
    const response = await ingest(ctx.service, evtxPattern.data, [event]);
    assert.equal(response.data.alerts_created, 1, response.body);
    const [alert] = await ctx.service.db.query<Record<string, unknown>>('SELECT * FROM alerts WHERE rule_id = $1', [rule.id]);
    assert.deepEqual(alert.event, event, 'the alert keeps the event as it was sent');
    assert.equal(alert.host, 'dc-01');
    assert.deepEqual(alert.matched_conditions, [{ selection: { Image: 'C:\\Windows\\System32\\whoami.exe' } }]);
    const tested = await admin.post(`/api/rules/${rule.id}/test`, { sample_log: event });
    assert.equal(tested.data.matches, true, tested.body);
  });
});

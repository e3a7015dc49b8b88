// Correlation rules through the service: created and deployed through the rules API (their rules
// deployed with them), fed by ingest in event time, one alert per window with its group, window, value
// and contributing events; `generate` decides whether the referenced rules alert too.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase, type Client } from '../helpers/service.js';
import { assertError, createRule, ingest, setUpTeam, type CreatedPattern, type Json } from '../rules/fixtures.js';
import { bruteForce, FAILED_LOGON } from './rules.js';

const at = (minute: number, second = 0) => `2026-11-20T10:${String(minute).padStart(2, '0')}:${String(second).padStart(2, '0')}Z`;
const failed = (user: string, minute: number, second = 0, extra: Record<string, unknown> = {}) => ({ '@timestamp': at(minute, second), EventID: 4625, TargetUserName: user, Computer: 'dc-01', ...extra });

describeEachDatabase('correlation rules on ingest', (ctx) => {
  let analyst: Client;
  let pattern: CreatedPattern;
  let baseId: string;
  let correlationId: string;

  before(async () => {
    ({ analyst, pattern } = await setUpTeam(ctx.service, 'cora', 'vera', { name: 'win', is_default: true }));
    baseId = (await createRule(analyst, { yaml_content: FAILED_LOGON })).id as string;
  });

  const alertsOf = (ruleId: string) =>
    ctx.service.db.query<Record<string, Json>>('SELECT * FROM alerts WHERE rule_id = $1 ORDER BY event_time, created_at', [ruleId]);

  test('a correlation referencing no stored rule is refused with the missing reference', async () => {
    const response = await analyst.post('/api/rules', { yaml_content: bruteForce().replace('- failed_logon', '- no_such_rule') });
    assertError(response, 422, 'Validation failed');
    assert.deepEqual(response.data.errors, [{ field: 'correlation.rules[0]', message: "rule 'no_such_rule' does not exist (no stored rule has this Sigma id or name)" }]);
  });

  test('created as a correlation rule; deploying it deploys the rule it references', async () => {
    const created = await createRule(analyst, { yaml_content: bruteForce() });
    correlationId = created.id as string;
    assert.equal(created.rule_type, 'correlation');
    assert.equal(created.sigma_name, 'brute_force');
    assert.equal(created.severity, 'high');
    const deployed = await analyst.post(`/api/rules/${correlationId}/deploy`);
    assert.equal(deployed.statusCode, 200, deployed.body);
    assert.equal(deployed.data.status, 'deployed');
    const base = await analyst.get(`/api/rules/${baseId}`);
    assert.equal(base.data.status, 'deployed');
  });

  test('the third failed logon of a user within 5 minutes raises one correlation alert; the base rule does not alert (generate: false)', async () => {
    const response = await ingest(ctx.service, pattern, [failed('alice', 0), failed('bob', 1), failed('alice', 2), failed('alice', 4, 59), failed('alice', 5)]);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.data.alerts_created, 1, response.body);
    assert.equal((await alertsOf(baseId)).length, 0);
    const [alert] = await alertsOf(correlationId);
    assert.equal(alert.rule_title, 'Many Failed Logons For One User');
    assert.equal(alert.severity, 'high');
    assert.deepEqual(alert.correlation.group, { TargetUserName: 'alice' });
    assert.equal(alert.correlation.value, 3);
    assert.equal(alert.correlation.window_start, '2026-11-20T10:00:00.000Z');
    assert.equal(alert.correlation.window_end, '2026-11-20T10:04:59.000Z');
    assert.equal(alert.correlation.event_ids.length, 3);
    assert.deepEqual(alert.correlation.base_alert_ids, []);
    assert.equal((alert.event_time as Date).toISOString(), '2026-11-20T10:04:59.000Z');
    const detail = await analyst.get(`/api/alerts/${alert.id}`);
    assert.equal(detail.statusCode, 200, detail.body);
    assert.equal(detail.data.correlation.value, 3);
    assert.deepEqual(detail.data.event.correlation.group, { TargetUserName: 'alice' });
  });

  test('re-delivered events are not counted again', async () => {
    const again = await ingest(ctx.service, pattern, [failed('alice', 0), failed('alice', 2), failed('alice', 4, 59)]);
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.data.alerts_created, 0);
  });

  test('a rule a deployed correlation uses cannot be undeployed; the correlation can', async () => {
    assertError(await analyst.post(`/api/rules/${baseId}/undeploy`), 409, /deployed correlation rules use it \('Many Failed Logons For One User'\)/);
    assert.equal((await analyst.post(`/api/rules/${correlationId}/undeploy`)).statusCode, 200);
    assert.equal((await analyst.post(`/api/rules/${baseId}/undeploy`)).statusCode, 200);
  });

  test('with generate: true the referenced rule alerts too, and the correlation alert names those alerts', async () => {
    const updated = await analyst.put(`/api/rules/${correlationId}`, { yaml_content: bruteForce('generate: true\n') });
    assert.equal(updated.statusCode, 200, updated.body);
    assert.equal((await analyst.post(`/api/rules/${correlationId}/deploy`)).statusCode, 200);
    const response = await ingest(ctx.service, pattern, [failed('dave', 20), failed('dave', 21), failed('dave', 22)]);
    assert.equal(response.data.alerts_created, 4, response.body);
    const [alert] = (await alertsOf(correlationId)).filter((a) => a.correlation.group.TargetUserName === 'dave');
    assert.equal(alert.correlation.base_alert_ids.length, 3);
  });

  test('POST /api/rules/test runs unsaved correlation YAML over a list of sample events', async () => {
    const response = await analyst.post('/api/rules/test', {
      yaml_content: bruteForce(),
      sample_log: [failed('erin', 30), failed('erin', 36), failed('erin', 31), failed('erin', 32), { '@timestamp': at(33), EventID: 4624, TargetUserName: 'erin' }],
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.data.matches, true);
    assert.deepEqual(response.data.firings, [
      { group: { TargetUserName: 'erin' }, window_start: '2026-11-20T10:30:00.000Z', window_end: '2026-11-20T10:32:00.000Z', value: 3, event_count: 3, events: [0, 2, 3] },
    ]);
    const one = await analyst.post('/api/rules/test', { yaml_content: bruteForce(), sample_log: failed('erin', 30) });
    assert.equal(one.statusCode, 200, one.body);
    assert.equal(one.data.matches, false);
    assert.deepEqual(one.data.firings, []);
    assertError(await analyst.post('/api/rules/test', { yaml_content: bruteForce(), sample_log: [1] }), 400, /^Invalid sample log format: every event must be a JSON object/);
  });

  test('POST /api/rules/{id}/test and the historical dry run answer what a stored correlation would fire', async () => {
    const tested = await analyst.post(`/api/rules/${correlationId}/test`, { sample_log: [failed('fay', 40), failed('fay', 41), failed('fay', 42)] });
    assert.equal(tested.statusCode, 200, tested.body);
    assert.equal(tested.data.rule_id, correlationId);
    assert.equal(tested.data.firings.length, 1);
    const now = Date.now();
    const recent = (secondsAgo: number, user: string) => ({ '@timestamp': new Date(now - secondsAgo * 1000).toISOString(), EventID: 4625, TargetUserName: user });
    assert.equal((await ingest(ctx.service, pattern, [recent(100, 'gil'), recent(90, 'gil'), recent(80, 'gil'), recent(70, 'hal')])).statusCode, 200);
    const history = await analyst.post(`/api/rules/${correlationId}/test/historical`, { time_range: '1h', limit: 10 });
    assert.equal(history.statusCode, 200, history.body);
    assert.equal(history.data.matches, 1);
    assert.deepEqual(history.data.sample_matches[0].group, { TargetUserName: 'gil' });
    assert.equal(history.data.sample_matches[0].event_count, 3);
  });

  test('a request of several chunks is matched in event-time order: its oldest events, sent last, still count', async () => {
    assert.equal((await analyst.post(`/api/rules/${correlationId}/deploy`)).statusCode, 200);
    const noise = Array.from({ length: 1200 }, (_, i) => ({ '@timestamp': `2030-01-01T12:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}Z`, EventID: 4625, TargetUserName: `n${i}` }));
    const oldest = [0, 1, 2].map((m) => ({ ...failed('ida', m), '@timestamp': `2030-01-01T11:0${m}:00Z` }));
    const response = await ingest(ctx.service, pattern, [...noise, ...oldest]);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.data.accepted, 1203);
    const fired = (await alertsOf(correlationId)).filter((a) => a.correlation.group.TargetUserName === 'ida');
    assert.equal(fired.length, 1);
  });
});

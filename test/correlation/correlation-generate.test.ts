// Which rules alert beside a correlation: the rules a deployed correlation uses without `generate: true`
// raise no alert of their own, other rules of the pattern alert as before; `generate: true` (top level or,
// as pySigma reads it, inside `correlation`) lets them alert and the correlation alert names their
// alerts; one correlation with it wins over another without; in a chain the outer correlation's
// `generate` decides for the inner one. Also: references in another case, an "at most" condition
// (fires at the first event), and the alert read through the alerts API.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase, type Client } from '../helpers/service.js';
import { setUpTeam } from '../rules/fixtures.js';
import { alertsOf, at, correlation, detection, event, newPattern, scenario, send, store, deploy } from './scenario.js';

describeEachDatabase('which rules alert beside a correlation', (ctx) => {
  let admin: Client;
  let analyst: Client;

  before(async () => {
    ({ admin, analyst } = await setUpTeam(ctx.service, 'gwen', 'gus', { name: 'generate-default', is_default: true }));
  });

  const failed = (seconds: number, User: string) => event(seconds, { EventID: 4625, User, Computer: 'dc-1' });

  test('a rule no correlation uses alerts as before, beside a silenced one', async () => {
    const pattern = await newPattern(admin);
    const [used, other] = await store(analyst, pattern, detection('gen_used', { EventID: 4625 }), detection('gen_other', { EventID: 4625 }));
    const [id] = await store(analyst, pattern, correlation({ title: 'Uses one', type: 'event_count', rules: ['gen_used'], timespan: '5m', condition: { gte: 2 } }));
    await deploy(analyst, id);
    await deploy(analyst, other);
    const response = await send(ctx.service, pattern, [failed(0, 'a'), failed(10, 'b')]);
    assert.equal(response.data.alerts_created, 3, response.body);
    assert.equal((await alertsOf(ctx.service, used)).length, 0);
    assert.equal((await alertsOf(ctx.service, other)).length, 2);
    assert.equal((await alertsOf(ctx.service, id)).length, 1);
  });

  test('generate: true inside the correlation block (as pySigma reads it) lets the rule alert; the correlation alert names its alerts', async () => {
    const yaml = correlation({ title: 'Inner generate', type: 'event_count', rules: ['gen_inner'], groupBy: ['User'], timespan: '5m', condition: { gte: 2 } }).replace(
      'correlation:\n',
      'correlation:\n  generate: true\n',
    );
    const { pattern, detectionIds, correlationId } = await scenario(admin, analyst, [detection('gen_inner', { EventID: 4625 })], yaml);
    const response = await send(ctx.service, pattern, [failed(0, 'kim'), failed(10, 'kim')]);
    assert.equal(response.data.alerts_created, 3, response.body);
    const base = await alertsOf(ctx.service, detectionIds[0]);
    assert.equal(base.length, 2);
    const [alert] = await alertsOf(ctx.service, correlationId);
    assert.deepEqual([...alert.correlation.base_alert_ids].sort(), base.map((a) => a.id).sort());
  });

  test('a rule used by two correlations alerts when one of them says generate: true', async () => {
    const pattern = await newPattern(admin);
    const [base] = await store(analyst, pattern, detection('gen_shared', { EventID: 4625 }));
    const [quiet, loud] = await store(
      analyst,
      pattern,
      correlation({ title: 'Quiet', type: 'event_count', rules: ['gen_shared'], timespan: '5m', condition: { gte: 5 } }),
      correlation({ title: 'Loud', type: 'event_count', rules: ['gen_shared'], timespan: '5m', condition: { gte: 5 }, generate: true }),
    );
    await deploy(analyst, quiet);
    await deploy(analyst, loud);
    assert.equal((await send(ctx.service, pattern, [failed(0, 'lee')])).data.alerts_created, 1);
    assert.equal((await alertsOf(ctx.service, base)).length, 1);
  });

  // Deploying the outer correlation deploys the inner one: the outer one's generate decides whether it alerts.
  test("in a chain the outer correlation's generate: true lets the inner one alert; the inner one's rule stays silent", async () => {
    const { pattern, detectionIds, correlationId } = await scenario(
      admin,
      analyst,
      [
        detection('gch_failed', { EventID: 4625 }),
        detection('gch_success', { EventID: 4624 }),
        correlation({ title: 'Chain burst', name: 'gch_burst', type: 'event_count', rules: ['gch_failed'], groupBy: ['User'], timespan: '10m', condition: { gte: 2 } }),
      ],
      correlation({ title: 'Chain outer', type: 'temporal_ordered', rules: ['gch_burst', 'gch_success'], groupBy: ['User'], timespan: '10m', generate: true }),
    );
    const [failedRule, successRule, innerId] = detectionIds;
    const response = await send(ctx.service, pattern, [failed(0, 'max'), failed(10, 'max'), event(20, { EventID: 4624, User: 'max' })]);
    assert.equal((await alertsOf(ctx.service, correlationId)).length, 1);
    assert.equal((await alertsOf(ctx.service, successRule)).length, 1);
    assert.equal((await alertsOf(ctx.service, failedRule)).length, 0);
    assert.equal((await alertsOf(ctx.service, innerId)).length, 1, 'the inner correlation alerts (outer generate: true)');
    assert.equal(response.data.alerts_created, 3, response.body);
  });

  test('an inner correlation deployed on its own too alerts only when the outer one says generate: true', async () => {
    for (const generate of [false, true]) {
      const tag = generate ? 'gdy' : 'gdn';
      const { pattern, detectionIds, correlationId } = await scenario(
        admin,
        analyst,
        [
          detection(`${tag}_failed`, { EventID: 4625 }),
          detection(`${tag}_success`, { EventID: 4624 }),
          correlation({ title: `Deployed burst ${tag}`, name: `${tag}_burst`, type: 'event_count', rules: [`${tag}_failed`], groupBy: ['User'], timespan: '10m', condition: { gte: 2 } }),
        ],
        correlation({ title: `Outer ${tag}`, type: 'temporal_ordered', rules: [`${tag}_burst`, `${tag}_success`], groupBy: ['User'], timespan: '10m', generate }),
      );
      const innerId = detectionIds[2];
      await deploy(analyst, innerId);
      await send(ctx.service, pattern, [failed(0, 'nina'), failed(10, 'nina'), event(20, { EventID: 4624, User: 'nina' })]);
      assert.equal((await alertsOf(ctx.service, correlationId)).length, 1, `generate: ${generate}`);
      assert.equal((await alertsOf(ctx.service, innerId)).length, generate ? 1 : 0, `generate: ${generate}`);
    }
  });

  test('references are matched in any case at ingest too', async () => {
    const { pattern, correlationId } = await scenario(
      admin,
      analyst,
      [detection('Gen_Case_Rule', { EventID: 4625 })],
      correlation({ title: 'Any case', type: 'event_count', rules: ['GEN_CASE_RULE'], timespan: '5m', condition: { gte: 2 } }),
    );
    assert.equal((await send(ctx.service, pattern, [failed(0, 'ned'), failed(1, 'ned')])).data.alerts_created, 1);
    assert.equal((await alertsOf(ctx.service, correlationId)).length, 1);
  });

  test('an "at most" condition holds at the first event of a group (and of each new window)', async () => {
    const { pattern, correlationId } = await scenario(
      admin,
      analyst,
      [detection('gen_few', { EventID: 4625 })],
      correlation({ title: 'Few', type: 'event_count', rules: ['gen_few'], groupBy: ['User'], timespan: '5m', condition: { lt: 5 } }),
    );
    const response = await send(ctx.service, pattern, [failed(0, 'olga'), failed(1, 'olga'), failed(2, 'pete')]);
    assert.equal(response.data.alerts_created, 3, response.body);
    const alerts = await alertsOf(ctx.service, correlationId);
    assert.deepEqual(
      alerts.map((a) => [a.correlation.group.User, a.correlation.value, a.correlation.window_end]),
      [
        ['olga', 1, at(0)],
        ['olga', 1, at(1)],
        ['pete', 1, at(2)],
      ],
    );
  });

  test('the correlation alert through the alerts API: its correlation, its event and its entities', async () => {
    const { pattern, correlationId } = await scenario(
      admin,
      analyst,
      [detection('gen_api', { EventID: 4625 })],
      correlation({ title: 'Through the API', type: 'value_count', rules: ['gen_api'], groupBy: ['Computer'], timespan: '5m', condition: { field: 'User', gte: 2 } }),
    );
    await send(ctx.service, pattern, [
      event(0, { EventID: 4625, User: 'quinn', Computer: 'dc-9', SourceIp: '192.0.2.1' }),
      event(5, { EventID: 4625, User: 'rosa', Computer: 'dc-9', SourceIp: '192.0.2.2' }),
    ]);
    const [stored] = await alertsOf(ctx.service, correlationId);
    const detail = await analyst.get(`/api/alerts/${stored.id}`);
    assert.equal(detail.statusCode, 200, detail.body);
    const alert = detail.data;
    assert.equal(alert.rule_id, correlationId);
    assert.equal(alert.rule_title, 'Through the API');
    assert.equal(alert.event_time, at(5));
    assert.deepEqual(alert.correlation.group, { Computer: 'dc-9' });
    assert.equal(alert.correlation.type, 'value_count');
    assert.equal(alert.correlation.value, 2);
    assert.equal(alert.correlation.window_start, at(0));
    assert.equal(alert.correlation.window_end, at(5));
    assert.equal(alert.correlation.event_ids.length, 2);
    assert.deepEqual(alert.event, { correlation: alert.correlation });
    assert.equal(alert.user, 'rosa');
    assert.equal(alert.host, 'dc-9');
    assert.equal(alert.source_ip, '192.0.2.2');
  });
});

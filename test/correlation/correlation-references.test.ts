// What keeps a deployed correlation's references whole: the rules it uses (detection rules, and inner
// correlations of a chain) cannot be undeployed, deleted, renamed or moved to another index pattern
// while it is deployed, and a reference cycle is refused. Also: event time read from the pattern's own
// timestamp field, and a window filled by one request larger than an ingest chunk.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase, type Client } from '../helpers/service.js';
import { assertError, setUpTeam } from '../rules/fixtures.js';
import { alertsOf, at, correlation, detection, deploy, event, newPattern, scenario, send, store, T0 } from './scenario.js';

describeEachDatabase('the references of deployed correlations', (ctx) => {
  let admin: Client;
  let analyst: Client;

  before(async () => {
    ({ admin, analyst } = await setUpTeam(ctx.service, 'rita', 'ralf', { name: 'refs-default', is_default: true }));
  });

  const ruleOf = async (id: string) => (await analyst.get(`/api/rules/${id}`)).data;
  const failed = (seconds: number, User: string) => event(seconds, { EventID: 4625, User });
  const success = (seconds: number, User: string) => event(seconds, { EventID: 4624, User });

  /** A deployed chain: outer temporal_ordered over an inner event_count (deployed with it) and a success rule. */
  async function chain(tag: string) {
    const { pattern, detectionIds, correlationId } = await scenario(
      admin,
      analyst,
      [
        detection(`${tag}_failed`, { EventID: 4625 }),
        detection(`${tag}_success`, { EventID: 4624 }),
        correlation({ title: `Burst ${tag}`, name: `${tag}_burst`, type: 'event_count', rules: [`${tag}_failed`], groupBy: ['User'], timespan: '10m', condition: { gte: 2 } }),
      ],
      correlation({ title: `Outer ${tag}`, type: 'temporal_ordered', rules: [`${tag}_burst`, `${tag}_success`], groupBy: ['User'], timespan: '10m' }),
    );
    const [failedId, successId, innerId] = detectionIds;
    return { pattern, failedId, successId, innerId, outerId: correlationId };
  }

  /** Asserts the chain still fires for a new user at `seconds`. */
  async function stillFires(c: Awaited<ReturnType<typeof chain>>, user: string, seconds: number) {
    const before = (await alertsOf(ctx.service, c.outerId)).length;
    await send(ctx.service, c.pattern, [failed(seconds, user), failed(seconds + 1, user), success(seconds + 2, user)]);
    assert.equal((await alertsOf(ctx.service, c.outerId)).length, before + 1, 'the deployed chain still fires');
  }

  test('a rule a deployed chain references directly cannot be undeployed', async () => {
    const c = await chain('ch0');
    assertError(await analyst.post(`/api/rules/${c.successId}/undeploy`), 409, "The rule cannot be undeployed while deployed correlation rules use it ('Outer ch0'): undeploy them first");
    await stillFires(c, 'u0', 0);
  });

  // Deploying the outer correlation deployed the inner one: it is the deployed correlation that needs the rule.
  test('a rule a deployed chain uses through its inner correlation cannot be undeployed', async () => {
    const c = await chain('ch1');
    assertError(await analyst.post(`/api/rules/${c.failedId}/undeploy`), 409, "The rule cannot be undeployed while deployed correlation rules use it ('Burst ch1'): undeploy them first");
    await stillFires(c, 'u1', 0);
  });

  test('the inner correlation of a deployed chain cannot be deleted', async () => {
    const c = await chain('ch2');
    assertError(await admin.delete(`/api/rules/${c.innerId}`), 409, /deployed correlation rules use it \('Outer ch2'\)/);
    await stillFires(c, 'u2', 0);
  });

  // A change that takes a rule away from the correlations that reference it is refused while they are deployed.
  test('a rule a deployed correlation uses cannot lose the name the correlation references', async () => {
    const c = await chain('ch3');
    const renamed = await analyst.put(`/api/rules/${c.successId}`, { yaml_content: detection('ch3_success_renamed', { EventID: 4624 }) });
    assert.equal(renamed.statusCode, 409, renamed.body);
    await stillFires(c, 'u3', 0);
  });

  test('a rule a deployed correlation uses cannot move to another index pattern', async () => {
    const c = await chain('ch4');
    const other = await newPattern(admin);
    const moved = await analyst.put(`/api/rules/${c.successId}`, { index_pattern: other.name });
    assert.equal(moved.statusCode, 409, moved.body);
    await stillFires(c, 'u4', 0);
  });

  test('a rule of a deployed chain can change its detection (same name): the chain follows the new version', async () => {
    const c = await chain('ch5');
    const changed = await analyst.put(`/api/rules/${c.successId}`, { yaml_content: detection('ch5_success', { EventID: 4648 }) });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.equal(changed.data.status, 'deployed');
    await send(ctx.service, c.pattern, [failed(0, 'u5'), failed(1, 'u5'), success(2, 'u5')]);
    assert.equal((await alertsOf(ctx.service, c.outerId)).length, 0, 'EventID 4624 no longer matches');
    await send(ctx.service, c.pattern, [event(3, { EventID: 4648, User: 'u5' })]);
    assert.equal((await alertsOf(ctx.service, c.outerId)).length, 1);
  });

  test('a correlation in a reference cycle is stored but cannot be deployed', async () => {
    const pattern = await newPattern(admin);
    const [base] = await store(analyst, pattern, detection('cy_base', { EventID: 4625 }));
    const [first] = await store(analyst, pattern, correlation({ title: 'Cycle one', name: 'cy_one', type: 'event_count', rules: ['cy_base'], timespan: '5m', condition: { gte: 2 } }));
    const [second] = await store(analyst, pattern, correlation({ title: 'Cycle two', name: 'cy_two', type: 'event_count', rules: ['cy_one'], timespan: '5m', condition: { gte: 2 } }));
    const cyclic = await analyst.put(`/api/rules/${first}`, {
      yaml_content: correlation({ title: 'Cycle one', name: 'cy_one', type: 'event_count', rules: ['cy_two'], timespan: '5m', condition: { gte: 2 } }),
    });
    assert.equal(cyclic.statusCode, 200, cyclic.body);
    const cycle = 'Validation failed: the correlation references itself, directly or through the correlations it references (a cycle)';
    assertError(await analyst.post(`/api/rules/${second}/deploy`), 400, cycle);
    assertError(await analyst.post(`/api/rules/${first}/deploy`), 400, cycle);
    for (const id of [first, second, base]) assert.equal((await ruleOf(id)).status, 'undeployed');
  });

  // References resolve to the pattern's rules when events arrive: a rule deployed later that answers to one feeds it.
  test('a rule deployed later that answers to a deployed correlation\'s reference feeds it at once', async () => {
    const { pattern, correlationId } = await scenario(
      admin,
      analyst,
      [detection('late_ref', { EventID: 1 })],
      correlation({ title: 'Later rule', type: 'event_count', rules: ['late_ref'], timespan: '5m', condition: { gte: 3 } }),
    );
    await send(ctx.service, pattern, [event(0, { EventID: 1 })]);
    const [second] = await store(analyst, pattern, detection('late_ref', { EventID: 2 }, { title: 'Later rule, second copy' }));
    await deploy(analyst, second);
    await send(ctx.service, pattern, [event(10, { EventID: 2 }), event(20, { EventID: 2 })]);
    assert.equal((await alertsOf(ctx.service, second)).length, 0, 'the rule a correlation uses without generate raises no alert of its own');
    assert.equal((await alertsOf(ctx.service, correlationId)).length, 1);
  });

  test("event time is read from the pattern's timestamp field (epoch seconds here)", async () => {
    const { pattern, correlationId } = await scenario(
      admin,
      analyst,
      [detection('ts_failed', { EventID: 4625 })],
      correlation({ title: 'Own time field', type: 'event_count', rules: ['ts_failed'], groupBy: ['User'], timespan: '1m', condition: { gte: 2 } }),
      { timestamp_field: 'event.created' },
    );
    const at2 = (seconds: number) => ({ EventID: 4625, User: 'tess', event: { created: T0 / 1000 + seconds } });
    assert.equal((await send(ctx.service, pattern, [at2(0), at2(61)])).data.alerts_created, 0, '61 s apart');
    assert.equal((await send(ctx.service, pattern, [at2(121)])).data.alerts_created, 1, '60 s apart');
    const [alert] = await alertsOf(ctx.service, correlationId);
    assert.equal(alert.correlation.window_start, at(61));
    assert.equal(alert.correlation.window_end, at(121));
  });

  test('one request of 2,500 events (three ingest chunks) in event-time order fills windows across the chunks', async () => {
    const { pattern, correlationId } = await scenario(
      admin,
      analyst,
      [detection('big_failed', { EventID: 4625 })],
      correlation({ title: 'Many', type: 'event_count', rules: ['big_failed'], timespan: '1h', condition: { gte: 1200 } }),
    );
    const events = Array.from({ length: 2500 }, (_, i) => failed(i, `user-${i % 7}`));
    const response = await send(ctx.service, pattern, events);
    assert.equal(response.data.alerts_created, 2, response.body);
    const alerts = await alertsOf(ctx.service, correlationId);
    assert.deepEqual(
      alerts.map((a) => [a.correlation.window_start, a.correlation.window_end, a.correlation.value]),
      [
        [at(0), at(1199), 1200],
        [at(1200), at(2399), 1200],
      ],
    );
    // The alert keeps the first 100 contributing events.
    assert.equal(alerts[0].correlation.event_ids.length, 100);
  });

  test('a viewer cannot create or deploy a correlation', async () => {
    const viewer = await (async () => {
      const { viewer: v } = await setUpTeam(ctx.service, 'rv-analyst', 'rv-viewer', { name: 'refs-viewer' });
      return v;
    })();
    const pattern = await newPattern(admin);
    const [, id] = await store(analyst, pattern, detection('vw_base', { EventID: 1 }), correlation({ title: 'Viewer', type: 'event_count', rules: ['vw_base'], timespan: '5m', condition: { gte: 2 } }));
    assert.equal((await viewer.post('/api/rules', { yaml_content: correlation({ title: 'Viewer 2', type: 'event_count', rules: ['vw_base'], timespan: '5m', condition: { gte: 2 } }), index_pattern: pattern.name })).statusCode, 403);
    assert.equal((await viewer.post(`/api/rules/${id}/deploy`)).statusCode, 403);
    await deploy(analyst, id);
    assert.equal((await ruleOf(id)).status, 'deployed');
  });
});

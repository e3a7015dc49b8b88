// What a correlation window counts across requests: nothing fires twice for one window (the group starts
// afresh after a firing, so a burst fires once per threshold reached), re-sent events are never counted
// again, events older than their group's newest event time are dropped (lateness 0, counted in the
// state), and with CORRELATION_LATENESS they count when they arrive within it and fire once their
// group's clock is past it. Clocks per group across groups: correlation-group-clocks.test.ts.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from '../../src/server.js';
import { describeEachDatabase, type Client } from '../helpers/service.js';
import { ingest, setUpTeam } from '../rules/fixtures.js';
import { alertsOf, at, correlation, detection, event, scenario, send } from './scenario.js';

async function stateOf(service: Service, correlationId: string): Promise<Record<string, unknown>> {
  const [row] = await service.db.query<{ state: string }>('SELECT state FROM correlation_states WHERE rule_id = $1', [correlationId]);
  assert.ok(row, 'the deployed correlation has a state row');
  return JSON.parse(row.state) as Record<string, unknown>;
}

const threeFailures = (name: string, title: string) =>
  correlation({ title, type: 'event_count', rules: [name], groupBy: ['User'], timespan: '5m', condition: { gte: 3 } });

describeEachDatabase('correlation windows across requests', (ctx) => {
  let admin: Client;
  let analyst: Client;

  before(async () => {
    ({ admin, analyst } = await setUpTeam(ctx.service, 'wendy', 'walt', { name: 'windows-default', is_default: true }));
  });

  const failed = (seconds: number, User: string) => event(seconds, { EventID: 4625, User });

  test('a burst of seven fires twice (at the 3rd and the 6th); re-sending it fires nothing; the 7th counts once with two new events', async () => {
    const { pattern, correlationId } = await scenario(admin, analyst, [detection('burst_failed', { EventID: 4625 })], threeFailures('burst_failed', 'Burst'));
    const burst = [0, 10, 20, 30, 40, 50, 60].map((s) => failed(s, 'alice'));
    assert.equal((await send(ctx.service, pattern, burst)).data.alerts_created, 2);
    let alerts = await alertsOf(ctx.service, correlationId);
    assert.deepEqual(
      alerts.map((a) => [a.correlation.window_start, a.correlation.window_end, a.correlation.value]),
      [
        [at(0), at(20), 3],
        [at(30), at(50), 3],
      ],
    );
    const ids = alerts.flatMap((a) => a.correlation.event_ids as string[]);
    assert.equal(new Set(ids).size, 6, 'an event contributes to one firing only');

    assert.equal((await send(ctx.service, pattern, burst)).data.alerts_created, 0);
    assert.equal((await send(ctx.service, pattern, [burst[6], burst[0]])).data.alerts_created, 0);
    assert.equal((await alertsOf(ctx.service, correlationId)).length, 2);

    assert.equal((await send(ctx.service, pattern, [failed(70, 'alice'), failed(80, 'alice')])).data.alerts_created, 1);
    alerts = await alertsOf(ctx.service, correlationId);
    assert.equal(alerts.length, 3);
    assert.equal(alerts[2].correlation.window_start, at(60));
    assert.equal(alerts[2].correlation.window_end, at(80));
  });

  test('a window filled over several requests fires once; its events sent again with the rest do not count twice', async () => {
    const { pattern, correlationId } = await scenario(admin, analyst, [detection('split_failed', { EventID: 4625 })], threeFailures('split_failed', 'Split'));
    assert.equal((await send(ctx.service, pattern, [failed(0, 'bob'), failed(10, 'carol')])).data.alerts_created, 0);
    assert.equal((await send(ctx.service, pattern, [failed(20, 'bob'), failed(20, 'carol')])).data.alerts_created, 0);
    // bob's and carol's first two events again: if re-sent events counted, both would reach 3 here.
    assert.equal((await send(ctx.service, pattern, [failed(0, 'bob'), failed(20, 'bob'), failed(10, 'carol'), failed(20, 'carol')])).data.alerts_created, 0);
    assert.equal((await alertsOf(ctx.service, correlationId)).length, 0);
    const third = await send(ctx.service, pattern, [failed(30, 'bob')]);
    assert.equal(third.data.alerts_created, 1);
    const [alert] = await alertsOf(ctx.service, correlationId);
    assert.deepEqual(alert.correlation.group, { User: 'bob' });
    assert.equal(alert.correlation.event_count, 3);
    assert.equal(alert.correlation.window_start, at(0));
    assert.equal(alert.correlation.window_end, at(30));
    assert.equal((await send(ctx.service, pattern, [failed(0, 'bob'), failed(20, 'bob'), failed(30, 'bob')])).data.alerts_created, 0);
    assert.equal((await alertsOf(ctx.service, correlationId)).length, 1);
  });

  test('temporal: after a firing the group starts afresh, so one more match of the last rule does not fire again', async () => {
    const { pattern, correlationId } = await scenario(
      admin,
      analyst,
      [detection('again_a', { CommandLine: 'whoami' }), detection('again_b', { CommandLine: 'hostname' })],
      correlation({ title: 'Both commands', type: 'temporal', rules: ['again_a', 'again_b'], groupBy: ['Computer'], timespan: '5m' }),
    );
    const run = (seconds: number, CommandLine: string) => event(seconds, { Computer: 'pc1', CommandLine });
    assert.equal((await send(ctx.service, pattern, [run(0, 'whoami'), run(10, 'hostname')])).data.alerts_created, 1);
    assert.equal((await send(ctx.service, pattern, [run(20, 'hostname'), run(30, 'hostname')])).data.alerts_created, 0);
    assert.equal((await send(ctx.service, pattern, [run(40, 'whoami')])).data.alerts_created, 1);
    const alerts = await alertsOf(ctx.service, correlationId);
    assert.deepEqual(
      alerts.map((a) => [a.correlation.window_start, a.correlation.window_end]),
      [
        [at(0), at(10)],
        [at(20), at(40)],
      ],
    );
  });

  test('concurrent requests to one instance, each with one event of a window, fire exactly once', async () => {
    const { pattern, correlationId } = await scenario(admin, analyst, [detection('conc_failed', { EventID: 4625 })], threeFailures('conc_failed', 'Concurrent'));
    // One event time, so no request is late for another whichever is stored first.
    const requests = [1, 2, 3, 4, 5].map((attempt) => ingest(ctx.service, pattern, [{ ...failed(0, 'hana'), Attempt: attempt }]));
    const responses = await Promise.all(requests);
    for (const r of responses) assert.equal(r.statusCode, 200, r.body);
    assert.equal(responses.reduce((n, r) => n + r.data.alerts_created, 0), 1);
    const [alert] = await alertsOf(ctx.service, correlationId);
    assert.equal(alert.correlation.event_count, 3);
  });

  test("events a rule exception excludes do not count in the correlation's windows", async () => {
    const { pattern, detectionIds, correlationId } = await scenario(admin, analyst, [detection('exc_failed', { EventID: 4625 })], threeFailures('exc_failed', 'Excepted'));
    const excepted = await analyst.post(`/api/rules/${detectionIds[0]}/exceptions`, { field: 'Computer', operator: 'equals', value: 'build-01', reason: 'build server' });
    assert.equal(excepted.statusCode, 201, excepted.body);
    const on = (seconds: number, Computer: string) => event(seconds, { EventID: 4625, User: 'ivan', Computer });
    assert.equal((await send(ctx.service, pattern, [on(0, 'build-01'), on(10, 'pc-1'), on(20, 'build-01'), on(30, 'pc-2')])).data.alerts_created, 0);
    assert.equal((await send(ctx.service, pattern, [on(40, 'pc-3')])).data.alerts_created, 1);
    const [alert] = await alertsOf(ctx.service, correlationId);
    assert.equal(alert.correlation.window_start, at(10));
  });

  test('with lateness 0 an event older than the newest event time seen is dropped and counted in the state', async () => {
    const { pattern, correlationId } = await scenario(admin, analyst, [detection('late_failed', { EventID: 4625 })], threeFailures('late_failed', 'Late'));
    assert.equal((await send(ctx.service, pattern, [failed(100, 'dave')])).data.alerts_created, 0);
    assert.equal((await send(ctx.service, pattern, [failed(50, 'dave'), failed(60, 'dave')])).data.alerts_created, 0);
    assert.equal((await send(ctx.service, pattern, [failed(110, 'dave')])).data.alerts_created, 0, 'the two late events are not in the window');
    assert.equal((await stateOf(ctx.service, correlationId)).droppedLate, 2);
    // Events at the newest time seen are not late.
    assert.equal((await send(ctx.service, pattern, [failed(110, 'dave'), { ...failed(110, 'dave'), Attempt: 2 }])).data.alerts_created, 1);
  });
});

describeEachDatabase(
  'correlation windows with CORRELATION_LATENESS=60',
  (ctx) => {
    let admin: Client;
    let analyst: Client;

    before(async () => {
      ({ admin, analyst } = await setUpTeam(ctx.service, 'lara', 'leo', { name: 'lateness-default', is_default: true }));
    });

    const failed = (seconds: number, User: string) => event(seconds, { EventID: 4625, User });

    test("an event up to 60 s behind its group's newest counts; the firing waits until that clock is 60 s past it; an older one is dropped", async () => {
      const { pattern, correlationId } = await scenario(admin, analyst, [detection('lag_failed', { EventID: 4625 })], threeFailures('lag_failed', 'Lagging'));
      assert.equal((await send(ctx.service, pattern, [failed(100, 'erin'), failed(110, 'erin')])).data.alerts_created, 0);
      assert.equal((await send(ctx.service, pattern, [failed(60, 'erin')])).data.alerts_created, 0, "accepted, but evaluated only once erin's clock is 60 s past it");
      // Another group's newer event does not move erin's clock.
      assert.equal((await send(ctx.service, pattern, [failed(200, 'frank')])).data.alerts_created, 0);
      assert.equal((await alertsOf(ctx.service, correlationId)).length, 0);
      const moved = await send(ctx.service, pattern, [failed(200, 'erin')]);
      assert.equal(moved.data.alerts_created, 1, moved.body);
      const [alert] = await alertsOf(ctx.service, correlationId);
      assert.deepEqual(alert.correlation.group, { User: 'erin' });
      assert.equal(alert.correlation.window_start, at(60));
      assert.equal(alert.correlation.window_end, at(110));
      // frank's clock is 200: 139 s is more than 60 s behind it.
      assert.equal((await send(ctx.service, pattern, [failed(139, 'frank'), failed(141, 'frank'), failed(201, 'frank')])).data.alerts_created, 0);
      assert.equal((await stateOf(ctx.service, correlationId)).droppedLate, 1);
      assert.equal((await send(ctx.service, pattern, [failed(300, 'frank')])).data.alerts_created, 1, 'frank: 141, 200 and 201');
      const last = (await alertsOf(ctx.service, correlationId)).at(-1)!;
      assert.deepEqual(last.correlation.group, { User: 'frank' });
      assert.equal(last.correlation.window_start, at(141));
      assert.equal(last.correlation.window_end, at(201));
    });
  },
  { CORRELATION_LATENESS: '60' },
);

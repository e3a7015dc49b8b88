// Correlation event clocks per group, driven through ingest: a group is late only against its own newest
// event, so hosts whose events arrive interleaved out of time order, or a group catching up after
// another group's newer events, fire as if the events had been sorted; an event behind its own group by
// more than the lateness is dropped and counted; with a lateness, a burst followed by silence fires
// about the lateness after it arrived (the service's deadline timer), without any further event.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from '../../src/server.js';
import { describeEachDatabase, type Client } from '../helpers/service.js';
import { setUpTeam } from '../rules/fixtures.js';
import { alertsOf, at, correlation, detection, event, firedGroups, scenario, send } from './scenario.js';

async function droppedLate(service: Service, correlationId: string): Promise<number> {
  const [row] = await service.db.query<{ state: string }>('SELECT state FROM correlation_states WHERE rule_id = $1', [correlationId]);
  return (JSON.parse(row.state) as { droppedLate: number }).droppedLate;
}

const threeOnHost = (name: string, title: string) =>
  correlation({ title, type: 'event_count', rules: [name], groupBy: ['Computer'], timespan: '5m', condition: { gte: 3 } });

const failed = (seconds: number, Computer: string) => event(seconds, { EventID: 4625, Computer });

describeEachDatabase('correlation clocks per group (lateness 0)', (ctx) => {
  let admin: Client;
  let analyst: Client;

  before(async () => {
    ({ admin, analyst } = await setUpTeam(ctx.service, 'gabe', 'gwen', { name: 'clocks-default', is_default: true }));
  });

  test('two hosts interleaved out of time order across requests both fire, as if sorted', async () => {
    const { pattern, correlationId } = await scenario(admin, analyst, [detection('mix_failed', { EventID: 4625 })], threeOnHost('mix_failed', 'Interleaved'));
    // Host b's events are 100 s behind host a's in every request.
    assert.equal((await send(ctx.service, pattern, [failed(100, 'a'), failed(0, 'b')])).data.alerts_created, 0);
    assert.equal((await send(ctx.service, pattern, [failed(110, 'a'), failed(10, 'b')])).data.alerts_created, 0);
    assert.equal((await send(ctx.service, pattern, [failed(120, 'a'), failed(20, 'b')])).data.alerts_created, 2);
    const alerts = await alertsOf(ctx.service, correlationId);
    assert.deepEqual(
      alerts.map((a) => [a.correlation.group, a.correlation.window_start, a.correlation.window_end]),
      [
        [{ Computer: 'b' }, at(0), at(20)],
        [{ Computer: 'a' }, at(100), at(120)],
      ],
    );
    assert.equal(await droppedLate(ctx.service, correlationId), 0);
  });

  test("a group catching up after another group's newer events fires; an event behind its own group is dropped and counted", async () => {
    const { pattern, correlationId } = await scenario(admin, analyst, [detection('catch_failed', { EventID: 4625 })], threeOnHost('catch_failed', 'Catching up'));
    assert.equal((await send(ctx.service, pattern, [failed(3600, 'live'), failed(3610, 'live')])).data.alerts_created, 0);
    // The shipper of host 'back' delivers an hour late, over several requests.
    assert.equal((await send(ctx.service, pattern, [failed(0, 'back')])).data.alerts_created, 0);
    assert.equal((await send(ctx.service, pattern, [failed(10, 'back')])).data.alerts_created, 0);
    // 5 s is behind host 'back''s own newest event (10 s): late for it.
    assert.equal((await send(ctx.service, pattern, [failed(5, 'back')])).data.alerts_created, 0);
    assert.equal(await droppedLate(ctx.service, correlationId), 1);
    assert.equal((await send(ctx.service, pattern, [failed(20, 'back')])).data.alerts_created, 1);
    const [alert] = await alertsOf(ctx.service, correlationId);
    assert.deepEqual(alert.correlation.group, { Computer: 'back' });
    assert.equal(alert.correlation.window_start, at(0));
    assert.equal(alert.correlation.event_count, 3);
    assert.equal((await send(ctx.service, pattern, [failed(3620, 'live')])).data.alerts_created, 1);
    assert.deepEqual(await firedGroups(ctx.service, correlationId), [{ Computer: 'back' }, { Computer: 'live' }]);
  });
});

describeEachDatabase(
  'correlation deadlines with CORRELATION_LATENESS=1',
  (ctx) => {
    test('a burst followed by silence fires about the lateness after it arrived', async () => {
      const { admin, analyst } = await setUpTeam(ctx.service, 'hal', 'hedy', { name: 'deadline-default', is_default: true });
      const { pattern, correlationId } = await scenario(admin, analyst, [detection('quiet_failed', { EventID: 4625 })], threeOnHost('quiet_failed', 'Quiet'));
      const sent = Date.now();
      assert.equal((await send(ctx.service, pattern, [failed(0, 'q'), failed(1, 'q'), failed(2, 'q')])).data.alerts_created, 0, 'waiting for the lateness');
      // No further event: the service's timer evaluates the burst once it has waited the lateness.
      let alerts = await alertsOf(ctx.service, correlationId);
      while (alerts.length === 0 && Date.now() - sent < 20_000) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        alerts = await alertsOf(ctx.service, correlationId);
      }
      assert.equal(alerts.length, 1, 'fired without a further event');
      assert.ok(Date.now() - sent >= 1000, 'not before the lateness');
      assert.deepEqual(alerts[0].correlation.group, { Computer: 'q' });
      assert.equal(alerts[0].correlation.window_end, at(2));
      const [{ n }] = await ctx.service.db.query<{ n: number }>('SELECT count(*)::int AS n FROM correlation_waiting WHERE rule_id = $1', [correlationId]);
      assert.equal(n, 0);
    });
  },
  { CORRELATION_LATENESS: '1' },
);

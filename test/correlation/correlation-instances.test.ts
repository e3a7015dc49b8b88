// Two service instances on one PostgreSQL database share correlation windows: the events of one window
// sent partly to A and partly to B fire exactly once, requests alternating between them count every event
// once, and concurrent requests to both (the same events, or different events of one window) fire exactly
// once. PostgreSQL only.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from '../../src/server.js';
import { describeTwoInstances, within } from '../helpers/instances.js';
import { loginAdmin, type Client } from '../helpers/service.js';
import { backendOf, ingest, type CreatedPattern } from '../rules/fixtures.js';
import { alertsOf, at, correlation, detection, event, scenario, send } from './scenario.js';

describeTwoInstances('correlation windows shared by two instances', (instances) => {
  let admin: Client;
  let pattern: CreatedPattern;
  let correlationId: string;

  before(async () => {
    admin = await loginAdmin(instances.a);
    ({ pattern, correlationId } = await scenario(
      admin,
      admin,
      [detection('mi_failed', { EventID: 4625 })],
      correlation({ title: 'Three failures', type: 'event_count', rules: ['mi_failed'], groupBy: ['User'], timespan: '10m', condition: { gte: 3 } }),
    ));
    // B percolates with the rule A deployed.
    const live = await within(5000, async () => (await backendOf(instances.b).percolate(pattern.percolator_index, [{ EventID: 4625 }]))[0].length > 0);
    assert.notEqual(live, null, 'the rule deployed on A never became live on B');
  });

  const failed = (seconds: number, User: string, extra: Record<string, unknown> = {}) => event(seconds, { EventID: 4625, User, ...extra });
  const alertsFor = async (user: string) => (await alertsOf(instances.a, correlationId)).filter((a) => a.correlation.group.User === user);
  const on = (service: Service, events: unknown[]) => send(service, pattern, events);

  test('two events on A and the third on B fire once, on B', async () => {
    assert.equal((await on(instances.a, [failed(0, 'split'), failed(10, 'split')])).data.alerts_created, 0);
    const third = await on(instances.b, [failed(20, 'split')]);
    assert.equal(third.data.alerts_created, 1, third.body);
    const [alert] = await alertsFor('split');
    assert.equal(alert.correlation.window_start, at(0));
    assert.equal(alert.correlation.window_end, at(20));
    assert.equal(alert.correlation.event_count, 3);
  });

  test('nine events sent one per request, alternating A and B, fire exactly three times', async () => {
    let created = 0;
    for (let i = 0; i < 9; i++) created += (await on(i % 2 === 0 ? instances.a : instances.b, [failed(100 + i * 10, 'alternate')])).data.alerts_created;
    assert.equal(created, 3);
    const alerts = await alertsFor('alternate');
    assert.deepEqual(
      alerts.map((a) => [a.correlation.window_start, a.correlation.window_end]),
      [
        [at(100), at(120)],
        [at(130), at(150)],
        [at(160), at(180)],
      ],
    );
  });

  test('the same window sent to A and B at once fires exactly once, each time', async () => {
    for (let round = 0; round < 5; round++) {
      const user = `same-${round}`;
      // Each round later than the last: the correlation's clock is the newest event time it has seen.
      const t = 300 + round * 100;
      const events = [failed(t, user), failed(t + 10, user), failed(t + 20, user)];
      const [a, b] = await Promise.all([ingest(instances.a, pattern, events), ingest(instances.b, pattern, events)]);
      assert.equal(a.statusCode, 200, a.body);
      assert.equal(b.statusCode, 200, b.body);
      assert.equal(a.data.alerts_created + b.data.alerts_created, 1, `round ${round}: ${a.body} ${b.body}`);
      assert.equal((await alertsFor(user)).length, 1);
    }
  });

  test('different events of one window sent to A and B at once fire exactly once, each time', async () => {
    for (let round = 0; round < 5; round++) {
      const user = `halves-${round}`;
      // One event time, so neither half is late for the other whichever commits first.
      const t = 1000 + round * 100;
      const half = (from: number) => [failed(t, user, { Attempt: from }), failed(t, user, { Attempt: from + 1 })];
      const [a, b] = await Promise.all([ingest(instances.a, pattern, half(0)), ingest(instances.b, pattern, half(2))]);
      assert.equal(a.statusCode, 200, a.body);
      assert.equal(b.statusCode, 200, b.body);
      // Four events against gte 3: one firing, the fourth event starts the next window.
      assert.equal(a.data.alerts_created + b.data.alerts_created, 1, `round ${round}: ${a.body} ${b.body}`);
      const [alert] = await alertsFor(user);
      assert.equal(alert.correlation.event_count, 3);
    }
  });
});

// A correlation's state does not make later requests slower: one event_count correlation grouped by User
// over 2,000 users (its window never fires, so every group stays open) is fed four requests of 6,000
// events, every user in each. Each request is answered while GET /api/health and another user's alert
// list answer within a second; the last request takes no more than twice the fastest earlier one
// (a chunk reads and writes the windows it touches, not the whole state); the correlation's head row
// stays a few hundred bytes, each group is one window row and each of its inputs one row more.
// Runs alone: other users' requests are held to one second while chunks of 1,000 matches are written,
// a bound that other files' load on the two cores could break.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase } from '../helpers/service.js';
import { type CreatedPattern } from '../rules/fixtures.js';
import { correlation, detection, event, scenario } from '../correlation/scenario.js';
import { setUpTeam } from '../rules/fixtures.js';
import { assertResponsive, listening, probeHealthDuring, RESPONSIVE_BOUND_MS, send } from './ingest-busy-probe.js';

const GROUPS = 2_000;
const REQUESTS = 4;
const EVENTS = 6_000;

const ndjson = (events: object[]) => events.map((e) => JSON.stringify(e)).join('\n');

describeEachDatabase('correlation state growth through ingest', (ctx) => {
  let pattern: CreatedPattern;
  let viewerToken: string;
  let correlationId: string;
  let base: string;

  before(async () => {
    const { admin, analyst, viewer } = await setUpTeam(ctx.service, 'growth-analyst', 'growth-viewer', { name: 'growth-default' });
    ({ pattern, correlationId } = await scenario(
      admin,
      analyst,
      [detection('growth_failed', { EventID: 4625 })],
      correlation({ title: 'Failures by user', type: 'event_count', rules: ['growth_failed'], groupBy: ['User'], timespan: '1d', condition: { gte: 1_000_000 } }),
    ));
    viewerToken = viewer.token!;
    base = await listening(ctx.service);
  });

  const post = (to: CreatedPattern, events: object[]) =>
    send(`${base}/api/logs/${to.name}`, { method: 'POST', body: ndjson(events), headers: { authorization: `Bearer ${to.ingest_token}`, 'content-type': 'application/x-ndjson' } });

  test('successive requests take no longer as the state grows; health and other users answer within a second', async () => {
    // A first chunk of other users warms the matcher and the statements up; it is not measured.
    const warmUp = await post(pattern, Array.from({ length: 1_000 }, (_, i) => event(0, { EventID: 4625, User: `warm-${i}`, seq: -1 - i })));
    assert.equal(warmUp.status, 200, warmUp.text.slice(0, 300));
    const took: number[] = [];
    for (let r = 0; r < REQUESTS; r++) {
      const events = Array.from({ length: EVENTS }, (_, i) => {
        const n = r * EVENTS + i;
        return event(Math.floor(n / GROUPS), { EventID: 4625, User: `user-${n % GROUPS}`, seq: n });
      });
      let slowestOther = 0;
      const started = Date.now();
      const probe = await probeHealthDuring(base, async () => {
        let done = false;
        const onPattern = post(pattern, events).finally(() => (done = true));
        while (!done) {
          const t = Date.now();
          const answer = await send(`${base}/api/alerts?limit=10`, { headers: { authorization: `Bearer ${viewerToken}` } });
          slowestOther = Math.max(slowestOther, Date.now() - t);
          assert.equal(answer.status, 200, answer.text.slice(0, 300));
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        return onPattern;
      });
      took.push(Date.now() - started);
      assert.equal(probe.result.status, 200, probe.result.text.slice(0, 300));
      assert.equal(probe.result.data.accepted, EVENTS);
      assertResponsive(probe, `request ${r + 1} of ${EVENTS} correlated events`);
      assert.ok(slowestOther < RESPONSIVE_BOUND_MS, `request ${r + 1}: another user's slowest alert list took ${slowestOther} ms`);
    }
    const fastestEarlier = Math.min(...took.slice(0, -1));
    assert.ok(took[REQUESTS - 1] <= 2 * fastestEarlier, `the requests took ${took.join(', ')} ms: the last more than twice the fastest before it`);

    const [head] = await ctx.service.db.query<{ n: number }>('SELECT length(state)::int AS n FROM correlation_states WHERE rule_id = $1', [correlationId]);
    assert.ok(head.n < 2_000, `the head row holds ${head.n} characters`);
    const windows = await ctx.service.db.query<{ n: number; longest: number }>(
      'SELECT count(*)::int AS n, max(next_input - first_input)::int AS longest FROM correlation_windows WHERE rule_id = $1',
      [correlationId],
    );
    assert.equal(windows[0].n, GROUPS + 1_000);
    // A window holds its group's inputs only (REQUESTS × EVENTS / GROUPS of them), each a row of its own.
    assert.equal(windows[0].longest, (REQUESTS * EVENTS) / GROUPS);
    const [inputs] = await ctx.service.db.query<{ n: number }>('SELECT count(*)::int AS n FROM correlation_window_inputs WHERE rule_id = $1', [correlationId]);
    assert.equal(inputs.n, REQUESTS * EVENTS + 1_000);
  });
});

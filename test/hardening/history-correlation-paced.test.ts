// The historical dry run of a correlation rule orders and replays its matches a slice at a time: over
// tens of thousands of stored matching events, /api/health answers and the event loop is never held
// for a second, and the firings are those the correlation makes of the events. The matches of one run
// are put in time order by merging the sorted batches, never by one sort of them all.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase, type Client } from '../helpers/service.js';
import { mergeRuns } from '../../src/rules/paced-merge.js';
import { createRule, setUpTeam, type CreatedPattern } from '../rules/fixtures.js';
import { bruteForce, FAILED_LOGON } from '../correlation/rules.js';
import { RESPONSIVE_BOUND_MS, listening, probeHealthDuring, send } from './ingest-busy-probe.js';

const EVENTS = 40_000;
const USERS = 400;

test('merged runs come out in order, equal items in the order of their runs', async () => {
  const runs = [
    [1, 4, 4, 9],
    [],
    [2, 4, 10],
    [0, 3, 4],
  ].map((run, r) => run.map((value, i) => ({ value, from: `${r}.${i}` })));
  const merged = await mergeRuns(runs, (a, b) => a.value - b.value);
  assert.deepEqual(
    merged.map((m) => m.from),
    ['3.0', '0.0', '2.0', '3.1', '0.1', '0.2', '2.1', '3.2', '0.3', '2.2'],
  );
});

describeEachDatabase('historical correlation test over many matches', (ctx) => {
  let analyst: Client;
  let pattern: CreatedPattern;
  let correlationId: string;
  let base: string;

  before(async () => {
    ({ analyst, pattern } = await setUpTeam(ctx.service, 'paced-analyst', 'paced-viewer', { name: 'paced', is_default: true }));
    await createRule(analyst, { yaml_content: FAILED_LOGON });
    correlationId = (await createRule(analyst, { yaml_content: bruteForce() })).id as string;
    base = await listening(ctx.service);
    // Within the last 50 minutes: each user fails 100 times, a few seconds apart.
    const now = Date.now();
    const events = Array.from({ length: EVENTS }, (_, i) => ({ '@timestamp': new Date(now - 60_000 - (i % 3_000_000)).toISOString(), EventID: 4625, TargetUserName: `user-${i % USERS}`, seq: i }));
    for (let start = 0; start < EVENTS; start += 10_000) {
      const sent = await send(`${base}/api/logs/${pattern.name}`, {
        method: 'POST',
        body: events.slice(start, start + 10_000).map((e) => JSON.stringify(e)).join('\n'),
        headers: { authorization: `Bearer ${pattern.ingest_token}`, 'content-type': 'application/x-ndjson' },
      });
      assert.equal(sent.status, 200, sent.text.slice(0, 300));
    }
  });

  test('health answers and the loop is never held for a second; every user fires', async () => {
    // On this machine under its present load: health and the loop with nothing else running.
    const idle = await probeHealthDuring(base, () => new Promise((resolve) => setTimeout(resolve, 300)));
    const probe = await probeHealthDuring(base, () => analyst.post(`/api/rules/${correlationId}/test/historical`, { time_range: '1h', limit: 5 }));
    assert.equal(probe.result.statusCode, 200, probe.result.body.slice(0, 300));
    assert.equal(probe.result.data.events_scanned, EVENTS);
    assert.ok(probe.result.data.matches >= USERS, `${probe.result.data.matches} firings`);
    console.log(`historical correlation test: ${probe.result.data.matches} firings; slowest health ${probe.slowestHealthMs} ms, loop held ${Math.round(probe.longestLoopStallMs)} ms at most`);
    // Within a second, or three times what they took idle on a machine too loaded for that.
    assert.ok(probe.slowestHealthMs < Math.max(RESPONSIVE_BOUND_MS, 3 * idle.slowestHealthMs), `the slowest health answer took ${probe.slowestHealthMs} ms (idle ${idle.slowestHealthMs} ms)`);
    assert.ok(probe.longestLoopStallMs < Math.max(RESPONSIVE_BOUND_MS, 3 * idle.longestLoopStallMs), `the event loop was held ${Math.round(probe.longestLoopStallMs)} ms (idle ${Math.round(idle.longestLoopStallMs)} ms)`);
  });
});

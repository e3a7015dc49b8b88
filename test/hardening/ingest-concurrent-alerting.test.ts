// Concurrent _bulk requests whose events all alert do not hold the database from everyone else: their
// writes queue fairly behind short reads, so /api/health and an analyst's requests (real listener,
// real sockets) wait no longer while they run than while the same events come in one request (within
// a second, or twice what they waited then on a machine too loaded for that), and every event and
// alert is stored once. The probe's recipe (16 requests of 6,250 alerting actions) at a size CI can
// afford.
// Runs alone: it compares an analyst's wait under six concurrent requests with the wait under one, which other files' load skews.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase, type Client } from '../helpers/service.js';
import { countRows, createRule, equalsRule, setUpTeam, type CreatedPattern } from '../rules/fixtures.js';
import { RESPONSIVE_BOUND_MS, listening, probeHealthDuring, send } from './ingest-busy-probe.js';

const REQUESTS = 6;
const ACTIONS = 1_500;

describeEachDatabase('concurrent alerting _bulk requests', (ctx) => {
  let pattern: CreatedPattern;
  let analyst: Client;
  let base: string;

  before(async () => {
    ({ analyst, pattern } = await setUpTeam(ctx.service, 'fair-analyst', 'fair-viewer', { name: 'fair', is_default: true }));
    await createRule(analyst, { yaml_content: equalsRule('Every event', 'Image', 'alert.exe'), deploy: true });
    base = await listening(ctx.service);
  });

  /** One request of `ACTIONS` distinct events, every one matching the rule. */
  const bulkBody = (request: number) =>
    Array.from(
      { length: ACTIONS },
      (_, i) => `{"create":{}}\n${JSON.stringify({ '@timestamp': new Date(Date.UTC(2026, 11, 1, 0, 0, i % 86_400)).toISOString(), request, seq: i, Image: 'alert.exe' })}\n`,
    ).join('');

  /** Sends `bodies` at once while health is polled and the analyst reads alerts, one read after
   * another; answers the bulk answers and the slowest health answer, analyst read and loop hold. */
  async function whileSending(bodies: string[]) {
    let running = true;
    const analystTimes: number[] = [];
    const analystReads = (async () => {
      while (running) {
        const started = Date.now();
        const answer = await send(`${base}/api/alerts?page_size=5`, { headers: { authorization: `Bearer ${analyst.token}` } });
        assert.equal(answer.status, 200, answer.text.slice(0, 300));
        analystTimes.push(Date.now() - started);
      }
    })();
    let probe;
    try {
      probe = await probeHealthDuring(base, () =>
        Promise.all(
          bodies.map((body) =>
            send(`${base}/api/es/_bulk`, {
              method: 'POST',
              body,
              headers: { authorization: `Bearer ${pattern.ingest_token}`, 'content-type': 'application/x-ndjson' },
            }),
          ),
        ),
      );
    } finally {
      running = false;
      await analystReads;
    }
    for (const answer of probe.result) {
      assert.equal(answer.status, 200, answer.text.slice(0, 300));
      assert.equal(answer.data.errors, false);
    }
    assert.ok(analystTimes.length >= 2, `the analyst was answered ${analystTimes.length} times`);
    return { health: probe.slowestHealthMs, analyst: Math.max(...analystTimes), loop: Math.round(probe.longestLoopStallMs), reads: analystTimes.length };
  }

  test('health and an analyst wait no longer on concurrent alerting requests than on one; everything is stored once', async () => {
    // The same number of events in one request first: what others wait for then, on this machine under
    // its present load, is the baseline (a second at least) the concurrent requests are held to.
    const alone = await whileSending([Array.from({ length: REQUESTS }, (_, r) => bulkBody(100 + r)).join('')]);
    const together = await whileSending(Array.from({ length: REQUESTS }, (_, r) => bulkBody(r)));
    console.log(`slowest answers (ms), one request: ${JSON.stringify(alone)}; ${REQUESTS} at once: ${JSON.stringify(together)}`);
    for (const what of ['health', 'analyst', 'loop'] as const) {
      const bound = Math.max(RESPONSIVE_BOUND_MS, 2 * alone[what]);
      assert.ok(together[what] < bound, `${what}: ${together[what]} ms with ${REQUESTS} requests at once, ${alone[what]} ms with one`);
    }
    assert.equal(await countRows(ctx.service, 'events WHERE index_pattern_id = $1', [pattern.id]), 2 * REQUESTS * ACTIONS);
    assert.equal(await countRows(ctx.service, 'alerts WHERE index_pattern_id = $1', [pattern.id]), 2 * REQUESTS * ACTIONS);
  });
});

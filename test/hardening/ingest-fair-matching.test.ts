// One index pattern's costly events never hold another pattern's ingest. A rule just under the matching
// cost limit (900 wildcard patterns, cost 9,680) on pattern A and a request of large events to A: the
// events within the per-event work budget take the matcher seconds, the 1 MB ones past it are rejected
// alone at once; meanwhile ingest to pattern B (another matcher thread) and GET /api/health each answer
// within a second, and B's events raise their alerts.
// Runs alone: another pattern's ingest is held to one second while a matcher thread is busy, a bound
// that other files' load on the two cores could break.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase } from '../helpers/service.js';
import { createPattern, createRule, equalsRule, setUpTeam, sigma, type CreatedPattern } from '../rules/fixtures.js';
import { assertResponsive, listening, probeHealthDuring, RESPONSIVE_BOUND_MS, send } from './ingest-busy-probe.js';

/** 900 patterns `*a{i}*b{i}*`: a matching cost of 9,680, just under the limit of 10,000. */
const values = Array.from({ length: 900 }, (_, i) => `      - '*a${i}*b${i}*'`).join('\n');
const NEAR_LIMIT = sigma({ title: 'Near the cost limit', detection: `  selection:\n    CommandLine:\n${values}\n  condition: selection` });

const ndjson = (events: object[]) => events.map((e) => JSON.stringify(e)).join('\n');

describeEachDatabase('a costly event of one pattern does not hold the ingest of another', (ctx) => {
  let a: CreatedPattern;
  let b: CreatedPattern;
  let base: string;

  before(async () => {
    let analyst;
    let admin;
    ({ admin, analyst, pattern: a } = await setUpTeam(ctx.service, 'fair-analyst', 'fair-viewer', { name: 'fair-a' }));
    b = await createPattern(admin, { name: 'fair-b' });
    await createRule(analyst, { yaml_content: NEAR_LIMIT, index_pattern: a.name, deploy: true });
    await createRule(analyst, { yaml_content: equalsRule('Marker on B', 'Image', 'marker.exe'), index_pattern: b.name, deploy: true });
    base = await listening(ctx.service);
  });

  const post = (pattern: CreatedPattern, events: object[]) =>
    send(`${base}/api/logs/${pattern.name}`, { method: 'POST', body: ndjson(events), headers: { authorization: `Bearer ${pattern.ingest_token}`, 'content-type': 'application/x-ndjson' } });

  test("pattern B's ingest and health answer within a second while pattern A's large events are matched", async () => {
    // `b0`, then `a0` last (the rule is a candidate, its first pattern fails at the end, every other one
    // scans the whole value): 30,000 characters are about 290 million units of work, a second or so.
    const text = (n: number) => `b0${'a'.repeat(n)}a0`;
    const costly = [1, 2, 3].map((seq) => ({ CommandLine: text(30_000), seq }));
    const huge = [4, 5].map((seq) => ({ CommandLine: text(1_000_000), seq }));
    let slowestB = 0;
    let answeredB = 0;
    const probe = await probeHealthDuring(base, async () => {
      let done = false;
      const onA = post(a, [costly[0], huge[0], costly[1], huge[1], costly[2]]).finally(() => (done = true));
      for (let seq = 0; !done; seq++) {
        const started = Date.now();
        const answer = await post(b, [{ Image: 'marker.exe', seq }, { Image: 'other.exe', seq }]);
        slowestB = Math.max(slowestB, Date.now() - started);
        assert.equal(answer.status, 200, answer.text.slice(0, 300));
        assert.equal(answer.data.alerts_created, 1, answer.text.slice(0, 300));
        if (!done) answeredB++;
        // A sender's pace: a batch every tenth of a second.
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return onA;
    });
    assertResponsive(probe, "pattern A's large events");
    assert.ok(answeredB >= 2, `pattern B answered ${answeredB} times while pattern A's request ran`);
    assert.ok(slowestB < RESPONSIVE_BOUND_MS, `the slowest ingest to pattern B took ${slowestB} ms`);
    const onA = probe.result;
    assert.equal(onA.status, 200, onA.text.slice(0, 300));
    assert.equal(onA.data.accepted, 3);
    assert.deepEqual(onA.data.errors.map((e: { index: number }) => e.index), [1, 3]);
    for (const error of onA.data.errors) assert.match(error.error, /^matching the event could exceed the per-event work budget of 1,000,000,000: its text \(more than 103,305 characters\) times the matching cost of 9,680 /);
  });
});

// Matching runs on the matcher thread: an event that takes a costly rule seconds to evaluate (a value
// of about 1 MB against a rule at its wildcard limit) keeps its own request waiting, never the service:
// GET /api/health answers meanwhile, and the request ends with the event stored and the right alerts,
// whose matched conditions the thread reports.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase } from '../helpers/service.js';
import { createRule, setUpTeam, sigma, type CreatedPattern } from '../rules/fixtures.js';
import { listening, probeHealthDuring, send } from './ingest-busy-probe.js';

/** 1,000 wildcard values, each scanning the whole value for an `x` and then for its number. */
const values = Array.from({ length: 1000 }, (_, i) => `      - '*x*${i}'`).join('\n');
const COSTLY = sigma({ title: 'Costly wildcards', detection: `  selection:\n    CommandLine:\n${values}\n  condition: selection` });
/** About 1 MB of text with an `x` every three characters and no digit: every value is tried to the end. */
const HUGE = ('abx'.repeat(33) + 'c').repeat(10_000);

describeEachDatabase('a costly event is matched off the event loop', (ctx) => {
  let pattern: CreatedPattern;
  let base: string;
  let ruleId: string;

  before(async () => {
    let analyst;
    ({ analyst, pattern } = await setUpTeam(ctx.service, 'costly-analyst', 'costly-viewer', { name: 'costly', is_default: true }));
    ruleId = (await createRule(analyst, { yaml_content: COSTLY, deploy: true })).id;
    base = await listening(ctx.service);
  });

  test('health answers while the matcher works through a costly event; the batch is stored and alerts as it should', async () => {
    const body = [{ CommandLine: HUGE, seq: 1 }, { CommandLine: 'run x42', seq: 2 }].map((e) => JSON.stringify(e)).join('\n');
    const started = Date.now();
    const probe = await probeHealthDuring(base, () =>
      send(`${base}/api/logs/${pattern.name}`, {
        method: 'POST',
        body,
        headers: { authorization: `Bearer ${pattern.ingest_token}`, 'content-type': 'application/x-ndjson' },
      }),
    );
    assert.equal(probe.result.status, 200, probe.result.text.slice(0, 300));
    assert.equal(probe.result.data.accepted, 2);
    assert.equal(probe.result.data.alerts_created, 1);
    assert.ok(probe.answeredInFlight >= 2, `health answered ${probe.answeredInFlight} times during a request of ${Date.now() - started} ms`);
    const [alert] = await ctx.service.db.query<{ rule_id: string; matched_conditions: unknown; seq: string }>(
      "SELECT rule_id, matched_conditions, event->>'seq' AS seq FROM alerts WHERE index_pattern_id = $1",
      [pattern.id],
    );
    assert.equal(alert.rule_id, ruleId);
    assert.equal(alert.seq, '2');
    assert.deepEqual(alert.matched_conditions, [{ selection: { CommandLine: 'run x42' } }]);
  });
});

// Matching runs on a matcher thread: an event that takes a costly rule a second or more to evaluate (a
// value of 60,000 characters against a rule at its wildcard limit) keeps its own request waiting, never
// the service: GET /api/health answers meanwhile, and the request ends with the event stored and the
// right alerts, whose matched conditions the thread reports. An event whose text times the rule's
// matching cost is past the per-event work budget (about 1 MB against that rule) is rejected alone, at
// once, naming the budget; the rest of the batch is stored.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase } from '../helpers/service.js';
import { createRule, setUpTeam, sigma, type CreatedPattern } from '../rules/fixtures.js';
import { listening, probeHealthDuring, send } from './ingest-busy-probe.js';

/** 1,000 wildcard values, each scanning the whole value for an `x` and then for its number. */
const values = Array.from({ length: 1000 }, (_, i) => `      - '*x*${i}'`).join('\n');
const COSTLY = sigma({ title: 'Costly wildcards', detection: `  selection:\n    CommandLine:\n${values}\n  condition: selection` });
/** Text with an `x` every three characters and no digit: every value is tried to the end. */
const text = (hundreds: number) => ('abx'.repeat(33) + 'c').repeat(hundreds);
/** 60,000 characters: within the per-event work budget with this rule (cost 5,890), a second or more of matching. */
const COSTLY_EVENT = text(600);
/** About 1 MB: past the budget with this rule. */
const HUGE = text(10_000);

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

  test('health answers while the matcher works through a costly event; the batch is stored and alerts as it should; an event past the budget is rejected alone', async () => {
    const body = [{ CommandLine: COSTLY_EVENT, seq: 1 }, { CommandLine: 'run x42', seq: 2 }, { CommandLine: HUGE, seq: 3 }].map((e) => JSON.stringify(e)).join('\n');
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
    assert.deepEqual(probe.result.data.errors.map((e: { index: number }) => e.index), [2]);
    assert.match(probe.result.data.errors[0].error, /^matching the event could exceed the per-event work budget of 1,000,000,000: its text \(more than 169,779 characters\) times the matching cost of 5,890 of the rules it may match/);
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

// Rule exceptions count in their rule's matching cost and run where the rule runs, under its budgets.
// Regex exceptions of about a thousand program states each on a rule that matches every event: the
// exception that would take the rule's cost past the limit is refused with 422 naming it (so are a
// re-enabled one and a rule change that would); with the rule at the limit, a request of large events
// is matched off the event loop (health answers within a second meanwhile), an event past the
// per-event work budget is rejected alone, the exceptions still suppress what they match; a historical
// test meeting a large stored event answers 413 naming the rule's cost with its exceptions at once,
// and one over the accepted events answers while health keeps answering.
// Runs alone: the historical test must finish within its 10 s time budget and health within a second,
// bounds that other files' load on a 2-core machine can break.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase, type Client } from '../helpers/service.js';
import { createRule, ingest, setUpTeam, sigma, type CreatedPattern } from '../rules/fixtures.js';
import { assertResponsive, listening, probeHealthDuring, send } from './ingest-busy-probe.js';

/** Matches every event of this file (each carries EventID 1). */
const EVERY_EVENT = sigma({ title: 'Every event', detection: '  selection:\n    EventID: 1\n  condition: selection' });
/** About a thousand program states: 999 letters, a digit, then the exception's own mark. */
const costly = (i: number) => ({ field: 'CommandLine', operator: 'regex', value: `[a-z]{999}[0-9]x${i}` });
const LIMIT = /^with this exception the rule's matching cost with its exceptions would be [\d,]+ \(the rule 0, its enabled exceptions [\d,]+; limit 10,000 per rule; /;

describeEachDatabase('rule exceptions within the rule limits and the per-event work budget', (ctx) => {
  let analyst: Client;
  let pattern: CreatedPattern;
  let base: string;
  let ruleId: string;
  let accepted = 0;

  before(async () => {
    ({ analyst, pattern } = await setUpTeam(ctx.service, 'exc-budget-analyst', 'exc-budget-viewer', { name: 'exc-budget', is_default: true }));
    ruleId = (await createRule(analyst, { yaml_content: EVERY_EVENT, deploy: true })).id;
    // Stored before the exceptions exist (within the budget of the rule alone), three hours ago: about 1 MB of text.
    const threeHoursAgo = new Date(Date.now() - 3 * 3600_000).toISOString();
    const big = await ingest(ctx.service, pattern, [{ '@timestamp': threeHoursAgo, EventID: 1, CommandLine: 'q'.repeat(1_000_000), seq: 0 }]);
    assert.equal(big.data.accepted, 1, big.body);
    base = await listening(ctx.service);
  });

  test('exceptions are accepted while the rule stays within its matching cost; the one past it is 422 naming the limit', async () => {
    let refused;
    for (let i = 0; i < 100 && !refused; i++) {
      const response = await analyst.post(`/api/rules/${ruleId}/exceptions`, costly(i));
      if (response.statusCode === 201) accepted++;
      else refused = response;
    }
    assert.ok(accepted >= 5, `${accepted} exceptions accepted`);
    assert.ok(refused, 'an exception was refused');
    assert.equal(refused.statusCode, 422, refused.body);
    assert.equal(refused.data.detail, 'Invalid exception');
    assert.equal(refused.data.errors[0].field, 'body.value');
    assert.match(refused.data.errors[0].message, LIMIT);
  });

  test('re-enabling an exception or a rule change past the limit is 422 too; a cheap exception still fits', async () => {
    const disabled = await analyst.post(`/api/rules/${ruleId}/exceptions`, { ...costly(500), enabled: false });
    assert.equal(disabled.statusCode, 201, disabled.body);
    const enabling = await analyst.patch(`/api/rules/${ruleId}/exceptions/${disabled.data.id}`, { enabled: true });
    assert.equal(enabling.statusCode, 422, enabling.body);
    assert.match(enabling.data.errors[0].message, LIMIT);
    const costlier = sigma({ title: 'Every event', detection: "  selection:\n    EventID: 1\n    CommandLine|re: '[a-z]{999}0'\n  condition: selection" });
    const change = await analyst.put(`/api/rules/${ruleId}`, { yaml_content: costlier });
    assert.equal(change.statusCode, 422, change.body);
    assert.equal(change.data.errors[0].field, 'detection');
    assert.match(change.data.errors[0].message, /^with this detection the rule's matching cost with its exceptions would be [\d,]+ .*limit 10,000 per rule/);
    const cheap = await analyst.post(`/api/rules/${ruleId}/exceptions`, { field: 'User', operator: 'equals', value: 'backup' });
    assert.equal(cheap.statusCode, 201, cheap.body);
  });

  test('large events are matched with the exceptions off the event loop; one past the per-event budget is rejected alone', async () => {
    const events = [
      { EventID: 1, CommandLine: 'b'.repeat(20_000), seq: 1 },
      { EventID: 1, CommandLine: `${'a'.repeat(999)}5x0`, seq: 2 },
      { EventID: 1, CommandLine: 'c'.repeat(1_000_000), seq: 3 },
      { EventID: 1, CommandLine: 'run', seq: 4 },
    ];
    const probe = await probeHealthDuring(base, () =>
      send(`${base}/api/logs/${pattern.name}`, {
        method: 'POST',
        body: events.map((e) => JSON.stringify(e)).join('\n'),
        headers: { authorization: `Bearer ${pattern.ingest_token}`, 'content-type': 'application/x-ndjson' },
      }),
    );
    assertResponsive(probe, 'ingest of large events against costly exceptions');
    assert.equal(probe.result.status, 200, probe.result.text.slice(0, 300));
    assert.equal(probe.result.data.accepted, 3);
    assert.deepEqual(probe.result.data.errors.map((e: { index: number }) => e.index), [2]);
    assert.match(probe.result.data.errors[0].error, /^matching the event could exceed the per-event work budget of 1,000,000,000: .* of the rules it may match \(their exceptions included\)/);
    // The second event is excepted (999 letters, a digit, x0): alerts for the first and the last only.
    assert.equal(probe.result.data.alerts_created, 2);
    const seqs = await ctx.service.db.query<{ seq: string }>("SELECT event->>'seq' AS seq FROM alerts WHERE rule_id = $1 ORDER BY 1", [ruleId]);
    assert.deepEqual(seqs.map((r) => r.seq), ['0', '1', '4']);
  });

  test('a historical test over the accepted events counts matches and exceptions while health answers', async () => {
    const probe = await probeHealthDuring(base, () => analyst.post(`/api/rules/${ruleId}/test/historical`, { time_range: '1h' }));
    assertResponsive(probe, 'historical test within the budget');
    assert.equal(probe.result.statusCode, 200, probe.result.body);
    assert.equal(probe.result.data.matches, 3);
    assert.equal(probe.result.data.excepted, 1);
  });

  test('a historical test meeting the large stored event answers 413 naming the cost with the exceptions; health answers meanwhile', async () => {
    const probe = await probeHealthDuring(base, () => analyst.post(`/api/rules/${ruleId}/test/historical`, { time_range: '6h' }));
    assertResponsive(probe, 'historical test against costly exceptions');
    assert.equal(probe.result.statusCode, 413, probe.result.body);
    assert.match(probe.result.data.detail, /^Rule test too large: a stored event's [\d,]+ characters of text times the matching cost of [\d,]+ of the rule and its exceptions exceed the work budget of 1,000,000,000 per event$/);
    const sample = await analyst.post(`/api/rules/${ruleId}/test`, { sample_log: { EventID: 1, CommandLine: 'd'.repeat(1_000_000) } });
    assert.equal(sample.statusCode, 413, sample.body);
    assert.match(sample.data.detail, /of the rule and its exceptions exceed the work budget/);
  });
});

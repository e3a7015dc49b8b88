// Historical and correlation tests match stored (or sample) events on the thread that answers requests,
// so each event is held to the per-event work budget of sample tests: an event whose text times the
// rules' matching cost could take seconds (about 1 MB against a rule at its wildcard limit: 9 s) ends
// the test at once with 413 naming the budget, while GET /api/health keeps answering.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import { describeEachDatabase, type Client } from '../helpers/service.js';
import { createRule, ingest, setUpTeam, type CreatedPattern } from '../rules/fixtures.js';
import { correlation } from '../correlation/scenario.js';
import { listening, probeHealthDuring } from './ingest-busy-probe.js';

/** 1,000 wildcard values, each scanning a value for an `x` and then for its number. */
const COSTLY = stringify({
  title: 'Costly history rule',
  name: 'costly_history',
  status: 'test',
  logsource: { product: 'windows' },
  detection: { selection: { CommandLine: Array.from({ length: 1000 }, (_, i) => `*x*${i}`) }, condition: 'selection' },
  level: 'low',
});
/** About 1 MB of text with an `x` every three characters and no digit. */
const HUGE = ('abx'.repeat(33) + 'c').repeat(10_000);
const TOO_LARGE = /^Rule test too large: (a stored event|sample_log\[1\])'s [\d,]+ characters of text times the (rule's|referenced rules') matching cost of [\d,]+ exceed the work budget of 1,000,000,000 per event$/;

describeEachDatabase('historical and correlation tests within the per-event work budget', (ctx) => {
  let analyst: Client;
  let pattern: CreatedPattern;
  let base: string;
  let ruleId: string;
  let correlationId: string;
  const brute = correlation({ title: 'Costly repeats', type: 'event_count', rules: ['costly_history'], groupBy: ['User'], timespan: '1h', condition: { gte: 2 } });

  before(async () => {
    ({ analyst, pattern } = await setUpTeam(ctx.service, 'budget-analyst', 'budget-viewer', { name: 'history-budget', is_default: true }));
    ruleId = (await createRule(analyst, { yaml_content: COSTLY })).id;
    correlationId = (await createRule(analyst, { yaml_content: brute })).id;
    const stored = await ingest(ctx.service, pattern, [{ CommandLine: 'run x7', User: 'ann' }, { CommandLine: HUGE, User: 'ann' }]);
    assert.equal(stored.data.accepted, 2, stored.body);
    base = await listening(ctx.service);
  });

  test('a historical test meeting an event over the budget answers 413 at once; health answers meanwhile', async () => {
    const probe = await probeHealthDuring(base, () => analyst.post(`/api/rules/${ruleId}/test/historical`, { time_range: '1h' }));
    assert.equal(probe.result.statusCode, 413, probe.result.body);
    assert.match(probe.result.data.detail, TOO_LARGE);
    assert.match(probe.result.data.detail, /^Rule test too large: a stored event's /);
  });

  test("a correlation's historical and sample tests are held to the same budget", async () => {
    const history = await analyst.post(`/api/rules/${correlationId}/test/historical`, { time_range: '1h' });
    assert.equal(history.statusCode, 413, history.body);
    assert.match(history.data.detail, TOO_LARGE);
    const samples = await analyst.post('/api/rules/test', { yaml_content: brute, sample_log: [{ CommandLine: 'run x7', User: 'ann' }, { CommandLine: HUGE, User: 'ann' }] });
    assert.equal(samples.statusCode, 413, samples.body);
    assert.match(samples.data.detail, TOO_LARGE);
    assert.match(samples.data.detail, /^Rule test too large: sample_log\[1\]'s /);
  });

  test('events within the budget are tested as before', async () => {
    const small = await analyst.post('/api/rules/test', { yaml_content: brute, sample_log: [{ CommandLine: 'run x7', User: 'ann' }, { CommandLine: 'then x8', User: 'ann' }] });
    assert.equal(small.statusCode, 200, small.body);
    assert.equal(small.data.matches, true);
  });
});

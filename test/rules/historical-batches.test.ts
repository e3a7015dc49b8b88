// Historical rule tests read stored events in batches: every event in the range is examined exactly
// once across batch boundaries, also when many events share one timestamp (the order between them is
// their id) and when times are epoch seconds with a fraction.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase, loginAdmin, type Client } from '../helpers/service.js';
import { createPattern, createRule, equalsRule, ingest, type CreatedPattern, type Json } from './fixtures.js';

/** More than two batches of the history scan (500 events each). */
const SAME_TIME = 1203;
const FRACTIONAL = 707;

describeEachDatabase('historical rule tests across batches', (ctx) => {
  let admin: Client;
  let pattern: CreatedPattern;
  let rule: Record<string, Json>;

  before(async () => {
    admin = await loginAdmin(ctx.service);
    pattern = await createPattern(admin, { name: 'batches' });
    rule = await createRule(admin, { yaml_content: equalsRule('Every third event', 'Image', 'match.exe', 'low'), index_pattern: 'batches' });
    const at = new Date(Date.now() - 3600_000).toISOString();
    const sameTime = Array.from({ length: SAME_TIME }, (_, i) => ({ '@timestamp': at, seq: i, Image: i % 3 === 0 ? 'match.exe' : 'other.exe' }));
    const base = Math.floor(Date.now() / 1000) - 7200;
    const fractional = Array.from({ length: FRACTIONAL }, (_, i) => ({ '@timestamp': base + i / 1000 + 0.000123, seq: `f${i}`, Image: 'other.exe' }));
    for (const events of [sameTime, fractional]) {
      const response = await ingest(ctx.service, pattern, events);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.data.accepted, events.length);
    }
  });

  test('a 7-day test examines every stored event once and counts every match', async () => {
    const response = await admin.post(`/api/rules/${rule.id}/test/historical`, { time_range: '7d', limit: 5 });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.data.events_scanned, SAME_TIME + FRACTIONAL);
    assert.equal(response.data.matches, Math.ceil(SAME_TIME / 3));
    assert.equal(response.data.sample_matches.length, 5);
    assert.equal(response.data.truncated, false);
  });
});

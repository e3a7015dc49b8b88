// Historical rule tests over stored events: events ingested with @timestamp inside and outside each range;
// 1h/6h/1d/7d count exactly the matching stored events; limit caps sample_matches; 400/503; no alerts.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase, loginAdmin, type Client } from '../helpers/service.js';
import { NIL_UUID, assertError, countRows, createPattern, createRule, equalsRule, ingest, whileBackendOffline, type CreatedPattern, type Json, userAs } from './fixtures.js';

const HOUR = 3600_000;
// Matching events per age (hours ago): 1h → 0.5 (×3); 6h → +3 (×4); 1d → +12 (×5); 7d → +100 (×6); outside 7d: 200 (×2).
const MATCH_AGES: [number, number][] = [
  [0.5, 3],
  [3, 4],
  [12, 5],
  [100, 6],
  [200, 2],
];
const EXPECTED = { '1h': 3, '6h': 7, '1d': 12, '7d': 18 } as const;

describeEachDatabase('historical rule tests', (ctx) => {
  let admin: Client;
  let analyst: Client;
  let viewer: Client;
  let pattern: CreatedPattern;
  let rule: Record<string, Json>;
  let now: number;

  before(async () => {
    admin = await loginAdmin(ctx.service);
    analyst = await userAs(admin, 'analyst', 'hank');
    viewer = await userAs(admin, 'viewer', 'hal');
    pattern = await createPattern(admin, { name: 'history', is_default: true, retention_days: 30 });
    await createPattern(admin, { name: 'history-other' });
    rule = await createRule(analyst, { yaml_content: equalsRule('Mimikatz in history', 'Image', 'mimikatz.exe', 'critical') });
    now = Date.now();
    const events: object[] = [];
    let n = 0;
    for (const [hours, count] of MATCH_AGES) {
      for (let i = 0; i < count; i++) {
        const at = new Date(now - hours * HOUR - i * 1000).toISOString();
        events.push({ '@timestamp': at, Image: 'MIMIKATZ.EXE', source: { ip: `10.0.0.${++n}` }, user: { name: `user${n}` } });
        events.push({ '@timestamp': at, Image: 'notepad.exe', seq: n });
      }
    }
    const response = await ingest(ctx.service, pattern, events);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.data.accepted, events.length);
    assert.equal(response.data.alerts_created, 0);
  });

  const historical = (body: object, client: Client = analyst, id = rule.id) => client.post(`/api/rules/${id}/test/historical`, body);

  test('each time range counts exactly the matching stored events inside it', async () => {
    for (const [range, expected] of Object.entries(EXPECTED)) {
      const response = await historical({ time_range: range, limit: 100 });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.data.rule_id, rule.id);
      assert.equal(response.data.rule_title, 'Mimikatz in history');
      assert.equal(response.data.time_range, range);
      assert.equal(response.data.matches, expected, range);
      assert.equal(response.data.events_scanned, expected * 2, range);
      assert.equal(response.data.sample_matches.length, expected, range);
    }
  });

  test('sample matches are the stored events with timestamp added (source, user objects kept)', async () => {
    const response = await historical({ time_range: '1h', limit: 10 });
    const samples = response.data.sample_matches;
    assert.equal(samples.length, 3);
    for (const sample of samples) {
      assert.equal(sample.Image, 'MIMIKATZ.EXE');
      assert.match(sample.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      assert.equal(sample.timestamp, sample['@timestamp']);
      assert.ok(now - Date.parse(sample.timestamp) <= HOUR);
      assert.equal(typeof sample.source.ip, 'string');
      assert.equal(typeof sample.user.name, 'string');
    }
  });

  test('limit caps sample_matches (default 10, 1..100) but not matches', async () => {
    const defaulted = await historical({ time_range: '7d' });
    assert.equal(defaulted.statusCode, 200, defaulted.body);
    assert.equal(defaulted.data.matches, 18);
    assert.equal(defaulted.data.sample_matches.length, 10);
    const one = await historical({ time_range: '7d', limit: 1 });
    assert.equal(one.data.matches, 18);
    assert.equal(one.data.sample_matches.length, 1);
    for (const limit of [0, 101, -1, 2.5, 'ten']) {
      const response = await historical({ time_range: '7d', limit });
      assert.equal(response.statusCode, 400, `limit ${limit}: ${response.body}`);
    }
  });

  test('a bad or missing time_range is 400', async () => {
    for (const body of [{ time_range: '2h' }, { time_range: '30d' }, { time_range: '' }, { time_range: 1 }, {}]) {
      const response = await historical(body);
      assert.equal(response.statusCode, 400, `${JSON.stringify(body)}: ${response.body}`);
      assert.equal(response.data.status_code, 400);
    }
  });

  test('only the rule\'s own index pattern is searched', async () => {
    const other = await createRule(analyst, { yaml_content: equalsRule('Other pattern', 'Image', 'mimikatz.exe'), index_pattern: 'history-other' });
    const response = await historical({ time_range: '7d' }, analyst, other.id);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.data.matches, 0);
    assert.equal(response.data.events_scanned, 0);
    assert.deepEqual(response.data.sample_matches, []);
  });

  test('the backend offline is 503; viewers 403; unknown rule 404; no alerts and no events are created', async () => {
    const events = await countRows(ctx.service, 'events', []);
    const offline = await whileBackendOffline(ctx.service, () => historical({ time_range: '1h' }));
    assert.equal(offline.statusCode, 503, offline.body);
    assert.match(offline.data.detail, /unavailable|connection failed/i);
    assertError(await historical({ time_range: '1h' }, viewer), 403, 'Not enough permissions');
    assertError(await historical({ time_range: '1h' }, analyst, NIL_UUID), 404, 'Rule not found');
    assertError(await analyst.post('/api/rules/not-a-uuid/test/historical', { time_range: '1h' }), 404, 'Rule not found');
    assert.equal(await countRows(ctx.service, 'events', []), events);
    const alertsTable = await ctx.service.db.query("SELECT 1 FROM information_schema.tables WHERE table_name = 'alerts'");
    if (alertsTable.length > 0) assert.equal(await countRows(ctx.service, 'alerts', []), 0);
  });

  test('re-ingesting the same events stores them once: the counts stay exact', async () => {
    const again = await ingest(ctx.service, pattern, [{ '@timestamp': new Date(now - 10 * 60_000).toISOString(), Image: 'mimikatz.exe', once: true }]);
    assert.equal(again.statusCode, 200, again.body);
    const twice = await ingest(ctx.service, pattern, [{ '@timestamp': new Date(now - 10 * 60_000).toISOString(), Image: 'mimikatz.exe', once: true }]);
    assert.equal(twice.statusCode, 200, twice.body);
    const response = await historical({ time_range: '1h', limit: 100 });
    assert.equal(response.data.matches, EXPECTED['1h'] + 1);
  });
});

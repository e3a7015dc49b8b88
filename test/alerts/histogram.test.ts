// GET /api/alerts/histogram: alerts per slice of event time under the list's filters, on both
// databases: round widths aligned to the epoch, empty slices included, the range from the bounds or
// from the matching events, the list's filters (host, severity, search, …) applied, at most the buckets
// asked for, and a 400 naming the parameter for bad input. Declared in the OpenAPI description.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { anonymous, describeEachDatabase, type Client } from '../helpers/service.js';
import { assertError, createRule, equalsRule, ingest, setUpTeam, type CreatedPattern } from '../rules/fixtures.js';
import { bucketWidth } from '../../src/alerts/histogram.js';

interface Histogram {
  buckets: { start: string; count: number }[];
  interval_seconds: number;
  start: string | null;
  end: string | null;
  total: number;
  total_exact: boolean;
}

/** Ten events at 10:00–10:09 UTC one minute apart (hosts h-0/h-1), and three at 12:30, 12:31, 12:59 on host late. */
const BASE = Date.parse('2025-03-01T10:00:00Z');
const EVENTS = [
  ...Array.from({ length: 10 }, (_, i) => ({ Kind: 'hist', '@timestamp': new Date(BASE + i * 60_000).toISOString(), Computer: `h-${i % 2}`, Seq: i })),
  ...[150, 151, 179].map((m, i) => ({ Kind: 'hist', '@timestamp': new Date(BASE + m * 60_000).toISOString(), Computer: 'late', Seq: 100 + i })),
];

describeEachDatabase('alert histogram', (ctx) => {
  let viewer: Client;
  let pattern: CreatedPattern;

  before(async () => {
    let analyst: Client;
    ({ analyst, viewer, pattern } = await setUpTeam(ctx.service, 'hanna', 'hugo', { name: 'hist', is_default: true }));
    await createRule(analyst, { yaml_content: equalsRule('Histogram Marker', 'Kind', 'hist', 'high'), deploy: true });
    const answer = await ingest(ctx.service, pattern, EVENTS);
    assert.equal(answer.data.alerts_created, EVENTS.length, answer.body);
  });

  const histogram = async (query: string): Promise<Histogram> => {
    const res = await viewer.get(`/api/alerts/histogram?${query}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.data as Histogram;
  };

  test('counts per slice over the given range, empty slices included, aligned on round widths', async () => {
    const h = await histogram('event_after=2025-03-01T09:52:00Z&event_before=2025-03-01T13:00:00Z&buckets=13');
    assert.equal(h.interval_seconds, 900, 'a little over three hours in 13 slices: 15 minutes');
    assert.equal(h.buckets.length, 13);
    assert.equal(h.buckets[0].start, '2025-03-01T09:45:00.000Z', 'the first slice starts at a multiple of its width');
    assert.deepEqual(h.buckets.map((b) => b.count), [0, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 1]);
    assert.equal(h.total, 13);
    assert.equal(h.total_exact, true);
    assert.equal(h.end, '2025-03-01T13:00:00.000Z');
  });

  test('without bounds the range is that of the matching events; the filters of the list apply', async () => {
    const all = await histogram('buckets=60');
    assert.equal(all.total, 13);
    assert.equal(all.start, '2025-03-01T10:00:00.000Z');
    assert.ok(all.buckets.length <= 60 && all.buckets.length >= 30, `${all.buckets.length} buckets`);
    assert.equal(all.interval_seconds, 300);
    assert.equal(all.buckets.reduce((a, b) => a + b.count, 0), 13);

    const host = await histogram('host=h-0&buckets=10');
    assert.equal(host.total, 5);
    assert.equal(host.interval_seconds, 60, 'eight minutes between h-0 events: one-minute slices');
    assert.deepEqual(host.buckets.filter((b) => b.count > 0).map((b) => b.start.slice(11, 16)), ['10:00', '10:02', '10:04', '10:06', '10:08']);

    assert.equal((await histogram('search=late&buckets=5')).total, 3);
    assert.equal((await histogram('severity=low')).total, 0);
    const none = await histogram('host=nobody');
    assert.deepEqual(none, { buckets: [], interval_seconds: 0, start: null, end: null, total: 0, total_exact: true });
    const list = (await viewer.get('/api/alerts?host=late&event_after=2025-03-01T12:00:00Z')).data as { total: number };
    assert.equal((await histogram('host=late&event_after=2025-03-01T12:00:00Z&buckets=4')).total, list.total, 'the same alerts as the list');
  });

  test('a wide range keeps to the buckets asked for, in whole days', async () => {
    const h = await histogram('event_after=2020-01-01T00:00:00Z&event_before=2030-01-01T00:00:00Z&buckets=200');
    assert.ok(h.buckets.length <= 200, `${h.buckets.length} buckets`);
    assert.equal(h.interval_seconds % 86400, 0);
    assert.equal(h.total, 13);
    assert.equal(Date.parse(h.buckets[0].start) % (h.interval_seconds * 1000), 0);
    assert.equal((await histogram('event_after=2025-03-01T10:00:30Z&event_before=2025-03-01T10:00:31Z&buckets=1')).buckets.length, 1);
  });

  test('bad input answers 400 naming the parameter', async () => {
    for (const [query, field] of [
      ['buckets=0', 'query.buckets'],
      ['buckets=201', 'query.buckets'],
      ['buckets=ten', 'query.buckets'],
      ['event_after=yesterday', 'query.event_after'],
      ['severity=urgent', 'query.severity'],
      ['by=host', 'query.by'],
    ]) {
      const res = await viewer.get(`/api/alerts/histogram?${query}`);
      assertError(res, 400, 'Invalid request');
      assert.ok((res.data.errors as { field: string }[]).some((e) => e.field === field), `${query}: ${res.body}`);
    }
    const reversed = await viewer.get('/api/alerts/histogram?event_after=2025-03-02T00:00:00Z&event_before=2025-03-01T00:00:00Z');
    assertError(reversed, 400, 'event_before must be later than event_after');
    assert.deepEqual(reversed.data.errors, [{ field: 'query.event_before', message: 'must be later than event_after' }]);
    assertError(await anonymous(ctx.service).get('/api/alerts/histogram'), 401, 'Could not validate credentials');
  });

  test('the OpenAPI description lists the endpoint and its answer', async () => {
    const doc = (await viewer.get('/api/openapi.json')).data as { paths: Record<string, { get?: { operationId?: string; parameters?: { name: string }[] } }> };
    const op = doc.paths['/api/alerts/histogram']?.get;
    assert.equal(op?.operationId, 'alertHistogram');
    assert.ok(op?.parameters?.some((p) => p.name === 'buckets'));
    assert.ok(op?.parameters?.some((p) => p.name === 'event_after'));
  });
});

test('bucket widths are round and never give more slices than asked for', () => {
  assert.equal(bucketWidth(0, 3600_000, 60), 60);
  assert.equal(bucketWidth(0, 86_400_000, 24), 3600);
  assert.equal(bucketWidth(0, 86_400_000, 25), 3600);
  assert.equal(bucketWidth(1000, 2000, 1), 1);
  for (const [from, to, n] of [
    [Date.parse('2025-01-01T00:00:07Z'), Date.parse('2025-01-01T00:59:59Z'), 60],
    [0, 10 * 365 * 86_400_000, 200],
    [123_456_789, 987_654_321_000, 7],
    [5_000, 6_001, 1],
  ]) {
    const width = bucketWidth(from, to, n);
    const slices = Math.ceil(to / 1000 / width) - Math.floor(from / 1000 / width);
    assert.ok(slices <= n, `${from}..${to} in ${n}: width ${width} gives ${slices}`);
  }
});

// An alert's event_time is the event's own time whenever the event carries one: the index pattern's
// timestamp field first, then the fields its preset declares (evtx_dump's TimeCreated for Windows
// events without a preset, Beats' @timestamp, ...); a time without an offset is UTC; only an event
// without any time gets its arrival time.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase, type Client } from '../helpers/service.js';
import { createRule, equalsRule, ingest, setUpTeam, type CreatedPattern } from '../rules/fixtures.js';
import { eventTimeAccessor } from '../../src/ingest/event-time-fields.js';
import { eventTime } from '../../src/ingest/event-checks.js';

describeEachDatabase('event time of alerts', (ctx) => {
  let analyst: Client;
  let plain: CreatedPattern;

  before(async () => {
    ({ analyst, pattern: plain } = await setUpTeam(ctx.service, 'tess', 'tim', { name: 'plain' }));
    await createRule(analyst, { yaml_content: equalsRule('Marker', 'Marker', 'x'), index_pattern: 'plain', deploy: true });
  });

  const timeOf = async (pattern: string, marker: string) => {
    const [row] = await ctx.service.db.query<{ event_time: Date }>(`SELECT event_time FROM alerts WHERE index_pattern = $1 AND event::text LIKE $2`, [pattern, `%${marker}%`]);
    return row.event_time.toISOString();
  };

  test('an EVTX-shaped event without @timestamp has its TimeCreated as event time', async () => {
    const evtx = { Marker: 'x', Id: 'evtx-1', Event: { System: { EventID: 4688, TimeCreated: { '#attributes': { SystemTime: '2019-05-12T16:02:41.123456Z' } } } } };
    const inline = { Marker: 'x', Id: 'evtx-2', Event: { System: { EventID: 4688, TimeCreated: { SystemTime: '2019-05-12T16:03:00Z' } } } };
    const response = await ingest(ctx.service, plain, [evtx, inline]);
    assert.equal(response.data.alerts_created, 2, response.body);
    assert.equal(await timeOf('plain', 'evtx-1'), '2019-05-12T16:02:41.123Z');
    assert.equal(await timeOf('plain', 'evtx-2'), '2019-05-12T16:03:00.000Z');
  });

  test("the pattern's timestamp field wins; a time without an offset is UTC; no time at all is the arrival time", async () => {
    const before = Date.now();
    const response = await ingest(ctx.service, plain, [
      { Marker: 'x', Id: 'both', '@timestamp': '2021-01-01T00:00:00Z', Event: { System: { TimeCreated: { SystemTime: '2019-01-01T00:00:00Z' } } } },
      { Marker: 'x', Id: 'no-offset', '@timestamp': '2021-02-03 04:05:06' },
      { Marker: 'x', Id: 'empty', '@timestamp': '', UtcTime: '2021-03-04 05:06:07.250' },
      { Marker: 'x', Id: 'none' },
    ]);
    assert.equal(response.data.alerts_created, 4, response.body);
    assert.equal(await timeOf('plain', 'both'), '2021-01-01T00:00:00.000Z');
    assert.equal(await timeOf('plain', 'no-offset'), '2021-02-03T04:05:06.000Z');
    assert.equal(await timeOf('plain', 'empty'), '2021-03-04T05:06:07.250Z', 'an empty timestamp field does not count');
    assert.ok(Date.parse(await timeOf('plain', '"none"')) >= before - 1000);
  });

  test('the list sorts by event time and filters on an event-time range', async () => {
    const list = async (query: string) => (await analyst.get(`/api/alerts?index_pattern=plain&${query}`)).data;
    const sorted = await list('sort_by=event_time&sort_order=asc&page_size=3');
    assert.deepEqual(sorted.items.map((a: { event_time: string }) => a.event_time), ['2019-05-12T16:02:41.123Z', '2019-05-12T16:03:00.000Z', '2021-01-01T00:00:00.000Z']);
    const range = await list('event_after=2019-12-31T23:59:59Z&event_before=2021-02-04T00:00:00Z&sort_by=event_time&sort_order=asc');
    assert.deepEqual(range.items.map((a: { event_time: string }) => a.event_time), ['2021-01-01T00:00:00.000Z', '2021-02-03T04:05:06.000Z']);
    assert.equal(range.total, 2);
    // Bounded by event time in arrival order, a page at a time: newest first below a bound, oldest first above one.
    for (const [query, sql] of [
      ['event_before=2021-02-04T00:00:00Z', `event_time < '2021-02-04T00:00:00Z' ORDER BY created_at DESC, id DESC`],
      ['event_after=2019-12-31T23:59:59Z&sort_order=asc', `event_time >= '2019-12-31T23:59:59.001Z' ORDER BY created_at ASC, id ASC`],
    ]) {
      const expected = await ctx.service.db.query<{ id: string }>(`SELECT id FROM alerts WHERE index_pattern = 'plain' AND ${sql}`);
      assert.ok(expected.length >= 3, query);
      const pages = [];
      for (let page = 1; page <= expected.length; page++) {
        const one = await list(`${query}&page_size=1&page=${page}`);
        assert.equal(one.total, expected.length, query);
        pages.push(...one.items.map((a: { id: string }) => a.id));
      }
      assert.deepEqual(pages, expected.map((r) => r.id), query);
    }
    const bad = await analyst.get('/api/alerts?event_after=yesterday');
    assert.equal(bad.statusCode, 400, bad.body);
  });

  test('a Beats preset reads winlog.time_created when @timestamp is missing', () => {
    const accessor = eventTimeAccessor({ timestamp_field: '@timestamp', preset: 'winlogbeat-raw' });
    const now = new Date();
    assert.equal(eventTime(accessor, { winlog: { time_created: '2022-06-07T08:09:10Z' } }, now)?.toISOString(), '2022-06-07T08:09:10.000Z');
    assert.equal(eventTime(accessor, { '@timestamp': '2023-01-01T00:00:00Z', winlog: { time_created: '2022-06-07T08:09:10Z' } }, now)?.toISOString(), '2023-01-01T00:00:00.000Z');
    assert.equal(eventTime(accessor, {}, now), now);
  });
});

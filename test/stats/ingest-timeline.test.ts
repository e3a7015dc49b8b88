// GET /api/stats ingest.timeline: events received per UTC hour over the same 24 hours as the alert
// timeline, zero-filled, counted from the events' arrival time (through the hourly event counts), so
// it follows events moved in time, removed with their index pattern, and folded counts.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, describeEachDatabase } from '../helpers/service.js';
import { foldEventCounts } from '../../src/stats/store.js';
import { createPattern, ingest, setUpTeam, type CreatedPattern, type Json } from '../rules/fixtures.js';

const HOUR = 3600_000;

describeEachDatabase('stats: ingest timeline', (ctx) => {
  let viewer: Client;
  let admin: Client;
  let pattern: CreatedPattern;

  before(async () => {
    const team = await setUpTeam(ctx.service, 'ingest-rate-analyst', 'ingest-rate-viewer', { name: 'rate', is_default: true });
    viewer = team.viewer;
    admin = team.admin;
    pattern = team.pattern;
  });

  const stats = async (): Promise<Json> => {
    const response = await viewer.get('/api/stats');
    assert.equal(response.statusCode, 200, response.body);
    return response.data;
  };
  const counts = (timeline: Json[]) => timeline.map((t: Json) => t.count as number);
  const send = async (target: CreatedPattern, events: object[]) => {
    const response = await ingest(ctx.service, target, events);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.data.accepted, events.length, response.body);
  };

  test('has 24 hourly UTC entries ending with the current hour, the same hours as the alert timeline, all 0 without events', async () => {
    const s = await stats();
    const timeline = s.ingest.timeline;
    assert.equal(timeline.length, 24);
    assert.deepEqual(counts(timeline), new Array(24).fill(0));
    const last = Date.parse(timeline[23].time);
    assert.equal(last % HOUR, 0, 'aligned to the hour');
    assert.ok(last <= Date.now() && Date.now() - last < 2 * HOUR, `${timeline[23].time} is the current hour`);
    for (let i = 1; i < 24; i++) assert.equal(Date.parse(timeline[i].time) - Date.parse(timeline[i - 1].time), HOUR);
    assert.deepEqual(
      timeline.map((t: Json) => t.time),
      s.timeline.map((t: Json) => t.time),
    );
    // The existing figures are unchanged in name and kind.
    assert.deepEqual(Object.keys(s.ingest).sort(), ['events_last_24h', 'events_total', 'timeline']);
  });

  test('counts every received event in the hour it arrived, matched by a rule or not', async () => {
    // One request each: the next test moves each one's arrival to another hour (a request's events are
    // stored together and share their arrival time).
    for (const n of [1, 2, 3, 4]) await send(pattern, [{ n }]);
    const s = await stats();
    const expected = new Array(24).fill(0);
    expected[23] = 4;
    assert.deepEqual(counts(s.ingest.timeline), expected);
    assert.equal(s.ingest.events_last_24h, 4);
    assert.equal(s.ingest.events_total, 4);
  });

  test('places events by their arrival hour; events older than the window leave it but stay in the total', async () => {
    const currentHour = Date.parse((await stats()).ingest.timeline[23].time);
    // n=1 five hours back, n=2 into the first hour of the window, n=3 out of the window (n=4 stays now).
    const place = async (n: number, hoursBack: number) =>
      ctx.service.db.query(`UPDATE event_blocks SET received_at = $1 WHERE id IN (SELECT block_id FROM events WHERE (event::jsonb)->>'n' = $2)`, [new Date(currentHour - hoursBack * HOUR + 60_000), String(n)]);
    await place(1, 5);
    await place(2, 23);
    await place(3, 30);
    const s = await stats();
    // Expected from the stored arrival times and the answer's own hours (the hour may turn between reads).
    const received = (await ctx.service.db.query<{ t: Date }>('SELECT received_at AS t FROM events')).map((r) => r.t.getTime());
    const expected = s.ingest.timeline.map((entry: Json) => {
      const start = Date.parse(entry.time);
      return received.filter((t) => t >= start && t < start + HOUR).length;
    });
    assert.deepEqual(counts(s.ingest.timeline), expected);
    assert.equal(s.ingest.timeline.find((t: Json) => Date.parse(t.time) === currentHour - 5 * HOUR)?.count, 1);
    assert.ok(expected.reduce((a: number, b: number) => a + b, 0) >= 2, 'n=1 and n=4 are in the window');
    assert.equal(s.ingest.events_total, 4);
  });

  test('folding the stored counts changes nothing; events removed with their index pattern leave the timeline', async () => {
    const before = await stats();
    await foldEventCounts(ctx.service.db);
    assert.deepEqual((await stats()).ingest, before.ingest);

    const temp = await createPattern(admin, { name: 'rate-temp' });
    await send(temp, [{ a: 1 }, { a: 2 }]);
    const withTemp = (await stats()).ingest;
    assert.equal(withTemp.timeline[23].count, before.ingest.timeline[23].count + 2);
    assert.equal((await admin.delete(`/api/index_patterns/${temp.id}`)).statusCode, 204);
    assert.deepEqual((await stats()).ingest, before.ingest);
  });

  test('the external stats carry the same timeline', async () => {
    const created = await admin.post('/api/api_keys', { name: 'rate-reader' });
    assert.equal(created.statusCode, 201, created.body);
    const response = await new Client(ctx.service, created.data.key).get('/api/external/stats');
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.data.ingest.timeline, (await stats()).ingest.timeline);
  });
});

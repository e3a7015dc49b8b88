// Stored events in blocks: a request's new events are one block (newest first), re-delivered events
// mixed with new ones are kept once and counted once in the field catalogue, a request bigger than a
// block's 8 MiB is split over several blocks, and the history scan sees every event of every block.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase, loginAdmin, type Client } from '../helpers/service.js';
import { countRows, createPattern, ingest, type CreatedPattern } from '../rules/fixtures.js';

describeEachDatabase('stored events in blocks', (ctx) => {
  let admin: Client;
  let pattern: CreatedPattern;

  before(async () => {
    admin = await loginAdmin(ctx.service);
    pattern = await createPattern(admin, { name: 'blocks' });
  });

  const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
  const fieldCounts = async (p: CreatedPattern) =>
    Object.fromEntries(((await admin.get(`/api/index_patterns/${p.id}/fields?page_size=100`)).data.items as { field: string; count: number }[]).map((f) => [f.field, f.count]));

  test("a request's events are one block, newest first; the view has one row per event", async () => {
    const response = await ingest(ctx.service, pattern, [
      { '@timestamp': at(30), n: 1 },
      { '@timestamp': at(10), n: 2 },
      { '@timestamp': at(20), n: 3 },
    ]);
    assert.equal(response.statusCode, 200, response.body);
    const blocks = await ctx.service.db.query<{ event_count: number; events: string }>(
      `SELECT event_count, events::text AS events FROM event_blocks WHERE index_pattern_id = $1`,
      [pattern.id],
    );
    assert.equal(blocks.length, 1);
    assert.equal(blocks[0].event_count, 3);
    assert.deepEqual((JSON.parse(blocks[0].events) as { n: number }[]).map((e) => e.n), [2, 3, 1]);
    const rows = await ctx.service.db.query<{ n: string; event_hash: string; event_time: Date }>(
      `SELECT event->>'n' AS n, event_hash, event_time FROM events WHERE index_pattern_id = $1 ORDER BY event_time`,
      [pattern.id],
    );
    assert.deepEqual(rows.map((r) => r.n), ['1', '3', '2']);
    for (const r of rows) assert.match(r.event_hash, /^[0-9a-f]{64}$/);
  });

  test('re-delivered events mixed with new ones are kept once and counted once in the catalogue', async () => {
    const p = await createPattern(admin, { name: 'blocks-repeat' });
    const a = { '@timestamp': at(5), id: 'a', only_a: 1 };
    const b = { '@timestamp': at(4), id: 'b' };
    const c = { '@timestamp': at(3), id: 'c' };
    assert.equal((await ingest(ctx.service, p, [a, b])).data.accepted, 2);
    // b again (keys in another order), c twice in the same request.
    const again = await ingest(ctx.service, p, [{ id: 'b', '@timestamp': b['@timestamp'] }, c, c, a]);
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.data.accepted, 4);
    const ids = await ctx.service.db.query<{ id: string }>(`SELECT event->>'id' AS id FROM events WHERE index_pattern_id = $1 ORDER BY 1`, [p.id]);
    assert.deepEqual(ids.map((r) => r.id), ['a', 'b', 'c']);
    assert.equal(await countRows(ctx.service, 'event_hashes WHERE index_pattern_id = $1', [p.id]), 3);
    assert.deepEqual(await fieldCounts(p), { '@timestamp': 3, id: 3, only_a: 1 });
    // A request of repeats only leaves no block behind.
    const blocksBefore = await countRows(ctx.service, 'event_blocks WHERE index_pattern_id = $1', [p.id]);
    assert.equal((await ingest(ctx.service, p, [a, b, c])).data.accepted, 3);
    assert.equal(await countRows(ctx.service, 'event_blocks WHERE index_pattern_id = $1', [p.id]), blocksBefore);
    assert.deepEqual(await fieldCounts(p), { '@timestamp': 3, id: 3, only_a: 1 });
  });

  test('a request of more than 8 MiB of events is stored over several blocks and read back whole', async () => {
    const p = await createPattern(admin, { name: 'blocks-big' });
    const filler = 'x'.repeat(900 * 1024);
    const events = Array.from({ length: 10 }, (_, i) => ({ '@timestamp': at(i), n: i, filler }));
    const response = await ingest(ctx.service, p, events);
    assert.equal(response.statusCode, 200, response.body.slice(0, 300));
    assert.equal(response.data.accepted, 10);
    const blocks = await ctx.service.db.query<{ event_count: number }>(`SELECT event_count FROM event_blocks WHERE index_pattern_id = $1 ORDER BY last_time DESC`, [p.id]);
    assert.ok(blocks.length >= 2, `${blocks.length} block(s)`);
    assert.equal(blocks.reduce((sum, b) => sum + b.event_count, 0), 10);
    const seen: number[] = [];
    await ctx.service.context.history.scan(p.id, new Date(Date.now() - 3600_000), new Date(), (batch) => {
      for (const e of batch) seen.push(e.event.n as number);
      return true;
    });
    assert.deepEqual(seen, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  test('a history scan sees only the events of its range, and stops when told', async () => {
    const p = await createPattern(admin, { name: 'blocks-range' });
    await ingest(ctx.service, p, [{ '@timestamp': at(90), n: 'old' }, { '@timestamp': at(30), n: 'mid' }, { '@timestamp': at(1), n: 'new' }]);
    await ingest(ctx.service, p, [{ '@timestamp': at(2), n: 'newer-block' }]);
    const inRange: unknown[] = [];
    await ctx.service.context.history.scan(p.id, new Date(Date.now() - 60 * 60_000), new Date(Date.now() - 60_000 + 1), (batch) => {
      for (const e of batch) inRange.push(e.event.n);
      return true;
    });
    assert.deepEqual(inRange.sort(), ['mid', 'new', 'newer-block']);
    let batches = 0;
    await ctx.service.context.history.scan(p.id, new Date(0), new Date(), () => {
      batches++;
      return false;
    });
    assert.equal(batches, 1);
  });
});

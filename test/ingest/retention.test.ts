// Event retention: events older than the pattern's retention_days are purged; newer ones stay.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { purgeExpiredEvents } from '../../src/ingest/retention.js';
import { anonymous, describeEachDatabase, loginAdmin } from '../helpers/service.js';

describeEachDatabase('event retention', (ctx) => {
  test('purges only events past retention', async () => {
    const admin = await loginAdmin(ctx.service);
    const pattern = await admin.post('/api/index_patterns', { name: 'retained', retention_days: 2 });
    assert.equal(pattern.statusCode, 201, pattern.body);
    const day = 24 * 3600 * 1000;
    const events = [0, 1, 3, 10].map((daysAgo) => ({ '@timestamp': new Date(Date.now() - daysAgo * day).toISOString(), n: daysAgo }));
    const ingest = await anonymous(ctx.service).post('/api/logs/retained', events, { authorization: `Bearer ${pattern.data.ingest_token}` });
    assert.equal(ingest.data.accepted, 4);
    const removed = await purgeExpiredEvents(ctx.service.db, ctx.service.context.history);
    assert.equal(removed, 2);
    const left = await ctx.service.db.query<{ n: number }>(
      `SELECT (event->>'n')::int AS n FROM events WHERE index_pattern_id = $1 ORDER BY 1`,
      [pattern.data.id],
    );
    assert.deepEqual(left.map((r) => r.n), [0, 1]);
  });

  test('a request whose events are all past retention goes whole; a purged event sent again is stored again; the counts follow', async () => {
    const admin = await loginAdmin(ctx.service);
    const pattern = await admin.post('/api/index_patterns', { name: 'retained-whole', retention_days: 1 });
    assert.equal(pattern.statusCode, 201, pattern.body);
    const day = 24 * 3600 * 1000;
    const token = { authorization: `Bearer ${pattern.data.ingest_token}` };
    const old = [3, 4, 5].map((daysAgo) => ({ '@timestamp': new Date(Date.now() - daysAgo * day).toISOString(), old: daysAgo }));
    const recent = { '@timestamp': new Date().toISOString(), old: 0 };
    assert.equal((await anonymous(ctx.service).post('/api/logs/retained-whole', old, token)).data.accepted, 3);
    assert.equal((await anonymous(ctx.service).post('/api/logs/retained-whole', [recent], token)).data.accepted, 1);
    const total = async () => (await admin.get('/api/stats')).data.ingest.events_total as number;
    const before = await total();
    assert.equal(await purgeExpiredEvents(ctx.service.db, ctx.service.context.history), 3);
    assert.equal(await total(), before - 3);
    const kept = () => ctx.service.db.query<{ old: number }>(`SELECT (event->>'old')::int AS old FROM events WHERE index_pattern_id = $1 ORDER BY 1`, [pattern.data.id]);
    assert.deepEqual((await kept()).map((r) => r.old), [0]);
    // Sent again, the purged events are new events again; the kept one is a repeat.
    const again = await anonymous(ctx.service).post('/api/logs/retained-whole', [...old, recent], token);
    assert.equal(again.statusCode, 200, again.body);
    assert.deepEqual((await kept()).map((r) => r.old), [0, 3, 4, 5]);
    assert.equal(await total(), before);
  });
});

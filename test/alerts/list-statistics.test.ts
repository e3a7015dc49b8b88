// The embedded database gathers no planner statistics by itself: the alerts list gathers them when the
// table has grown (src/db/statistics.ts), so the planner knows how common a status is and a search
// filtered by status goes through the trigram index instead of reading every alert of that status.
// PostgreSQL is left to its autovacuum.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { alertConditions, type AlertListQuery } from '../../src/alerts/queries.js';
import { analyseWhenStale } from '../../src/db/statistics.js';
import { describeEachDatabase, type Client } from '../helpers/service.js';
import { createRule, ingest, setUpTeam, type Json } from '../rules/fixtures.js';

const ALERTS = 400;

describeEachDatabase('alert list: planner statistics', (ctx) => {
  let viewer: Client;

  before(async () => {
    const team = await setUpTeam(ctx.service, 'stats-analyst', 'stats-viewer', { name: 'bulk', is_default: true });
    viewer = team.viewer;
    await createRule(team.analyst, {
      deploy: true,
      yaml_content: 'title: Any Kind\nstatus: test\nlogsource:\n  product: bulk\ndetection:\n  selection:\n    Kind: bulk\n  condition: selection\nlevel: high\n',
    });
    const events = Array.from({ length: ALERTS }, (_, i) => ({ Kind: 'bulk', Computer: `host-${i % 40}`, Seq: i }));
    const response = await ingest(ctx.service, team.pattern, events);
    assert.equal(response.data.alerts_created, ALERTS, response.body);
  });

  const reltuples = async () => Number((await ctx.service.db.query<{ n: number }>(`SELECT reltuples::float8 AS n FROM pg_class WHERE oid = 'alerts'::regclass`))[0].n);

  async function plan(q: Partial<AlertListQuery>): Promise<string> {
    const where = alertConditions({ page: 1, page_size: 50, ...q } as AlertListQuery);
    const rows = await ctx.service.db.query<{ 'QUERY PLAN': string }>(`EXPLAIN SELECT 1 FROM alerts ${where.sql}`, where.params);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  }

  test('a filtered search answers the matching alerts', async () => {
    const response = await viewer.get('/api/alerts?status=new&search=host-7&page_size=100');
    assert.equal(response.statusCode, 200, response.body);
    // host-7 matches host-7 only (host-70.. do not exist with 40 hosts): every 40th event.
    assert.equal(response.data.total, ALERTS / 40);
    assert.ok(response.data.items.every((a: Json) => a.host === 'host-7'));
  });

  test('on the embedded database the list gathered the statistics: the planner knows how many alerts a status or severity has', async (t) => {
    if (ctx.service.kind !== 'pglite') return t.skip('PostgreSQL gathers statistics by itself');
    assert.ok((await reltuples()) >= ALERTS, 'the alerts table has been analysed');
    // Without statistics the planner takes any status for rare (a fraction of a percent), which at
    // 100 000 alerts made a search filtered by status read every new alert instead of the trigram matches.
    assert.match(await plan({ status: 'new' }), new RegExp(`rows=${ALERTS} `));
    assert.match(await plan({ severity: 'high' }), new RegExp(`rows=${ALERTS} `));
  });

  test('statistics are checked at most every 30 seconds, and gathered again once a tenth of the table has changed', async (t) => {
    if (ctx.service.kind !== 'pglite') return t.skip('embedded database only');
    const db = ctx.service.db;
    // Change counts reach pg_stat_user_tables when the session reports them (at most once a second).
    const reportChanges = async () => {
      await db.query('SELECT pg_stat_force_next_flush()');
      await db.query('SELECT 1');
    };
    await reportChanges();
    await db.query('ANALYZE alerts');
    await reportChanges();
    const start = Date.now() + 3_600_000;
    assert.equal(await analyseWhenStale(db, 'alerts', start), false, 'fresh statistics are kept');
    await db.query(`UPDATE alerts SET status = 'acknowledged' WHERE id IN (SELECT id FROM alerts ORDER BY id LIMIT 100)`);
    await reportChanges();
    assert.equal(await analyseWhenStale(db, 'alerts', start + 1_000), false, 'not checked again within 30 s');
    assert.equal(await analyseWhenStale(db, 'alerts', start + 31_000), true, '100 changed rows of 400 are past the threshold');
    await reportChanges();
    assert.equal(await analyseWhenStale(db, 'alerts', start + 62_000), false, 'and then fresh again');
  });

  test('PostgreSQL is left to its autovacuum', async (t) => {
    if (ctx.service.kind !== 'postgres') return t.skip('PostgreSQL only');
    assert.equal(await analyseWhenStale(ctx.service.db, 'alerts'), false);
  });
});

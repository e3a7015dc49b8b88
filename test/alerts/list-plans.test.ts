// The alerts list stays fast at a million alerts only if every order it asks for is read from an
// index and search goes through the trigram index. These tests ask the planner (with sorting and
// sequential scans priced out) for the plan of each sort, filter and search, on both databases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALERT_SORT_FIELDS, alertConditions, alertPageQuery, type AlertListQuery } from '../../src/alerts/queries.js';
import { describeEachDatabase } from '../helpers/service.js';
import { NIL_UUID } from '../rules/fixtures.js';

describeEachDatabase('alert list query plans', (ctx) => {
  async function plan(sql: string, params: unknown[]): Promise<string> {
    return ctx.service.db.transaction(async (tx) => {
      await tx.query('SET LOCAL enable_seqscan = off');
      await tx.query('SET LOCAL enable_sort = off');
      const rows = await tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params);
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    });
  }
  const pagePlan = (q: Partial<AlertListQuery>) => {
    const query = alertPageQuery({ page: 1, page_size: 20, sort_order: 'desc', ...q });
    return plan(query.sql, query.params);
  };

  test('every sort field, both ways, is read in index order (no sort step)', async () => {
    for (const sort_by of ALERT_SORT_FIELDS) {
      for (const sort_order of ['asc', 'desc'] as const) {
        const text = await pagePlan({ sort_by, sort_order });
        assert.doesNotMatch(text, /Sort/, `${sort_by} ${sort_order}:\n${text}`);
        assert.match(text, /Index Scan/, `${sort_by} ${sort_order}:\n${text}`);
      }
    }
  });

  test('each equality filter with the default order is read from one index in order', async () => {
    const filters: Partial<AlertListQuery>[] = [
      { status: 'new' },
      { severity: 'high' },
      { rule_id: NIL_UUID },
      { index_pattern: 'win' },
      { host: 'ws-01' },
      { user: 'alice' },
      { source_ip: '10.0.0.1' },
      { created_after: '2026-01-01T00:00:00Z' },
    ];
    for (const filter of filters) {
      const text = await pagePlan(filter);
      assert.doesNotMatch(text, /Sort/, `${JSON.stringify(filter)}:\n${text}`);
    }
  });

  test('search goes through the trigram index', async () => {
    for (const search of ['needle', 'C:\\Tools\\x.exe']) {
      const where = alertConditions({ page: 1, page_size: 20, search });
      const text = await plan(`SELECT count(*) FROM alerts ${where.sql}`, where.params);
      assert.match(text, /alert_search_text_idx/, `${search}:\n${text}`);
    }
  });
});

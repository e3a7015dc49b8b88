// The triage view (a status filter sorted by severity, both ways, any page) is read from the status
// and severity index in order, with the planner's own choice of sorting (only sequential scans are
// priced out, as a small test table would otherwise be read whole): no step sorts the alerts of a
// status, which at 100 000 alerts cost 150–340 ms per page when the planner misjudged how many there are.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alertPageQuery, type AlertListQuery } from '../../src/alerts/queries.js';
import { describeEachDatabase } from '../helpers/service.js';

describeEachDatabase('alert list: the triage view query plan', (ctx) => {
  async function plan(q: Partial<AlertListQuery>): Promise<string> {
    const query = alertPageQuery({ page: 1, page_size: 50, sort_order: 'desc', ...q } as AlertListQuery);
    return ctx.service.db.transaction(async (tx) => {
      await tx.query('SET LOCAL enable_seqscan = off');
      const rows = await tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${query.sql}`, query.params);
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    });
  }

  test('a status filter sorted by severity reads the status and severity index in order, without sorting', async () => {
    for (const status of ['new', 'acknowledged', 'resolved', 'false_positive'] as const) {
      for (const sort_order of ['asc', 'desc'] as const) {
        for (const page of [1, 2, 40]) {
          const text = await plan({ status, sort_by: 'severity', sort_order, page });
          assert.doesNotMatch(text, /Sort/, `${status} ${sort_order} page ${page}:\n${text}`);
          assert.match(text, /alerts_status_severity_idx/, `${status} ${sort_order} page ${page}:\n${text}`);
        }
      }
    }
  });
});

// The names of a pattern's event indices: daily names by UTC day of arrival, and which indices belong
// to a pattern's family (its days and its undated index, never another pattern's whose name extends it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dailyIndexName, dayOfIndex, dayStamp } from '../../src/backends/opensearch/event-days.js';

test('a daily index is named by the UTC day of arrival', () => {
  assert.equal(dayStamp(new Date('2026-12-07T23:59:59.999Z')), '2026.12.07');
  assert.equal(dailyIndexName('p-svc-events-win', new Date('2026-12-08T00:00:00Z')), 'p-svc-events-win-2026.12.08');
});

test("the family holds its days and its undated index, not another pattern's indices", () => {
  const family = 'p-svc-events-win';
  assert.equal(dayOfIndex(family, family), null);
  assert.deepEqual(dayOfIndex(family, `${family}-2026.12.07`), new Date('2026-12-07T00:00:00Z'));
  for (const other of ['p-svc-events-win-sec-2026.12.07', 'p-svc-events-win-sec', 'p-svc-events-winx', 'p-svc-events-win-2026.13.01', 'p-svc-events-win-2026.12.07-x', 'p-svc-events-wi']) {
    assert.equal(dayOfIndex(family, other), undefined, other);
  }
});

// ValueCache: tables that grow with their entries keep every entry, a shared budget bounds the entries of
// all caches together and starts again with a new version of the postings, and values compare with ===.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EntryBudget } from '../../src/sigma/index/entry-budget.js';
import { ValueCache } from '../../src/sigma/index/value-cache.js';

const outcome = (n: number): Int32Array => Int32Array.from([n]);

/** Store `values` in `cache` for version `owner`, then count how many are found with their own outcome. */
function fill(cache: ValueCache, values: Array<string | number>, owner: number): number {
  for (let i = 0; i < values.length; i++) {
    assert.ok(cache.wants(values[i], owner));
    if (cache.get(values[i]) === undefined) cache.set(values[i], outcome(i));
  }
  let found = 0;
  for (let i = 0; i < values.length; i++) {
    cache.wants(values[i], owner);
    const known = cache.get(values[i]);
    if (known !== undefined) {
      assert.equal(known[0], i, `outcome of ${String(values[i])}`);
      found++;
    }
  }
  return found;
}

test('a growing table keeps what it stored', () => {
  // 500 values (the table grows from 64 to 1,024 slots) in fewer than 1,024 lookups (after which a cache
  // whose hits are rare turns itself off).
  const values = Array.from({ length: 500 }, (_, i) => `C:\\Windows\\System32\\binary${i}.exe`);
  const found = fill(new ValueCache(new EntryBudget(1 << 16)), values, 1);
  // Values whose neighbourhood is full replace another at their home slot: a few may be lost, not more.
  assert.ok(found >= 490, `found ${found} of 500`);
});

test('values compare with ===: numbers and their text stay apart', () => {
  const cache = new ValueCache(new EntryBudget(100));
  assert.equal(fill(cache, [1, '1', 2.5, '2.5', 'x'], 1), 5);
  cache.wants('1', 1);
  assert.equal(cache.get('1')?.[0], 1);
  cache.wants(1, 1);
  assert.equal(cache.get(1)?.[0], 0);
});

test('caches sharing a budget hold at most its entries together, and start again with a new version', () => {
  const budget = new EntryBudget(50);
  const a = new ValueCache(budget);
  const b = new ValueCache(budget);
  const values = Array.from({ length: 40 }, (_, i) => `value-${i}`);
  const inA = fill(a, values, 1);
  const inB = fill(b, values, 1);
  assert.equal(inA, 40);
  assert.equal(inB, 10);
  // A new version of the postings: every cache drops its entries and the budget is whole again.
  assert.equal(fill(b, values, 2), 40);
  assert.equal(fill(a, values, 2), 10);
});

test('long texts are not cached', () => {
  const cache = new ValueCache(new EntryBudget(10));
  assert.equal(cache.wants('x'.repeat(257), 1), false);
  assert.equal(cache.wants('x'.repeat(256), 1), true);
});

test('the value met last is answered without its table, and forgotten with the version it belongs to', () => {
  const cache = new ValueCache(new EntryBudget(100));
  assert.ok(cache.wants('C:\\Windows\\explorer.exe', 1));
  assert.equal(cache.get('C:\\Windows\\explorer.exe'), undefined);
  cache.set('C:\\Windows\\explorer.exe', outcome(7));
  for (let i = 0; i < 3; i++) {
    cache.wants('C:\\Windows\\explorer.exe', 1);
    assert.equal(cache.get('C:\\Windows\\explorer.exe')?.[0], 7);
  }
  // A new version of the postings: the outcome of the old one is never given.
  cache.wants('C:\\Windows\\explorer.exe', 2);
  assert.equal(cache.get('C:\\Windows\\explorer.exe'), undefined);
});

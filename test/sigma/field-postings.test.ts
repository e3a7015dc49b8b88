// canOccurInNumber is sound: every substring of the lowercased decimal text of numbers of every shape
// (integers, signs, fractions, exponents, infinities, NaN) is reported as possible, so the index may skip
// scanning a number only for pattern sets that hold none of them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canOccurInNumber } from '../../src/sigma/index/field-postings.js';

test('every piece of a number text can occur in a number', () => {
  const numbers = [0, -0, 7, -42, 3.25, -0.5, 1e21, -1.5e-7, 123456789012, Number.MAX_VALUE, Number.MIN_VALUE, Infinity, -Infinity, NaN];
  for (const n of numbers) {
    const s = String(n).toLowerCase();
    for (let i = 0; i < s.length; i++) for (let j = i + 1; j <= s.length; j++) assert.ok(canOccurInNumber(s.slice(i, j)), `${s.slice(i, j)} in ${s}`);
  }
  for (const p of ['b', 'x1', ':179', 'evil', '1 ', 'nanx']) assert.equal(canOccurInNumber(p), false, p);
});

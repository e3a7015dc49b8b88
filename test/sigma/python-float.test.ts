// Event text read as a number for gt/gte/lt/lte, as Python's float reads it (expected values from CPython 3.11).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pythonFloat } from '../../src/sigma/compile/python-float.js';

test('pythonFloat reads what float reads: ASCII decimals, underscores, inf and nan', () => {
  const cases: Array<[string, number]> = [
    ['42', 42], ['-7.5', -7.5], ['.5e2', 50], ['10.', 10], ['+1e3', 1000], ['1_000', 1000], [' 42 ', 42], ['\t1\n', 1],
    ['\x0b1\f\r', 1], ['Infinity', Infinity], ['-INF', -Infinity], [' inf ', Infinity],
  ];
  for (const [text, want] of cases) assert.equal(pythonFloat(text), want, JSON.stringify(text));
  assert.ok(Number.isNaN(pythonFloat('NaN') as number));
  for (const text of ['0x10', '0o17', '0b11', '1__0', '_10', '10_', '1_.5', '1._5', '1e_5', '12abc', '', ' ', '−5', 'ＩＮＦ', '٫5']) {
    assert.equal(pythonFloat(text), undefined, JSON.stringify(text));
  }
});

test('pythonFloat reads Unicode decimal digits and strips Unicode spaces, as float does', () => {
  const cases: Array<[string, number]> = [
    ['٤٢', 42], ['１２', 12], ['𝟏𝟏', 11], ['১১', 11], ['𝟘𝟙𝟚', 12], ['꧑꧐', 10], ['᠑᠐', 10], ['०.५', 0.5], ['1٢.٥', 12.5],
    ['١_٠٠٠', 1000], ['١e٢', 100], ['1e١', 10], ['-٥', -5], ['11\u0085', 11], ['\u3000 12\u2029', 12], ['\u00a0nan', NaN],
    ['inf\u2003', Infinity],
  ];
  for (const [text, want] of cases) assert.deepEqual(pythonFloat(text), want, JSON.stringify(text));
  // U+FEFF is no space to float; nor are the separators U+001C–U+001F (str.isspace accepts them, float does
  // not strip them); U+180E and U+200B are format characters.
  for (const text of ['\ufeff11', '11\ufeff', '\x1c12\x1f', '12\u180e', '1\u200b', '1 2', '1\u30002']) {
    assert.equal(pythonFloat(text), undefined, JSON.stringify(text));
  }
});

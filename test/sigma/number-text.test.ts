// Numbers as text, spelled as the reference semantics spell them (expected values from CPython 3.11's str of
// pySigma's number: an int when whole, else a float).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { numberText } from '../../src/sigma/detection/number-text.js';
import { RuleIndex } from '../../src/sigma/index.js';
import { compile } from './helpers.js';

test('numberText writes whole numbers in full and other numbers as Python repr', () => {
  const cases: Array<[number, string]> = [
    [0, '0'], [-0, '0'], [42, '42'], [-7, '-7'], [1e16, '10000000000000000'], [1e21, '1000000000000000000000'],
    [-1e22, '-10000000000000000000000'], [1.5, '1.5'], [0.1, '0.1'], [0.0001, '0.0001'], [0.00012, '0.00012'],
    [0.00001, '1e-05'], [1.5e-7, '1.5e-07'], [-2.5e-10, '-2.5e-10'], [1.234e-100, '1.234e-100'], [123.456, '123.456'],
    [Infinity, 'inf'], [-Infinity, '-inf'], [NaN, 'nan'],
  ];
  for (const [n, want] of cases) assert.equal(numberText(n), want, String(n));
});

test('rule numbers match event text as Python spells them; event numbers give their text to string tests', () => {
  const sel = (v: string): string => `sel:\n    F: ${v}\ncondition: sel`;
  assert.equal(compile(sel('1.5e-7')).match({ F: '1.5e-07' }), true);
  assert.equal(compile(sel('1.5e-7')).match({ F: '1.5e-7' }), false);
  assert.equal(compile(sel('1.5e-7')).match({ F: 1.5e-7 }), true);
  assert.equal(compile(sel('.inf')).match({ F: 'inf' }), true);
  assert.equal(compile(sel('-.inf')).match({ F: '-inf' }), true);
  assert.equal(compile(sel('.nan')).match({ F: 'nan' }), true);
  assert.equal(compile(sel('1.0e+22')).match({ F: '10000000000000000000000' }), true);
  assert.equal(compile(sel('1.0')).match({ F: '1' }), true);
  assert.equal(compile("keywords:\n    - 'e-05'\ncondition: keywords").match({ F: 0.00001 }), true);
  assert.equal(compile("sel:\n    F|endswith: 'e-07'\ncondition: sel").match({ F: 2.5e-7 }), true);
  // An event's whole numbers keep JavaScript's spelling: digits below 1e21, an exponent beyond.
  assert.equal(compile("keywords:\n    - '1e+300'\ncondition: keywords").match({ F: 1e300 }), true);
  assert.equal(compile("keywords:\n    - '0000000000'\ncondition: keywords").match({ F: 1e300 }), false);
  assert.equal(compile("keywords:\n    - '123456'\ncondition: keywords").match({ F: 1234567 }), true);
});

test('the candidate index finds rule numbers by the same texts', () => {
  const index = new RuleIndex<string>();
  index.add('small', compile('sel:\n    F: 1.5e-7\ncondition: sel'));
  index.add('inf', compile('sel:\n    F: .inf\ncondition: sel'));
  index.add('large', compile('sel:\n    F: 1.0e+22\ncondition: sel'));
  index.add('keyword', compile("keywords:\n    - '1e-05'\ncondition: keywords"));
  assert.deepEqual(index.match({ F: 1.5e-7 }), ['small']);
  assert.deepEqual(index.match({ F: '1.5e-07' }), ['small']);
  assert.deepEqual(index.match({ F: '1.5E-07' }), []); // text equal to the number's, as a string
  assert.deepEqual(index.match({ F: 'inf' }), ['inf']);
  assert.deepEqual(index.match({ G: [0.00001] }), ['keyword']);
  assert.deepEqual(index.match({ F: '1.5e-7' }), []);
  assert.deepEqual(index.match({ F: 1e22 }), ['large']);
  assert.deepEqual(index.match({ F: '10000000000000000000000' }), ['large']);
});

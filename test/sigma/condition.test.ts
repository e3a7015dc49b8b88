// Condition grammar (sigma-notes §5): precedence, parentheses, x of patterns, them, underscore names, errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compile, problems } from './helpers.js';
import { parseCondition } from '../../src/sigma/condition/parse.js';

const det = (cond: string): string =>
  `a:\n    A: 1\nb:\n    B: 1\nc:\n    C: 1\nfilter_x:\n    X: 1\nfilter_y:\n    Y: 1\n_hidden:\n    H: 1\ncondition: ${cond}`;
const ev = (...keys: string[]): object => Object.fromEntries(keys.map((k) => [k, 1]));

test('precedence: or < and < not', () => {
  assert.deepEqual(parseCondition('a or b and not c'), {
    t: 'or',
    a: { t: 'id', name: 'a' },
    b: { t: 'and', a: { t: 'id', name: 'b' }, b: { t: 'not', a: { t: 'id', name: 'c' } } },
  });
  const m = compile(det('a or b and not c'));
  assert.equal(m.match(ev('A', 'C')), true);
  assert.equal(m.match(ev('B', 'C')), false);
  assert.equal(m.match(ev('B')), true);
});

test('parentheses override precedence', () => {
  const m = compile(det('(a or b) and not c'));
  assert.equal(m.match(ev('A', 'C')), false);
  assert.equal(m.match(ev('A')), true);
  const n = compile(det('not (a or b)'));
  assert.equal(n.match(ev('C')), true);
  assert.equal(n.match(ev('B')), false);
});

test('1 of / any of / all of with wildcards', () => {
  assert.equal(compile(det('1 of filter_*')).match(ev('Y')), true);
  assert.equal(compile(det('any of filter_*')).match(ev('X')), true);
  assert.equal(compile(det('all of filter_*')).match(ev('X')), false);
  assert.equal(compile(det('all of filter_*')).match(ev('X', 'Y')), true);
  assert.equal(compile(det('a and not 1 of filter_*')).match(ev('A', 'Y')), false);
  assert.equal(compile(det('a and not 1 of filter_*')).match(ev('A')), true);
  assert.equal(compile(det('a and not all of filter_*')).match(ev('A', 'Y')), true);
});

test('them excludes _-prefixed identifiers; patterns starting with _ include them', () => {
  assert.equal(compile(det('1 of them')).match(ev('H')), false);
  assert.equal(compile(det('1 of them')).match(ev('C')), true);
  assert.equal(compile(det('all of them')).match(ev('A', 'B', 'C', 'X', 'Y')), true);
  assert.equal(compile(det('1 of _*')).match(ev('H')), true);
  assert.equal(compile(det('1 of them and not 1 of _h*')).match(ev('A', 'H')), false);
  assert.equal(compile(det('1 of them and not 1 of _h*')).match(ev('A')), true);
});

test('x of binds tighter than not/and; word-boundary tokens', () => {
  assert.deepEqual(parseCondition('not 1 of filter_*'), { t: 'not', a: { t: 'of', quant: 'one', pattern: 'filter_*' } });
  assert.deepEqual(parseCondition('android and order'), { t: 'and', a: { t: 'id', name: 'android' }, b: { t: 'id', name: 'order' } });
});

test('a list of conditions is OR-linked', () => {
  const m = compile(`a:\n    A: 1\nb:\n    B: 1\ncondition:\n    - a\n    - b`);
  assert.equal(m.match(ev('B')), true);
  assert.equal(m.match(ev('C')), false);
});

test('errors: undefined identifier, empty pattern, syntax, unsupported quantifier, uppercase operator, token characters', () => {
  const e = (cond: string): string => problems(det(cond)).map((x) => `${x.field}: ${x.message}`).join('; ');
  assert.match(e('a and missing'), /detection.condition: search identifier 'missing' is not defined/);
  assert.match(e('1 of nothing_*'), /matches no search identifier/);
  assert.match(e('a and (b'), /expected '\)'/);
  assert.match(e('2 of filter_*'), /not supported/);
  assert.match(e('a AND b'), /operators must be lowercase/);
  assert.match(e('a and'), /unexpected end/);
  assert.match(e('a | count() > 5'), /correlation/);
  // The reference grammar's tokens: no '.' anywhere, no '-' in a pattern.
  assert.match(e('a or x.y'), /invalid search identifier 'x\.y': an identifier holds only ASCII letters, digits, '_' and '-'/);
  assert.match(e('1 of filter-*'), /invalid search identifier pattern 'filter-\*': a pattern holds only ASCII letters, digits, '_' and '\*'/);
  assert.match(e('1 of filter.*'), /invalid search identifier pattern/);
  assert.deepEqual(problems('sel-a:\n    A: 1\ncondition: sel-a'), []);
});

test('long chains of one operator stay shallow; nesting beyond the limit is refused, never a stack overflow', () => {
  const depth = (n: ReturnType<typeof parseCondition>): number => (n.t === 'and' || n.t === 'or' ? 1 + Math.max(depth(n.a), depth(n.b)) : n.t === 'not' ? 1 + depth(n.a) : 0);
  const chain = Array.from({ length: 5000 }, () => 'a').join(' and ');
  assert.ok(depth(parseCondition(chain)) <= 13);
  const m = compile(det(`${Array.from({ length: 3000 }, () => 'a').join(' and ')} and b or ${Array.from({ length: 3000 }, () => 'c').join(' or ')}`));
  assert.equal(m.match(ev('A', 'B')), true);
  assert.equal(m.match(ev('A')), false);
  assert.equal(m.match(ev('C')), true);
  // 64 levels are fine, 65 are refused with the reason, however deep the text goes.
  assert.equal(compile(det(`${'('.repeat(32)}${'not '.repeat(32)}a${')'.repeat(32)}`)).match(ev('A')), true);
  for (const cond of [`${'('.repeat(65)}a${')'.repeat(65)}`, `${'not '.repeat(65)}a`, `${'('.repeat(5000)}a${')'.repeat(5000)}`, `${'not '.repeat(20000)}a`]) {
    const errors = problems(det(cond));
    assert.equal(errors.length, 1, cond.slice(0, 20));
    assert.match(errors[0].message, /^invalid condition: more than 64 nested parentheses and 'not' at position \d+$/);
  }
});

test('a search named many times is one node: repeats are dropped, shared uses are evaluated once per event', () => {
  const m = compile(det(Array.from({ length: 2000 }, () => 'a').join(' or ')));
  assert.equal(m.ir.t, 'sel');
  // `a` is shared by every branch: its result must follow each event, never the previous one.
  const shared = compile(det(`${Array.from({ length: 50 }, (_, i) => (i % 2 ? '(a and b)' : '(a and not b)')).join(' or ')} or (c and not a)`));
  const events = [ev('A'), ev('B'), ev('A', 'B'), ev('C'), ev('A', 'C'), ev(), ev('A'), ev('C')];
  assert.deepEqual(events.map((e) => shared.match(e)), [true, false, true, true, true, false, true, true]);
  assert.deepEqual(events.map((e) => shared.explain(e).matched), [true, false, true, true, true, false, true, true]);
});

test('work is counted per use: a condition naming searches in 50,000 places is refused', () => {
  const errors = problems(det(Array.from({ length: 25_001 }, () => '(a and b)').join(' or ')));
  assert.deepEqual(errors, [{ field: 'detection', message: 'the rule expands to 50002 value tests (limit 50000)' }]);
  assert.deepEqual(problems(det(Array.from({ length: 25_000 }, () => '(a and b)').join(' or '))), []);
});

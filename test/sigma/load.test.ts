// Loading and validation: YAML 1.1 scalars, syntax errors with lines, size/alias/duplicate refusals,
// validation order and paths, collections (action: global), correlation/filter documents.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRule, parseRules } from '../../src/sigma/index.js';
import { resolvePlainScalar } from '../../src/sigma/load/yaml11.js';

const base = `title: T\nlogsource:\n    product: windows\nlevel: high\ndetection:\n    sel:\n        A: x\n    condition: sel\n`;

test('PyYAML 1.1 plain scalar resolution', () => {
  assert.equal(resolvePlainScalar('00000429'), '00000429');
  assert.equal(resolvePlainScalar('0777'), 511);
  assert.equal(resolvePlainScalar('0x1F'), 31);
  assert.equal(resolvePlainScalar('1_000'), 1000);
  assert.equal(resolvePlainScalar('1:30'), 90);
  assert.equal(resolvePlainScalar('1.5'), 1.5);
  assert.equal(resolvePlainScalar('1e5'), '1e5');
  assert.equal(resolvePlainScalar('yes'), true);
  assert.equal(resolvePlainScalar('Off'), false);
  assert.equal(resolvePlainScalar('~'), null);
  assert.equal(resolvePlainScalar('2024-01-02'), '2024-01-02');
  assert.equal(resolvePlainScalar('12345678901234567890'), '12345678901234567890');
  assert.equal(resolvePlainScalar('0x8000000000000000'), '9223372036854775808');
});

test('quoted scalars stay strings', () => {
  const r = parseRule(base.replace('A: x', "A: '0x10'\n        B: 0x10"));
  assert.ok(r.ok);
  if (r.ok) assert.deepEqual((r.rule.detection.sel as Record<string, unknown>), { A: '0x10', B: 16 });
});

test('a parsed rule exposes its attributes', () => {
  const r = parseRule(`title: T\nid: 0e95725d-7320-415d-80f7-004da920fc11\nstatus: test\ndescription: d\nauthor: me\ntags:\n    - attack.t1059\n` + base.slice(8));
  assert.ok(r.ok, JSON.stringify(r));
  if (!r.ok) return;
  assert.equal(r.rule.title, 'T');
  assert.equal(r.rule.id, '0e95725d-7320-415d-80f7-004da920fc11');
  assert.equal(r.rule.level, 'high');
  assert.deepEqual(r.rule.tags, ['attack.t1059']);
  assert.deepEqual(r.rule.logsource, { product: 'windows' });
  assert.equal(r.rule.kind, 'detection');
});

test('YAML syntax error: kind yaml with a line number', () => {
  const r = parseRule('title: T\ndetection: [a\nlevel: x');
  assert.equal(r.ok, false);
  if (!r.ok) {
    assert.equal(r.kind, 'yaml');
    if (r.kind === 'yaml') assert.match(r.message, /line \d+/);
  }
});

test('duplicate keys, alias bombs and documents over 1 MiB are refused', () => {
  const dup = parseRule(base + 'level: low\n');
  assert.ok(!dup.ok && dup.kind === 'yaml' && /unique/.test(dup.message));
  const bomb = ['a: &a [x,x,x,x,x,x,x,x,x]'];
  for (let i = 1; i < 9; i++) bomb.push(`${'abcdefghi'[i]}: &${'abcdefghi'[i]} [${new Array(9).fill('*' + 'abcdefghi'[i - 1]).join(',')}]`);
  const t0 = Date.now();
  const b = parseRule(bomb.join('\n') + '\n');
  assert.ok(!b.ok && b.kind === 'yaml' && /alias/.test(b.message));
  assert.ok(Date.now() - t0 < 1000);
  const big = parseRule(base + 'description: ' + 'x'.repeat(1024 * 1024) + '\n');
  assert.ok(!big.ok && big.kind === 'validation' && /1 MiB/.test(big.errors[0].message));
});

test('validation order and paths: schema, then required attributes, then detection', () => {
  const schema = parseRule(base.replace('level: high', 'level: severe'));
  assert.ok(!schema.ok && schema.kind === 'validation');
  if (!schema.ok && schema.kind === 'validation') assert.deepEqual(schema.errors.map((e) => e.field), ['level']);
  const missing = parseRule('title: T\ndetection:\n    sel:\n        A|foo: x\n    condition: sel\n');
  if (!missing.ok && missing.kind === 'validation') assert.deepEqual(missing.errors.map((e) => e.field), ['logsource', 'level']);
  else assert.fail('expected validation errors');
  const det = parseRule(base.replace('A: x', 'Image|endwith: x'));
  if (!det.ok && det.kind === 'validation') assert.deepEqual(det.errors, [{ field: 'detection.sel.Image|endwith', message: "unknown modifier 'endwith'" }]);
  else assert.fail('expected validation errors');
  const cond = parseRule(base.replace('condition: sel', 'condition: sel and other'));
  if (!cond.ok && cond.kind === 'validation') assert.equal(cond.errors[0].field, 'detection.condition');
  else assert.fail('expected validation errors');
});

test('action: global collections are merged into each rule', () => {
  const text = `action: global\ntitle: G\nlevel: high\nlogsource:\n    product: windows\ndetection:\n    condition: sel\n---\ndetection:\n    sel:\n        A: 1\n---\ndetection:\n    sel:\n        B: 2\n`;
  const results = parseRules(text);
  assert.equal(results.length, 2);
  assert.ok(results.every((r) => r.ok && r.rule.title === 'G'));
  const single = parseRule(text);
  assert.ok(!single.ok && single.kind === 'validation' && /parseRules/.test(single.errors[0].message));
});

test('correlation and filter documents parse', () => {
  const c = parseRule(`title: C\ncorrelation:\n    type: event_count\n    rules: [a]\n    group-by: [User]\n    timespan: 5m\n    condition:\n        gte: 10\n`);
  assert.ok(c.ok && c.rule.kind === 'correlation' && c.rule.correlation?.timespanSeconds === 300);
  const bad = parseRule(`title: C\ncorrelation:\n    type: nope\n    rules: [a]\n    timespan: 5x\n`);
  assert.ok(!bad.ok && bad.kind === 'validation' && bad.errors.some((e) => e.field === 'correlation.timespan'));
  const f = parseRule(`title: F\nlogsource:\n    product: windows\nfilter:\n    rules: any\n    sel:\n        User: admin\n    condition: not sel\n`);
  assert.ok(f.ok && f.rule.kind === 'filter' && f.rule.filter?.rules === 'any');
});

test('bulk import: parseRules accepts a large stream of small documents, refuses one oversized document', () => {
  const one = base.replace('title: T', 'title: T\n# ' + 'x'.repeat(200 * 1024));
  const stream = Array.from({ length: 8 }, () => one).join('---\n');
  const results = parseRules(stream);
  assert.equal(results.length, 8);
  assert.ok(results.every((r) => r.ok));
  const big = parseRules(base + '---\n' + base.replace('title: T', 'title: T\n# ' + 'x'.repeat(1100 * 1024)));
  assert.ok(big.length === 1 && !big[0].ok && big[0].kind === 'validation' && /1 MiB/.test(big[0].errors[0].message));
});

test('a __proto__ key is an ordinary field, never a prototype', () => {
  const r = parseRule(base.replace('A: x', "__proto__: x\n        B: y").replace('level: high', 'level: high\n__proto__:\n    level: low'));
  assert.ok(r.ok, JSON.stringify(r));
  if (!r.ok) return;
  const sel = r.rule.detection.sel as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(sel), Object.prototype);
  assert.deepEqual(Object.keys(sel), ['__proto__', 'B']);
  assert.equal(Object.getPrototypeOf(r.rule.raw), Object.prototype);
  assert.equal(r.rule.level, 'high');
});

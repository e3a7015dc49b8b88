// parseRule/parseRules/compileRule never throw: random mutations of corpus rules and odd shapes.
// Reads the shared corpus.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileRule, getPreset, parseRule, parseRules } from '../../src/sigma/index.js';
import { rulesRoot, yamlFiles } from './corpus-helpers.js';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const ODD = [
  'title: T\nlogsource: []\nlevel: low\ndetection: {sel: {a: 1}, condition: sel}',
  'title: T\nlogsource: {product: x}\nlevel: low\ndetection: {sel: {a: {b: 1}}, condition: sel}',
  'title: T\nlogsource: {product: x}\nlevel: low\ndetection: {sel: [[1]], condition: sel}',
  'title: T\nlogsource: {product: x}\nlevel: low\ndetection: {sel: null, condition: sel}',
  'title: T\nlogsource: {product: x}\nlevel: low\ndetection: {sel: {a: 1}, condition: 5}',
  'title: T\nlogsource: {product: x}\nlevel: low\ndetection: {sel: {a: 1}, condition: []}',
  'title: T\nlogsource: {product: x}\nlevel: low\ndetection: {sel: {"a|re": "(["}, condition: sel}',
  'title: T\nlogsource: {product: x}\nlevel: low\ndetection: {sel: {"a|cidr": 5}, condition: sel}',
  'title: T\nlogsource: {product: x}\nlevel: low\ndetection: {sel: {"a|exists": [true, false]}, condition: sel}',
  'title: T\nlogsource: {product: x}\nlevel: low\ndetection: {sel: {"|fieldref": x}, condition: sel}',
  'title: [1]\ntags: x\nid: 5\nstatus: 7\n',
  '- a\n- b\n',
  '42',
  '',
  '---\n---\n',
  'action: repeat\n',
  '"unterminated',
  'correlation: 5\ntitle: C',
  'filter: {rules: 5}\ntitle: F\nlogsource: {product: x}',
];

test('odd documents are refused, never thrown', () => {
  for (const text of ODD) {
    for (const r of parseRules(text)) {
      if (r.ok) assert.doesNotThrow(() => compileRule(r.rule, getPreset('windows-thor')));
    }
    assert.doesNotThrow(() => parseRule(text));
  }
});

test('random mutations of corpus rules never throw', () => {
  const files = yamlFiles(join(rulesRoot, 'rules/windows/process_creation')).slice(0, 150);
  const rand = rng(42);
  let refused = 0;
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    for (let k = 0; k < 6; k++) {
      const lines = text.split('\n');
      const i = Math.floor(rand() * lines.length);
      const op = Math.floor(rand() * 4);
      if (op === 0) lines.splice(i, 1);
      else if (op === 1) lines[i] = lines[i].replace(/\S/, (c) => c + c);
      else if (op === 2) lines.splice(i, 0, lines[Math.floor(rand() * lines.length)]);
      else lines[i] = lines[i].replace(/'/g, '');
      const mutated = lines.join('\n');
      let results: ReturnType<typeof parseRules> = [];
      assert.doesNotThrow(() => (results = parseRules(mutated)), f);
      for (const r of results) {
        if (!r.ok) refused++;
        else assert.doesNotThrow(() => compileRule(r.rule, getPreset('windows-thor')), f);
      }
    }
  }
  assert.ok(refused > 50);
});

test('__proto__ / constructor as field and placeholder names', () => {
  for (const key of ['__proto__', 'constructor', 'toString']) {
    const text = `title: T\nlogsource:\n    category: process_creation\n    product: windows\nlevel: low\ndetection:\n    sel:\n        ${key}: x\n        B|expand: '%${key}%'\n    condition: sel\n`;
    const r = parseRule(text);
    assert.ok(r.ok, JSON.stringify(r));
    if (!r.ok) continue;
    for (const p of ['sigma-native', 'windows-thor', 'ecs-windows']) {
      const c = compileRule(r.rule, getPreset(p));
      assert.ok(!c.ok && /placeholder/.test(c.errors[0].message), `${key} ${p}`);
    }
  }
});

test('explain reports fields named __proto__ / constructor as plain keys', async () => {
  const { compile } = await import('./helpers.js');
  const m = compile(`sel:\n    __proto__: x\n    constructor: y\ncondition: sel`);
  const ev = JSON.parse('{"__proto__": "x", "constructor": "y"}') as object;
  const ex = m.explain(ev);
  assert.equal(ex.matched, true);
  const values = ex.matchedConditions[0].sel;
  assert.deepEqual(Object.keys(values), ['__proto__', 'constructor']);
  assert.equal(Object.getPrototypeOf(values), Object.prototype);
});

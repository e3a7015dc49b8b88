// Pure keyword rules are decided by the index: decidedByIndex accepts only OR trees of case-insensitive
// `*lit*` keyword tests whose requirement lists exactly those literals, and for every such corpus rule,
// being a candidate equals matching on the regression events and seeded variants (case changes,
// non-ASCII, nested values, arrays).
// Reads the shared corpus.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RuleIndex, compileRule, getPreset, parseRule, requirementOf } from '../../src/sigma/index.js';
import type { CompiledRule } from '../../src/sigma/index.js';
import { decidedByIndex } from '../../src/sigma/index/exact-keywords.js';
import { corpusRules, prng, regressionEvents, variant } from './index-helpers.js';

function compile(detection: string): CompiledRule {
  const p = parseRule(`title: t\nlogsource: {product: windows}\nlevel: low\ndetection:\n${detection}`);
  assert.ok(p.ok, JSON.stringify(p));
  const c = compileRule(p.rule, getPreset('sigma-native'));
  assert.ok(c.ok, JSON.stringify(c));
  return c.matcher;
}

const decided = (m: CompiledRule): boolean => decidedByIndex(m.ir, requirementOf(m.ir));

test('only pure keyword OR trees with indexed literals are decided by the index', () => {
  assert.equal(decided(compile('  k:\n    - evil\n    - Other Thing\n  condition: k\n')), true);
  assert.equal(decided(compile('  k1: [abcd]\n  k2: [efgh]\n  condition: 1 of k*\n')), true);
  assert.equal(decided(compile('  k: [ab]\n  condition: k\n')), false); // too short to be indexed
  assert.equal(decided(compile('  k: [ev*il]\n  condition: k\n')), false); // inner wildcard
  assert.equal(decided(compile('  k: [evil]\n  condition: not k\n')), false);
  assert.equal(decided(compile('  k1: [abcd]\n  k2: [efgh]\n  condition: k1 and k2\n')), false);
  assert.equal(decided(compile('  k: [evil]\n  s:\n    Image: x\n  condition: k or s\n')), false);
  assert.equal(decided(compile('  k:\n    \'|re\': evil\n  condition: k\n')), false);
  assert.equal(decided(compile('  s:\n    Image|contains: evil\n  condition: s\n')), false);
});

test('decided corpus rules: candidate exactly when matching (events, variants)', () => {
  const rules = corpusRules('sigma-native').filter((r) => decided(r.matcher));
  assert.ok(rules.length >= 20, `only ${rules.length} decided rules`);
  const index = new RuleIndex<number>();
  rules.forEach((r, i) => index.add(i, r.matcher));
  const base = regressionEvents();
  const rnd = prng(11);
  const events: object[] = [...base];
  for (const e of base) for (let k = 0; k < 3; k++) events.push(variant(e, base, rnd));
  let matches = 0;
  for (const e of events) {
    const candidates = new Set(index.candidates(e));
    rules.forEach((r, i) => {
      const m = r.matcher.match(e);
      if (m) matches++;
      assert.equal(candidates.has(i), m, `${r.path} on ${JSON.stringify(e).slice(0, 200)}`);
    });
  }
  assert.ok(matches > 0);
});

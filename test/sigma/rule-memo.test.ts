// RuleMemo is exact: for every corpus rule that admits a memo, memo.match equals rule.match on the
// regression events, seeded variants of them and repeats (so that cached answers are checked too).
// Reads the shared corpus.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileRule, getPreset, parseRule } from '../../src/sigma/index.js';
import { RuleMemo } from '../../src/sigma/index/rule-memo.js';
import { EntryBudget } from '../../src/sigma/index/entry-budget.js';
import { corpusRules, prng, regressionEvents, variant } from './index-helpers.js';

test('memoised results equal direct evaluation (corpus rules × events, repeated)', () => {
  const base = regressionEvents();
  const rnd = prng(7);
  const events: object[] = [...base];
  for (const e of base) events.push(variant(e, base, rnd), variant(e, base, rnd));
  const rules = corpusRules('sigma-native');
  let memos = 0;
  let matches = 0;
  for (const r of rules) {
    const memo = RuleMemo.of(r.matcher);
    if (!memo) continue;
    memos++;
    // The direct answers, once; the memo answers every event twice (the second time from its cache).
    // The failure message is built only on a failure: this loop runs millions of times.
    const wants = events.map((e) => r.matcher.match(e));
    for (let round = 0; round < 2; round++) {
      events.forEach((e, i) => {
        if (memo.match(e) !== wants[i]) assert.fail(`${r.path} on ${JSON.stringify(e).slice(0, 200)}: the memo says ${!wants[i]}`);
        if (wants[i]) matches++;
      });
    }
  }
  assert.ok(memos > rules.length / 2, `only ${memos} memos`);
  assert.ok(matches > 100);
});

test('memo keys tell value types, arrays, nulls, absence and -0 apart', () => {
  const p = parseRule(
    'title: t\nlogsource: {product: windows}\nlevel: low\ndetection:\n  a:\n    F: "1"\n  b:\n    G: null\n  condition: a and b\n',
  );
  assert.ok(p.ok);
  const c = compileRule(p.rule, getPreset('sigma-native'));
  assert.ok(c.ok);
  const memo = RuleMemo.of(c.matcher);
  assert.ok(memo);
  const events: object[] = [{ F: '1' }, { F: 1 }, { F: ['1'] }, { F: ['1', 2], G: null }, { F: '1', G: 'x' }, { G: 1 }, { F: -0 }, { F: 0 }, { F: true }, { F: 'true' }, { F: { x: 1 } }, {}];
  for (let round = 0; round < 3; round++) for (const e of events) assert.equal(memo.match(e), c.matcher.match(e), JSON.stringify(e));
});

test('rules with keyword searches get no memo', () => {
  const p = parseRule('title: t\nlogsource: {product: windows}\nlevel: low\ndetection:\n  k:\n    - evil\n  condition: not k\n');
  assert.ok(p.ok);
  const c = compileRule(p.rule, getPreset('sigma-native'));
  assert.ok(c.ok);
  assert.equal(RuleMemo.of(c.matcher), null);
});

test('a conjunction over different fields is memoised part by part, exactly', () => {
  const p = parseRule(
    [
      'title: t',
      'logsource: {product: windows}',
      'level: low',
      'detection:',
      '  sel:',
      "    Image|endswith: '.exe'",
      '  filter_a:',
      "    Image|contains: '\\\\Windows\\\\'",
      '  filter_b:',
      "    ParentImage|endswith: '\\\\services.exe'",
      '  filter_c:',
      "    - ParentImage|contains: 'Temp'",
      "    - Image|contains: 'Temp'",
      '  filter_d:',
      '    User: null',
      '  condition: sel and not 1 of filter_* and not (filter_a and filter_b)',
      '',
    ].join('\n'),
  );
  assert.ok(p.ok);
  const c = compileRule(p.rule, getPreset('sigma-native'));
  assert.ok(c.ok);
  const memo = RuleMemo.of(c.matcher);
  assert.ok(memo);
  const rnd = prng(11);
  const images = ['C:\\Windows\\a.exe', 'C:\\Temp\\b.exe', 'C:\\x\\c.dll', 'D:\\y\\d.exe', null, 7];
  const parents = ['C:\\Windows\\services.exe', 'C:\\Temp\\p.exe', 'C:\\z\\q.exe', undefined];
  const users = ['alice', null, undefined];
  let matched = 0;
  for (let i = 0; i < 3000; i++) {
    const e: Record<string, unknown> = {};
    const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)];
    const [img, par, user] = [pick(images), pick(parents), pick(users)];
    if (img !== null || rnd() < 0.5) e.Image = img;
    if (par !== undefined) e.ParentImage = par;
    if (user !== undefined) e.User = user;
    if (rnd() < 0.05) e.Image = [img, 'E:\\z.exe'];
    const want: boolean = c.matcher.match(e);
    assert.equal(memo.match(e), want, JSON.stringify(e));
    if (want) matched++;
  }
  assert.ok(matched > 30 && matched < 2900, `matched ${matched}`);
});

test('memos stay exact and within their budget; long texts are not keys', () => {
  const p = parseRule(
    "title: t\nlogsource: {product: windows}\nlevel: low\ndetection:\n  a:\n    Image|endswith: '\\\\x.exe'\n  b:\n    User: admin\n  condition: a and not b\n",
  );
  assert.ok(p.ok);
  const c = compileRule(p.rule, getPreset('sigma-native'));
  assert.ok(c.ok);
  const budget = new EntryBudget(40);
  const memo = RuleMemo.of(c.matcher, budget);
  assert.ok(memo);
  const rnd = prng(5);
  for (let i = 0; i < 2000; i++) {
    const image = `C:\\d${Math.floor(rnd() * 60)}\\${rnd() < 0.5 ? 'x' : 'y'}.exe`;
    const e = { Image: rnd() < 0.05 ? `${'p'.repeat(300)}${image}` : image, User: rnd() < 0.3 ? 'admin' : 'bob' };
    assert.equal(memo.match(e), c.matcher.match(e), JSON.stringify(e));
    assert.ok(budget.taken <= budget.limit, `${budget.taken} entries`);
  }
  assert.ok(budget.taken > 0);
  // Texts longer than a key may be are evaluated, never stored.
  const ample = new EntryBudget(1000);
  const fresh = RuleMemo.of(c.matcher, ample);
  assert.ok(fresh);
  for (let i = 0; i < 3; i++) assert.equal(fresh.match({ Image: `${'q'.repeat(300)}\\x.exe` }), true);
  assert.equal(ample.taken, 1); // the absent User only
});

// The candidate index is sound: RuleIndex.match equals evaluating every rule, on the corpus rule set
// (sigma-native and windows-thor) against all regression events and seeded variants of them (random
// values, mutated strings, case changes, missing fields, nested values); add/remove are incremental.
// Reads the shared corpus.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RuleIndex, compileRule, getPreset, parseRule } from '../../src/sigma/index.js';
import type { CompiledRule } from '../../src/sigma/index.js';
import { foldCase } from '../../src/sigma/case-fold.js';
import { AhoCorasick } from '../../src/sigma/index/aho-corasick.js';
import { GramScanner } from '../../src/sigma/index/gram-scanner.js';
import { requirementOf } from '../../src/sigma/index/witness.js';
import { corpusRules, prng, regressionEvents, variant } from './index-helpers.js';

function naive(rules: Array<[string, CompiledRule]>, event: object): string[] {
  return rules.filter(([, m]) => m.match(event)).map(([k]) => k);
}

/** Detections compiled as rules keyed r0, r1, … */
function keyedRules(detections: string[]): Array<[string, CompiledRule]> {
  return detections.map((text, i) => [`r${i}`, compile(rule(text))]);
}

function differential(preset: string, variantsPerEvent: number, seed: number): void {
  const loaded = corpusRules(preset);
  const rules: Array<[string, CompiledRule]> = loaded.map((r) => [r.path, r.matcher]);
  const index = new RuleIndex();
  for (const [k, m] of rules) index.add(k, m);
  assert.equal(index.size, new Set(rules.map(([k]) => k)).size);
  const base = regressionEvents();
  const rnd = prng(seed);
  const events: object[] = [...base];
  for (const e of base) for (let i = 0; i < variantsPerEvent; i++) events.push(variant(e, base, rnd));
  let matched = 0;
  let candidates = 0;
  for (const e of events) {
    const want = naive(rules, e).sort();
    const got = index.match(e).sort();
    assert.deepEqual(got, want, `event ${JSON.stringify(e).slice(0, 300)}`);
    matched += want.length;
    candidates += index.candidateCount(e);
  }
  assert.ok(matched > 100, `only ${matched} matches: the test would prove little`);
  assert.ok(candidates / events.length < rules.length / 10, `index too weak: ${candidates / events.length} candidates per event`);
}

test('match equals evaluating every rule (sigma-native, corpus × regression events + variants)', () => {
  differential('sigma-native', 2, 1);
});

test('match equals evaluating every rule (windows-thor, logsource conditions)', () => {
  differential('windows-thor', 1, 2);
});

function compile(yaml: string): CompiledRule {
  const p = parseRule(yaml);
  assert.ok(p.ok, JSON.stringify(p));
  const c = compileRule(p.rule, getPreset('sigma-native'));
  assert.ok(c.ok, JSON.stringify(c));
  return c.matcher;
}

const rule = (detection: string): string =>
  `title: t\nlogsource: {product: windows}\nlevel: low\ndetection:\n${detection
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n')}\n`;

test('edge semantics: keywords, nesting, arrays, spaces in keys, numbers, null, not, non-ASCII', () => {
  const cases: Array<[string, object[]]> = [
    ["keywords:\n  - 'mimikatz'\ncondition: keywords", [{ a: { b: ['x', 'MimiKatz.exe'] } }, { a: 1 }]],
    ["sel:\n  a.b|contains: 'Evil'\ncondition: sel", [{ a: { b: 'xxevilxx' } }, { 'a.b': 'EVIL' }, { a: [{ b: ['no', 'evil'] }] }, { a: 'evil' }]],
    ["sel:\n  ThreatName: 'Foo'\ncondition: sel", [{ 'Threat Name': 'foo' }, { ThreatName: 'FOO' }, { Threat: 'foo' }]],
    ['sel:\n  EventID: 4688\ncondition: sel', [{ EventID: 4688 }, { EventID: '4688' }, { EventID: 46880 }]],
    ['sel:\n  EventID: 1\n  Image: null\ncondition: sel', [{ EventID: 1 }, { EventID: 1, Image: 'x' }, { EventID: 1, Image: null }]],
    ["sel:\n  Image|endswith: '.exe'\ncondition: not sel", [{ Image: 'a.exe' }, {}, { Image: 'a.dll' }]],
    ["sel:\n  CommandLine|contains: '🙂'\ncondition: sel", [{ CommandLine: 'x🙂y' }, { CommandLine: 'xy' }]],
    ["sel:\n  CommandLine|contains: 'straße'\ncondition: sel", [{ CommandLine: 'STRASSE' }, { CommandLine: 'STRAßE' }, { CommandLine: 'İstraße' }]],
    ["sel:\n  CommandLine|contains: 'σ'\ncondition: sel", [{ CommandLine: 'AΣ' }, { CommandLine: 'ΣA' }]],
    ["sel:\n  Image|exists: true\ncondition: sel", [{ Image: {} }, { Image: null }, { Image: [] }, {}]],
    ["sel:\n  Image: 'a?c*'\ncondition: sel", [{ Image: 'ABCd' }, { Image: 'abd' }]],
    ['sel:\n  Flag: true\ncondition: sel', [{ Flag: true }, { Flag: 'TRUE' }, { Flag: false }]],
    // Rules made of `not …`: keyed by the presence of the fields they read, `{}`-like events answered at once.
    ["sel:\n  id.orig_h|cidr: '10.0.0.0/8'\ncondition: not sel", [{}, { id: { orig_h: '10.1.1.1' } }, { 'id.orig_h': '8.8.8.8' }, { id: [{ orig_h: '10.0.0.1' }] }, { id: 'x' }]],
    ['sel:\n  Image|fieldref: ParentImage\ncondition: not sel', [{}, { Image: 'a', ParentImage: 'A' }, { ParentImage: 'x' }, { Image: null }]],
    ["sel:\n  Image: null\ncondition: not sel", [{}, { Image: null }, { Image: 'x' }, { 'Im age': 'x' }]],
  ];
  for (const [det, events] of cases) {
    const m = compile(rule(det));
    const index = new RuleIndex();
    index.add('r', m);
    for (const e of events) assert.deepEqual(index.match(e), m.match(e) ? ['r'] : [], `${det} on ${JSON.stringify(e)}`);
  }
});

test('add replaces, remove forgets, incremental updates keep the index exact', () => {
  const a = compile(rule("sel:\n  Image|endswith: '\\\\a.exe'\ncondition: sel"));
  const b = compile(rule("sel:\n  Image|endswith: '\\\\b.exe'\ncondition: sel"));
  const index = new RuleIndex<number>();
  index.add(1, a);
  assert.deepEqual(index.match({ Image: 'C:\\a.exe' }), [1]);
  index.add(1, b);
  assert.equal(index.size, 1);
  assert.deepEqual(index.match({ Image: 'C:\\a.exe' }), []);
  assert.deepEqual(index.match({ Image: 'C:\\B.EXE' }), [1]);
  index.add(2, a);
  assert.deepEqual(index.match({ Image: 'C:\\a.exe' }), [2]);
  assert.equal(index.remove(1), true);
  assert.equal(index.remove(1), false);
  assert.equal(index.has(1), false);
  assert.deepEqual(index.match({ Image: 'C:\\B.EXE' }), []);
  assert.deepEqual(index.candidates({ Other: 'x' }), []);
  // A rule matching events that lack its fields is answered without evaluation, and forgotten on removal.
  index.add(3, compile(rule("sel:\n  Image|endswith: '.exe'\ncondition: not sel")));
  assert.deepEqual(index.match({ Other: 'x' }), [3]);
  assert.deepEqual(index.match({ Image: 'a.exe' }), []);
  assert.deepEqual(index.candidates({ Image: 'a.dll' }), [3]);
  assert.equal(index.remove(3), true);
  assert.deepEqual(index.match({ Other: 'x' }), []);
  assert.equal(index.stats().always, 0);
});

test('a field scanned for keywords only, then given postings of its own, then losing them, stays exact', () => {
  const index = new RuleIndex<string>();
  index.add('kw', compile(rule("keywords:\n  - 'mimikatz'\ncondition: keywords")));
  const seen = { User: 'Alice', Note: 'MIMIKATZ here' };
  // Repeated values: the keyword-only fields' scan caches fill.
  for (let i = 0; i < 50; i++) assert.deepEqual(index.match(seen), ['kw']);
  index.add('user', compile(rule("sel:\n  User|startswith: 'ali'\ncondition: sel")));
  assert.deepEqual(index.match(seen).sort(), ['kw', 'user']);
  assert.deepEqual(index.match({ User: 'bob', Note: 'x' }), []);
  index.remove('user');
  assert.deepEqual(index.match(seen), ['kw']);
  assert.deepEqual(index.match({ User: 'mimikatz' }), ['kw']);
  index.remove('kw');
  assert.deepEqual(index.match(seen), []);
});

test('random add/remove sequences agree with a plain map of rules', () => {
  const loaded = corpusRules('sigma-native').slice(0, 600);
  const events = regressionEvents();
  const rnd = prng(7);
  const index = new RuleIndex();
  const live = new Map<string, CompiledRule>();
  for (let step = 0; step < 1500; step++) {
    const r = loaded[Math.floor(rnd() * loaded.length)];
    const key = `k${Math.floor(rnd() * 300)}`;
    if (rnd() < 0.35) {
      assert.equal(index.remove(key), live.delete(key));
    } else {
      index.add(key, r.matcher);
      live.set(key, r.matcher);
    }
    if (step % 50 === 0) {
      for (const e of events.slice(0, 60)) {
        assert.deepEqual(index.match(e).sort(), naive([...live], e).sort());
      }
    }
  }
  assert.equal(index.size, live.size);
});

for (const [name, Scanner] of [['Aho-Corasick', AhoCorasick], ['q-gram scanner', GramScanner]] as const) {
test(`${name} finds every pattern occurrence (brute force comparison, thousands of patterns, non-ASCII)`, () => {
  const rnd = prng(3);
  const alphabet = 'abAB\\.é🙂ΣσςİıſsK\u212agZ!0-';
  const word = (n: number): string => Array.from({ length: n }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join('');
  const patterns = [...new Set(Array.from({ length: 4000 }, () => foldCase(word(1 + Math.floor(rnd() * 12)))))];
  const ac = new Scanner(patterns);
  for (let t = 0; t < 600; t++) {
    const text = t % 2 ? word(Math.floor(rnd() * 60)) : word(Math.floor(rnd() * 60)).replace(/[^abAB.\\gZ!0-]/g, 'x');
    const got = new Set<number>();
    ac.scan(text, t, (p) => got.add(p));
    const lower = foldCase(text);
    const want = new Set(patterns.map((p, i) => (lower.includes(p) ? i : -1)).filter((i) => i >= 0));
    assert.deepEqual([...got].sort(), [...want].sort(), text);
  }
});
}

test('q-gram scanner: few patterns, placed anywhere, at the start or at the end (key filter, placements)', () => {
  const rnd = prng(9);
  const alphabet = 'abAB01-.:{}gZ!';
  const word = (n: number): string => Array.from({ length: n }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join('');
  const occurs = (text: string, p: string, at: number): boolean => (at === 0 ? text.includes(p) : at === 1 ? text.startsWith(p) : text.endsWith(p));
  for (let round = 0; round < 400; round++) {
    // The same text may come with several placements.
    const patterns = Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => word(1 + Math.floor(rnd() * 4)).toLowerCase());
    if (rnd() < 0.3) patterns.push(patterns[0]);
    const placement = patterns.map(() => Math.floor(rnd() * 3));
    const scanner = new GramScanner(patterns, placement);
    for (let t = 0; t < 40; t++) {
      // Texts often start or end with a pattern, or hold it in the middle.
      const p = patterns[Math.floor(rnd() * patterns.length)];
      const text = [word(Math.floor(rnd() * 24)), p + word(3), word(3) + p, word(2) + p + word(2)][t % 4];
      const got: number[] = [];
      scanner.scan(text, round * 100 + t + 1, (k) => got.push(k));
      const lower = text.toLowerCase();
      const want = patterns.map((q, i) => (occurs(lower, q, placement[i]) ? i : -1)).filter((i) => i >= 0);
      assert.deepEqual(got.sort((a, b) => a - b), want, `${JSON.stringify(patterns)} in ${text}`);
    }
  }
});

/** Add the rule to the index (and to `live`) when it is not there, remove it when it is. */
function toggleRule(index: RuleIndex<string>, live: Map<string, CompiledRule>, [k, m]: [string, CompiledRule]): void {
  if (live.has(k)) {
    index.remove(k);
    live.delete(k);
  } else {
    index.add(k, m);
    live.set(k, m);
  }
}

test('value caches: repeated values, numbers beside their text, long values and changing postings stay exact', () => {
  const rnd = prng(5);
  const alphabet = 'abAB\\.é1';
  const word = (n: number): string => Array.from({ length: n }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join('');
  const sources = [
    ...Array.from({ length: 12 }, (_, i) => `sel:\n  F|contains: '${word(1 + (i % 4)).toLowerCase()}'\ncondition: sel`),
    ...Array.from({ length: 6 }, () => `sel:\n  G: '${word(3)}'\ncondition: sel`),
    "sel:\n  G: 1\ncondition: sel",
    "sel:\n  F|endswith: '1'\ncondition: sel",
    ...Array.from({ length: 6 }, () => `keywords:\n  - '${word(2)}'\ncondition: keywords`),
    "keywords:\n  - 1\ncondition: keywords",
    "sel:\n  F|contains: 'zq'\ncondition: sel",
    "sel:\n  F|startswith: 'ab'\ncondition: sel",
    "sel:\n  F|endswith: 'xq'\ncondition: sel",
    "sel:\n  F: 'xx*x?'\ncondition: sel",
    "sel:\n  H: '?b*é1'\ncondition: sel",
  ];
  const rules = keyedRules(sources);
  const index = new RuleIndex<string>();
  const live = new Map<string, CompiledRule>();
  // Few distinct values (the caches stay on and answer), some longer than any cached key, numbers and
  // their text in the same fields, values that differ only in characters the cache does not hash.
  const values: unknown[] = Array.from({ length: 30 }, (_, i) => (i % 10 === 0 ? word(300) : word(Math.floor(rnd() * 12))));
  values.push(1, '1', 11, '11', true, 'true', null, -0, 0, NaN);
  for (const middle of ['zq', 'qq', 'zz']) values.push(`${'x'.repeat(7)}${middle}${'x'.repeat(91)}`);
  const pick = (): unknown => values[Math.floor(rnd() * values.length)];
  for (let t = 0; t < 6000; t++) {
    // Postings change now and then, between events with values the caches have seen.
    if (t % 250 === 0) toggleRule(index, live, rules[Math.floor(rnd() * rules.length)]);
    const event = { F: pick(), G: pick(), H: pick() };
    assert.deepEqual(index.match(event).sort(), naive([...live], event).sort(), JSON.stringify(event));
  }
});

test('a number finds the exact values that are its text, and only those', () => {
  // Exact values found by the number itself: texts numbers have (`4`, `1e-05`, `inf`, `nan`, `0` for -0),
  // texts no number has (`1.0`, `04`, `+4`, `-0`) beside them, added and removed.
  const sources = ['4', '1.0', '04', "'+4'", "'1e-05'", "'inf'", "'-inf'", "'nan'", "'0'", "'-0'", '1e21', "'1e+21'"].map(
    (v) => `sel:\n  N: ${v}\ncondition: sel`,
  );
  const rules = keyedRules(sources);
  const values: unknown[] = [4, 1, 4.0, 1e-5, Infinity, -Infinity, NaN, 0, -0, 1e21, 40, '4', '1.0', '04', 'inf', 'nan', '-0'];
  const index = new RuleIndex<string>();
  const live = new Map<string, CompiledRule>();
  const rnd = prng(11);
  for (let t = 0; t < 400; t++) {
    if (t % 20 === 0) toggleRule(index, live, rules[Math.floor(rnd() * rules.length)]);
    for (const v of values) {
      const event = { N: v };
      assert.deepEqual(index.match(event).sort(), naive([...live], event).sort(), `N = ${String(v)}`);
    }
  }
  for (const [k, m] of rules) index.add(k, m);
  assert.deepEqual(index.match({ N: 4 }).sort(), naive(rules, { N: 4 }).sort());
  assert.ok(naive(rules, { N: 4 }).length >= 1, 'the number 4 matches the rule on 4');
});

test('routes: keys in changing orders, nested objects and arrays, more distinct keys than are remembered', () => {
  const sources = [
    "sel:\n  a.b|contains: 'xy'\ncondition: sel",
    "sel:\n  a.b.c: 1\ncondition: sel",
    "sel:\n  K4500: 'v'\ncondition: sel",
    "sel:\n  K7|startswith: 'v'\ncondition: sel",
    "sel:\n  Some Key: 'v'\ncondition: sel",
    "sel:\n  a|exists: true\nfilter:\n  K3: 'v'\ncondition: sel and not filter",
    "keywords:\n  - 'zz'\ncondition: keywords",
  ];
  const rules = keyedRules(sources);
  const index = new RuleIndex<string>();
  for (const [k, m] of rules) index.add(k, m);
  const rnd = prng(11);
  const value = (): unknown => ['v', 'vv', 'xyz', 'zz', 1, null][Math.floor(rnd() * 6)];
  const nested = (): unknown => {
    const o = rnd() < 0.5 ? { b: value(), c: value() } : { c: value(), b: rnd() < 0.3 ? { c: value() } : value() };
    return rnd() < 0.3 ? [o, { b: value() }] : o;
  };
  for (let t = 0; t < 3000; t++) {
    const entries: Array<[string, unknown]> = [];
    // Few keys from a small set (remembered orders repeat), or many from a set larger than the route limit.
    const pool = t % 3 === 0 ? 6000 : 10;
    const count = t % 3 === 0 ? 40 : 1 + Math.floor(rnd() * 6);
    for (let i = 0; i < count; i++) entries.push([`K${Math.floor(rnd() * pool)}`, value()]);
    if (rnd() < 0.5) entries.push(['a', nested()]);
    if (rnd() < 0.3) entries.push([rnd() < 0.5 ? 'Some Key' : 'SomeKey', value()]);
    if (t % 500 === 0) entries.push(['K4500', 'v'], ['K7', 'vv']);
    const event = Object.fromEntries(entries.sort(() => rnd() - 0.5));
    assert.deepEqual(index.match(event).sort(), naive(rules, event).sort(), JSON.stringify(event));
  }
});

test('under logsource conditions a rule keeps witnesses of its own detection, emoji included', () => {
  const thor = (detection: string): CompiledRule => {
    const p = parseRule(rule(detection).replace('{product: windows}', '{product: windows, category: process_creation}'));
    assert.ok(p.ok, JSON.stringify(p));
    const c = compileRule(p.rule, getPreset('windows-thor'));
    assert.ok(c.ok, JSON.stringify(c));
    return c.matcher;
  };
  // Clauses made only of the detection's atoms (the Sysmon and the Security mapping of one test).
  const own = (m: CompiledRule, fields: string[]): boolean => {
    const req = requirementOf(m.ir);
    return Array.isArray(req) && req.some((clause) => clause.every((a) => a.kind === 'sub' && fields.includes(a.field as string)));
  };
  const emoji = thor("sel:\n  CommandLine|contains: ['😀', '🙂']\ncondition: sel");
  assert.ok(own(emoji, ['CommandLine']));
  const images = thor("sel:\n  Image|endswith: ['\\\\a.exe', '\\\\b.exe']\nfilter:\n  ParentImage: 'C:\\\\x.exe'\ncondition: sel and not filter");
  assert.ok(own(images, ['Image', 'NewProcessName']));
  // The log source's conditions (EventID, Channel: shared by every process creation rule) are no clause
  // of a rule that has a selective clause of its own; a rule with only presence of its own keeps them.
  const fieldsOf = (m: CompiledRule): string[] => {
    const req = requirementOf(m.ir);
    return Array.isArray(req) ? [...new Set(req.flat().map((a) => a.field as string))].sort() : [];
  };
  assert.deepEqual(fieldsOf(emoji), ['CommandLine']);
  assert.deepEqual(fieldsOf(images), ['Image', 'NewProcessName']);
  const presence = thor("sel:\n  CommandLine|exists: true\ncondition: sel");
  assert.ok(fieldsOf(presence).includes('EventID'), fieldsOf(presence).join());
  // A rule with nothing of its own to index is routed by its log source and memoised; both stay exact.
  const filtersOnly = thor("filter:\n  Image|contains: '\\\\'\ncondition: not filter");
  assert.ok(!own(filtersOnly, ['Image', 'NewProcessName']));
  const index = new RuleIndex<string>();
  const rules: Array<[string, CompiledRule]> = [['emoji', emoji], ['images', images], ['filters', filtersOnly], ['presence', presence]];
  for (const [k, m] of rules) index.add(k, m);
  const events = [
    { Channel: 'Microsoft-Windows-Sysmon/Operational', EventID: 1, Image: 'C:\\a.exe', CommandLine: 'x 😀', ParentImage: 'C:\\y.exe' },
    { Channel: 'Security', EventID: 4688, NewProcessName: 'C:\\b.exe', CommandLine: 'x', ParentProcessName: 'C:\\x.exe' },
    { Channel: 'Microsoft-Windows-Sysmon/Operational', EventID: 1, Image: 'System', CommandLine: '🙂' },
    { Channel: 'Security', EventID: 4624, NewProcessName: 'C:\\b.exe' },
  ];
  for (let round = 0; round < 3; round++) for (const e of events) assert.deepEqual(index.match(e).sort(), naive(rules, e).sort(), JSON.stringify(e));
  assert.ok(events.some((e) => index.match(e).length > 0));
});

test('empty arrays make a field present: exists, null and not-rules agree with evaluating every rule', () => {
  const rules = keyedRules([
    'sel:\n  F|exists: true\ncondition: sel',
    'sel:\n  F|exists: false\ncondition: sel',
    'sel:\n  F: null\ncondition: sel',
    'sel:\n  F: x\ncondition: not sel',
    'sel:\n  a.b|exists: true\ncondition: sel',
    'sel:\n  F|exists: true\nfilter:\n  G: y\ncondition: sel and not filter',
    'sel:\n  F|exists: false\n  G: y\ncondition: sel',
    'sel:\n  F: null\n  G: y\ncondition: sel',
  ]);
  const index = new RuleIndex();
  for (const [k, m] of rules) index.add(k, m);
  const events: object[] = [{}, { F: [] }, { F: [[]] }, { F: null }, { F: [null, 'x'] }, { F: 'x' }, { a: { b: [] } }, { 'a.b': [] }, { a: [] }, { F: [], G: 'y' }, { G: [] }, { G: 'y' }, { G: 'y', F: [] }, { G: 'y', F: [[]] }, { G: 'y' }];
  // Twice: the second pass is answered by the memos.
  for (let pass = 0; pass < 2; pass++) {
    for (const e of events) assert.deepEqual(index.match(e).sort(), naive(rules, e).sort(), JSON.stringify(e));
  }
});

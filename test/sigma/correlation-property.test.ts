// The correlation engine against a brute-force evaluator (correlation-brute.ts) on generated event streams
// (seeded PRNG): every type, random conditions and ranges, group-by with missing fields, out-of-order and
// too-late events, equal timestamps, and a save/restore of the state at random points. Firings must be
// identical.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileCorrelations, feed, flush, newState, parseRule, restore, serialize } from '../../src/sigma/index.js';
import type { EngineState, Firing } from '../../src/sigma/index.js';
import { bruteChain, bruteForce } from './correlation-brute.js';
import type { BruteEvent, BruteFiring, BruteSpec } from './correlation-brute.js';

/** mulberry32: a small seeded PRNG. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TYPES = ['event_count', 'value_count', 'temporal', 'temporal_ordered', 'value_sum', 'value_avg', 'value_percentile', 'value_median'];
const OPS = ['gt', 'gte', 'lt', 'lte', 'eq', 'neq'];

function pick<T>(rand: () => number, xs: readonly T[]): T {
  return xs[Math.floor(rand() * xs.length)];
}

function spec(rand: () => number, type: string, name = 'gen', given?: { rules: string[]; groupBy: string[] }): BruteSpec & { yaml: string } {
  const rules = given?.rules ?? (type.startsWith('temporal') ? ['a', 'b', 'c'].slice(0, 2 + Math.floor(rand() * 2)) : rand() < 0.5 ? ['a'] : ['a', 'b']);
  const groupBy = given?.groupBy ?? pick(rand, [[], ['host'], ['host', 'user']]);
  const timespanS = pick(rand, [5, 10, 30, 60]);
  const scale = type === 'value_sum' ? 300 : type === 'value_avg' || type === 'value_percentile' || type === 'value_median' ? 100 : type.startsWith('temporal') ? rules.length : 6;
  const threshold = (): number => Math.floor(rand() * (scale + 1));
  let cond: Array<{ op: string; value: number }>;
  const r = rand();
  if (type.startsWith('temporal') && r < 0.4) cond = [];
  else if (r < 0.7) cond = [{ op: pick(rand, OPS), value: threshold() }];
  else {
    const lo = threshold();
    cond = [
      { op: pick(rand, ['gt', 'gte']), value: lo },
      { op: pick(rand, ['lt', 'lte']), value: lo + 1 + threshold() },
    ];
  }
  const field = type === 'value_count' ? 'user' : type.startsWith('value_') ? 'bytes' : undefined;
  let percentile: number | null = null;
  if (type === 'value_percentile') percentile = rand() < 0.7 ? pick(rand, [0, 10, 50, 90, 100]) : null;
  const fieldForm = type === 'value_percentile' && percentile === null ? 'user' : field;
  const condYaml = [
    ...cond.map((c) => `        ${c.op}: ${c.value}`),
    ...(fieldForm ? [`        field: ${fieldForm}`] : []),
    ...(percentile !== null ? [`        percentile: ${percentile}`] : []),
  ];
  const yaml = [
    'title: generated',
    `name: ${name}`,
    'correlation:',
    `    type: ${type}`,
    `    rules: [${rules.join(', ')}]`,
    ...(groupBy.length ? [`    group-by: [${groupBy.join(', ')}]`] : []),
    `    timespan: ${timespanS}s`,
    ...(condYaml.length ? ['    condition:', ...condYaml] : []),
    '',
  ].join('\n');
  const effective = cond.length ? cond : [{ op: 'gte', value: rules.length }];
  return { type, rules, groupBy, timespanMs: timespanS * 1000, cond: effective, field: fieldForm, percentile, yaml };
}

function stream(rand: () => number, rules: string[], latenessMs: number): BruteEvent[] {
  // Now and then a long stream with dense times (windows of many inputs).
  const long = rand() < 0.1;
  const n = long ? 200 + Math.floor(rand() * 200) : 5 + Math.floor(rand() * 60);
  const out: BruteEvent[] = [];
  let clock = 1_700_000_000_000;
  for (let i = 0; i < n; i++) {
    clock += Math.floor(rand() * (long ? 2 : 6)) * 1000; // equal times happen
    // Mostly in order; some late within the lateness, some beyond it.
    const back = rand() < 0.25 ? Math.floor(rand() * (latenessMs * 2 + 3000) / 1000) * 1000 : 0;
    const fields: Record<string, unknown> = {};
    if (rand() < 0.9) fields.host = pick(rand, ['h1', 'h2', 'h3']);
    if (rand() < 0.85) fields.user = pick(rand, ['alice', 'bob', 'carol', 'dave']);
    const b = rand();
    if (b < 0.7) fields.bytes = Math.floor(rand() * 200) - 20;
    else if (b < 0.8) fields.bytes = Math.floor(rand() * 2000) / 10; // sums of these round
    else if (b < 0.9) fields.bytes = String(Math.floor(rand() * 100));
    else if (b < 0.95) fields.bytes = 'n/a';
    out.push({ rule: pick(rand, [...rules, ...rules, 'other']), id: `e${i}`, time: clock - back, fields });
  }
  return out;
}

function runEngine(yaml: string, events: BruteEvent[], latenessMs: number, restartAt: Set<number>): Firing[] {
  const parsed = parseRule(yaml);
  assert.ok(parsed.ok, JSON.stringify(parsed));
  const { set, rejected } = compileCorrelations([parsed.rule], { latenessMs, maxEventIds: 1000 });
  assert.deepEqual(rejected, []);
  let state: EngineState = newState(set);
  const firings: Firing[] = [];
  events.forEach((e, i) => {
    if (restartAt.has(i)) state = restore(set, serialize(state));
    firings.push(...feed(set, state, { ruleRef: e.rule, eventId: e.id, time: e.time, fields: e.fields }).firings);
  });
  firings.push(...flush(set, state).firings);
  return firings;
}

function comparable(f: Firing): BruteFiring {
  return { group: f.groupKey, start: f.windowStart, end: f.windowEnd, value: f.value, ids: f.eventIds };
}

/** Firings of different groups come out as their groups' clocks release them: compared in time order
 * (within a group, the order is the engine's and the reference's alike). */
function inTimeOrder(fs: BruteFiring[]): BruteFiring[] {
  return fs.map((f, i) => ({ f, i })).sort((a, b) => a.f.end - b.f.end || JSON.stringify(a.f.group).localeCompare(JSON.stringify(b.f.group)) || a.i - b.i).map((x) => x.f);
}

test('the engine gives exactly the firings of the brute-force evaluator on generated streams', () => {
  let fired = 0;
  let cases = 0;
  for (let seed = 1; seed <= 1600; seed++) {
    const rand = prng(seed);
    const type = TYPES[seed % TYPES.length];
    const s = spec(rand, type);
    const latenessMs = pick(rand, [0, 0, 3000, 10_000]);
    const events = stream(rand, s.rules, latenessMs);
    const restartAt = new Set(events.map((_, i) => i).filter(() => rand() < 0.2));
    const got = inTimeOrder(runEngine(s.yaml, events, latenessMs, restartAt).map(comparable));
    const want = inTimeOrder(bruteForce(s, events, latenessMs));
    assert.deepEqual(got, want, `seed ${seed}\n${s.yaml}\nlateness ${latenessMs}\n${JSON.stringify(events)}`);
    cases++;
    fired += want.length;
  }
  // The generator must exercise firing, not only silence.
  assert.ok(fired > cases, `${fired} firings over ${cases} streams`);
});

test('chains: a correlation over a correlation gives the firings of the brute-force chain', () => {
  let outerFired = 0;
  for (let seed = 1; seed <= 600; seed++) {
    const rand = prng(100_000 + seed);
    const groupBy = pick(rand, [[], ['host']]);
    const inner = spec(rand, pick(rand, ['event_count', 'value_count', 'temporal', 'value_sum']), 'inner', { rules: ['a', 'b'], groupBy });
    const outer = spec(rand, pick(rand, ['event_count', 'temporal', 'temporal_ordered', 'value_count']), 'outer', { rules: rand() < 0.5 ? ['inner', 'c'] : ['c', 'inner'], groupBy });
    if (outer.type === 'value_count') {
      // Over the chain, the distinct hosts (a field the inner firings carry when grouped by it).
      outer.field = 'host';
      outer.yaml = outer.yaml.replace('field: user', 'field: host');
    }
    const latenessMs = pick(rand, [0, 3000, 10_000]);
    const events = stream(rand, ['a', 'b', 'c'], latenessMs);
    const restartAt = new Set(events.map((_, i) => i).filter(() => rand() < 0.2));
    const parsed = [outer.yaml, inner.yaml].map((y) => parseRule(y));
    const { set, rejected } = compileCorrelations(parsed.map((p) => (assert.ok(p.ok), p.rule)), { latenessMs, maxEventIds: 1000 });
    assert.deepEqual(rejected, []);
    let state: EngineState = newState(set);
    const firings: Firing[] = [];
    events.forEach((e, i) => {
      if (restartAt.has(i)) state = restore(set, serialize(state));
      firings.push(...feed(set, state, { ruleRef: e.rule, eventId: e.id, time: e.time, fields: e.fields }).firings);
    });
    firings.push(...flush(set, state).firings);
    const chain = bruteChain(inner, 'inner', outer, events, latenessMs);
    const want = { inner: inTimeOrder(chain.inner), outer: inTimeOrder(chain.outer) };
    const got = {
      inner: inTimeOrder(firings.filter((f) => f.correlation.name === 'inner').map(comparable)),
      outer: inTimeOrder(firings.filter((f) => f.correlation.name === 'outer').map(comparable)),
    };
    assert.deepEqual(got, want, `seed ${seed}\n${inner.yaml}\n${outer.yaml}\nlateness ${latenessMs}\n${JSON.stringify(events)}`);
    outerFired += chain.outer.length;
  }
  assert.ok(outerFired > 100, `${outerFired} outer firings`);
});

// The engine state in parts (state-parts.ts) and what a batch reaches (reach.ts), as a service storing a
// correlation per group uses them: each batch holds only its head, the windows and group clocks the
// batch can reach (and, at the group cap, the stale windows), every input waiting on those clocks and
// the oldest ones too many waiting may evaluate, with stale clocks forgotten before it (the whole state
// forgets them after each batch, as the service's next chunk does); the firings and counters must be
// those of the whole state fed the same batches, on generated streams of every counting type, chains
// (over the same and over other group-by fields), late events, a small group cap and a small bound on
// waiting inputs. Also: a state split into all its parts comes back equal, and broken parts
// are refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  asWaiting, clocksOf, clocksReached, clockText, compileCorrelations, feed, forgetStale, fromParts, headOf, headText, newState, newestOf, parseClock, parseHead, parseRule, parseWaiting, parseWindow, settle, staleBefore, StateMismatchError,
  waitingReached, waitingText, windowsOf, windowsReached, windowText, type CorrelationSet, type Firing, type RuleMatch,
} from '../../src/sigma/index.js';

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
const pick = <T>(rand: () => number, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];

function yaml(name: string, type: string, rules: string[], groupBy: string[], timespanS: number, condition: string): string {
  return [
    'title: generated',
    `name: ${name}`,
    'correlation:',
    `    type: ${type}`,
    `    rules: [${rules.join(', ')}]`,
    ...(groupBy.length ? [`    group-by: [${groupBy.join(', ')}]`] : []),
    `    timespan: ${timespanS}s`,
    '    condition:',
    ...condition.split('\n').map((l) => `        ${l}`),
    '',
  ].join('\n');
}

function conditionOf(rand: () => number, type: string, rules: number): string {
  if (type === 'value_count') return `gte: ${2 + Math.floor(rand() * 3)}\nfield: user`;
  if (type === 'value_sum') return `gte: ${50 + Math.floor(rand() * 300)}\nfield: bytes`;
  if (type.startsWith('temporal')) return `gte: ${rules}`;
  return `gte: ${2 + Math.floor(rand() * 5)}`;
}

function setOf(rand: () => number): CorrelationSet {
  const groupBy = pick(rand, [['host'], ['host', 'user'], ['user']]);
  const type = pick(rand, ['event_count', 'value_count', 'temporal', 'temporal_ordered', 'value_sum']);
  const rules = type.startsWith('temporal') ? ['a', 'b'] : pick(rand, [['a'], ['a', 'b']]);
  const docs = [yaml('inner', type, rules, groupBy, pick(rand, [5, 20, 60]), conditionOf(rand, type, rules.length))];
  if (rand() < 0.4) {
    const outerType = pick(rand, ['event_count', 'temporal']);
    docs.unshift(yaml('outer', outerType, ['inner', 'c'], groupBy.filter((g) => g === 'host'), pick(rand, [30, 120]), conditionOf(rand, outerType, 2)));
  }
  const latenessMs = pick(rand, [0, 0, 3000, 10_000]);
  const maxGroups = pick(rand, [2, 3, 10_000]);
  const maxPending = pick(rand, [3, 5, 100_000]);
  const { set, rejected } = compileCorrelations(docs.map((d) => {
    const parsed = parseRule(d);
    assert.ok(parsed.ok, d);
    return parsed.rule;
  }), { latenessMs, maxGroups, maxPending, maxEventIds: 1000 });
  assert.deepEqual(rejected, []);
  return set;
}

function streamOf(rand: () => number, latenessMs: number): RuleMatch[] {
  const out: RuleMatch[] = [];
  let clock = 1_700_000_000_000;
  const n = 20 + Math.floor(rand() * 120);
  for (let i = 0; i < n; i++) {
    clock += Math.floor(rand() * 4) * 1000;
    const back = rand() < 0.2 ? Math.floor((rand() * (latenessMs * 2 + 3000)) / 1000) * 1000 : 0;
    const fields: Record<string, unknown> = {};
    if (rand() < 0.9) fields.host = pick(rand, ['h1', 'h2', 'h3', 'h4', 'h5']);
    if (rand() < 0.85) fields.user = pick(rand, ['alice', 'bob', 'carol', 'dave']);
    fields.bytes = Math.floor(rand() * 100);
    out.push({ ruleRef: pick(rand, ['a', 'a', 'b', 'c', 'other']), eventId: `e${i}`, time: clock - back, fields });
  }
  return out;
}

/** What a service stores of one correlation: the head, a window per (member, group), a clock per
 * group, a waiting input per sequence number. */
interface Store {
  head: string;
  windows: Map<string, { member: number; id: string; newest: number; text: string }>;
  clocks: Map<string, { newest: number; text: string }>;
  waiting: Map<number, { t: number; k: string; text: string }>;
}

const keyOf = (member: number, id: string) => `${member}\u0000${id}`;

/** One batch through the parts, as src/correlation/states.ts does it against the database. */
function feedParts(set: CorrelationSet, store: Store, matches: RuleMatch[]): Firing[] {
  const head = parseHead(store.head);
  if (head.clock !== null) {
    const before = staleBefore(set, head.clock);
    const waitedOn = new Set([...store.waiting.values()].map((w) => w.k));
    for (const [k, c] of store.clocks) if (c.newest < before && !waitedOn.has(k)) store.clocks.delete(k);
  }
  const batch = asWaiting(set, matches);
  const due = waitingReached(set, head.clock, head.waiting, batch);
  const ordered = [...store.waiting].sort(([s1, a], [s2, b]) => a.t - b.t || s1 - s2);
  const taken = new Map(ordered.filter((_, i) => i < due.oldest).map(([s, w]) => [s, parseWaiting(w.text)]));
  const clocksRead = new Set<string>();
  for (;;) {
    const ids = [...clocksReached(set, [...batch, ...taken.values()])].filter((k) => !clocksRead.has(k));
    if (ids.length === 0) break;
    for (const k of ids) clocksRead.add(k);
    for (const [s, w] of store.waiting) if (ids.includes(w.k)) taken.set(s, parseWaiting(w.text));
  }
  const waiting = [...taken.values()];
  const clocks = [...clocksRead].flatMap((k) => (store.clocks.has(k) ? [{ id: k, clock: parseClock(store.clocks.get(k)!.text) }] : []));
  const reached = windowsReached(set, [...waiting, ...batch]);
  const read = new Map<string, { member: number; id: string; text: string }>();
  for (const [member, ids] of reached.entries()) for (const id of ids) {
    const w = store.windows.get(keyOf(member, id));
    if (w) read.set(keyOf(member, id), w);
  }
  for (const [member, c] of set.correlations.entries()) {
    if (due.clock === null || head.correlations[member].groupCount + reached[member].size <= set.options.maxGroups) continue;
    for (const [k, w] of store.windows) if (w.member === member && w.newest < due.clock - c.timespanMs - set.options.latenessMs) read.set(k, w);
  }
  const state = fromParts(set, head, [...read.values()].map((w) => ({ correlation: w.member, id: w.id, window: parseWindow(w.text) })), waiting, clocks, 0);
  const seqBefore = state.seq;
  const firings: Firing[] = [];
  for (const m of matches) firings.push(...feed(set, state, m, 0).firings);
  firings.push(...settle(set, state).firings);
  for (const [member, cs] of state.correlations.entries()) {
    for (const [id, window] of Object.entries(cs.groups)) {
      if (!reached[member].has(id)) {
        assert.ok(read.has(keyOf(member, id)), `a window outside the reach was stepped into: ${member} ${id}`);
        continue;
      }
      store.windows.set(keyOf(member, id), { member, id, newest: newestOf(window), text: windowText(window) });
    }
  }
  for (const [k, w] of read) if (!Object.hasOwn(state.correlations[w.member].groups, w.id)) store.windows.delete(k);
  for (const k of clocksRead) if (!Object.hasOwn(state.clocks, k)) store.clocks.delete(k);
  for (const [k, c] of Object.entries(state.clocks)) {
    assert.ok(clocksRead.has(k), `a clock outside the reach was moved: ${k}`);
    store.clocks.set(k, { newest: c.t, text: clockText(c) });
  }
  const still = new Set(state.pending.map((p) => p.s));
  for (const w of waiting) if (!still.has(w.s)) store.waiting.delete(w.s);
  for (const p of state.pending) if (p.s >= seqBefore) store.waiting.set(p.s, { t: p.t, k: p.k!, text: waitingText(p) });
  store.head = headText(headOf(state));
  assert.equal(parseHead(store.head).waiting, store.waiting.size, 'the head counts the waiting inputs stored');
  return firings;
}

const comparable = (f: Firing) => [f.correlation.name, f.groupKey, f.windowStart, f.windowEnd, f.value, f.eventIds, f.inputCount];

test('fed in parts, a correlation fires exactly as when fed its whole state', () => {
  let fired = 0;
  for (let seed = 1; seed <= 600; seed++) {
    const rand = prng(seed);
    const set = setOf(rand);
    const matches = streamOf(rand, set.options.latenessMs);
    const whole = newState(set);
    const store: Store = { head: headText(headOf(newState(set))), windows: new Map(), clocks: new Map(), waiting: new Map() };
    const want: Firing[] = [];
    const got: Firing[] = [];
    for (let i = 0; i < matches.length; ) {
      const n = 1 + Math.floor(rand() * 12);
      const batch = matches.slice(i, i + n);
      i += n;
      for (const m of batch) want.push(...feed(set, whole, m, 0).firings);
      want.push(...settle(set, whole).firings);
      forgetStale(set, whole);
      got.push(...feedParts(set, store, batch));
    }
    const context = `seed ${seed}: ${JSON.stringify(set.correlations.map((c) => [c.type, c.groupBy, c.timespanMs]))} ${JSON.stringify(set.options)}`;
    assert.deepEqual(got.map(comparable), want.map(comparable), context);
    const head = parseHead(store.head);
    assert.equal(head.droppedLate, whole.droppedLate, context);
    assert.deepEqual(head.correlations.map((c) => [c.refusedInputs, c.firings, c.overflowInputs]), whole.correlations.map((c) => [c.refusedInputs, c.firings, c.overflowInputs]), context);
    fired += want.length;
  }
  assert.ok(fired > 600, `${fired} firings`);
});

test('a state split into all its parts comes back equal; broken parts are refused', () => {
  const set = setOf(prng(7));
  const state = newState(set);
  for (const m of streamOf(prng(8), set.options.latenessMs)) feed(set, state, m);
  const head = parseHead(headText(headOf(state)));
  const windows = windowsOf(state).map((w) => ({ ...w, window: parseWindow(windowText(w.window)) }));
  const clocks = clocksOf(state).map((c) => ({ id: c.id, clock: parseClock(clockText(c.clock)) }));
  const back = fromParts(set, head, windows, state.pending.map((p) => parseWaiting(waitingText(p))).reverse(), clocks);
  assert.equal(back.pendingStored, 0);
  const live = (s: typeof state) => s.correlations.map((c) => Object.fromEntries(Object.entries(c.groups).map(([id, g]) => [id, { key: g.key, entries: g.entries.slice(g.head) }])));
  assert.deepEqual(live(back), live(state));
  assert.deepEqual(back.pending, state.pending);
  assert.deepEqual(back.clocks, state.clocks);
  assert.deepEqual(headOf(back), headOf(state));
  for (const broken of ['', '{', '[]', '{"version":1}', '{"version":2}', '{"version":3}']) assert.throws(() => parseHead(broken), StateMismatchError, broken);
  assert.throws(() => parseWindow('{"key":{}}'), StateMismatchError);
  assert.throws(() => parseWaiting('{"t":"x"}'), StateMismatchError);
  const other = setOf(prng(9));
  if (other.fingerprint !== set.fingerprint) assert.throws(() => fromParts(other, head, [], []), StateMismatchError);
});

// The correlation engine on the spec's examples (shared/corpus/spec-examples/schema/correlation and the
// chaining and alias examples of the correlation specification) and on its boundaries: the threshold,
// the window's ends, late and too-late events, one firing per window, missing group fields, the group
// cap, restarts mid-window, compile-time refusals.
// Reads the shared corpus.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { advance, anyDue, clockIdOf, compactWaiting, compileCorrelations, due, feed, flush, generatesAlerts, newState, parseRule, restore, serialize, settle, StateMismatchError } from '../../src/sigma/index.js';
import type { CorrelationSet, EngineOptions, EngineState, Firing, RuleMatch, SigmaRule } from '../../src/sigma/index.js';
import { repoRoot } from './corpus-helpers.js';

const EXAMPLES = join(repoRoot, '../shared/corpus/spec-examples/schema/correlation');
const T0 = Date.parse('2026-01-01T00:00:00Z');
const S = 1000;
const M = 60 * S;

function rule(text: string): SigmaRule {
  const r = parseRule(text);
  assert.ok(r.ok, JSON.stringify(r));
  return r.rule;
}

function compile(texts: string[], options: Partial<EngineOptions> = {}): CorrelationSet {
  const { set, rejected } = compileCorrelations(texts.map(rule), options);
  assert.deepEqual(rejected, []);
  return set;
}

function example(name: string, options: Partial<EngineOptions> = {}): CorrelationSet {
  return compile([readFileSync(join(EXAMPLES, `${name}.yml`), 'utf8')], options);
}

/** Feed matches in the order given, then flush; every firing, with the warnings. */
function run(set: CorrelationSet, matches: RuleMatch[], state: EngineState = newState(set)): { firings: Firing[]; warnings: string[]; state: EngineState } {
  const firings: Firing[] = [];
  const warnings: string[] = [];
  for (const m of matches) {
    const r = feed(set, state, m);
    firings.push(...r.firings);
    warnings.push(...r.warnings);
  }
  const r = flush(set, state);
  firings.push(...r.firings);
  warnings.push(...r.warnings);
  return { firings, warnings, state };
}

let nextId = 0;
function m(ruleRef: string | string[], at: number, fields: Record<string, unknown> = {}): RuleMatch {
  return { ruleRef, eventId: `ev${nextId++}`, time: T0 + at, fields };
}

const FAILED = '5638f7c0-ac70-491d-8465-2a65075e0d86';

test('event_count example: 100 failed logins on one computer within 1h fire once, with the group and the events', () => {
  const set = example('event_count');
  const hundred = Array.from({ length: 100 }, (_, i) => m(FAILED, i * 30 * S, { ComputerName: 'pc1' }));
  const { firings } = run(set, hundred);
  assert.equal(firings.length, 1);
  const f = firings[0];
  assert.equal(f.correlation.title, 'Many failed logins');
  assert.equal(f.correlation.id, '0e95725d-7320-415d-80f7-004da920fc11');
  assert.deepEqual(f.groupKey, { ComputerName: 'pc1' });
  assert.equal(f.value, 100);
  assert.equal(f.windowStart, T0);
  assert.equal(f.windowEnd, T0 + 99 * 30 * S);
  assert.equal(f.inputCount, 100);
  assert.deepEqual(f.eventIds, hundred.map((x) => x.eventId));
  // 99 are not enough; 100 over more than an hour are not either; 50 on each of two computers neither.
  assert.equal(run(set, hundred.slice(1)).firings.length, 0);
  assert.equal(run(set, Array.from({ length: 100 }, (_, i) => m(FAILED, i * 37 * S, { ComputerName: 'pc1' }))).firings.length, 0);
  assert.equal(run(set, Array.from({ length: 100 }, (_, i) => m(FAILED, i * S, { ComputerName: `pc${i % 2}` }))).firings.length, 0);
  // Matches of other rules do not count.
  assert.equal(run(set, Array.from({ length: 100 }, (_, i) => m('other-rule', i * S, { ComputerName: 'pc1' }))).firings.length, 0);
});

test('event_count_ecs example: the group-by field is a dotted name, found flat or nested', () => {
  const set = example('event_count_ecs');
  const events = Array.from({ length: 100 }, (_, i) =>
    m(FAILED, i * S, i % 2 ? { 'dns.question.name': 'evil.example' } : { dns: { question: { name: 'evil.example' } } }),
  );
  const { firings } = run(set, events);
  assert.equal(firings.length, 1);
  assert.deepEqual(firings[0].groupKey, { 'dns.question.name': 'evil.example' });
});

test('value_count example: 100 distinct users on one computer and workstation within 1d', () => {
  const set = example('value_count');
  const users = (n: number, distinct: number): RuleMatch[] =>
    Array.from({ length: n }, (_, i) => m(FAILED, i * M, { ComputerName: 'pc1', WorkstationName: 'ws1', User: `u${i % distinct}` }));
  const { firings } = run(set, users(100, 100));
  assert.equal(firings.length, 1);
  assert.equal(firings[0].value, 100);
  assert.deepEqual(firings[0].groupKey, { ComputerName: 'pc1', WorkstationName: 'ws1' });
  assert.equal(run(set, users(150, 99)).firings.length, 0, 'repeated users count once');
  // Events without the User field bring no value.
  assert.equal(run(set, [...users(99, 99), m(FAILED, 200 * M, { ComputerName: 'pc1', WorkstationName: 'ws1' })]).firings.length, 0);
});

test('temporal example: the three recon commands by one user on one computer within 5m, in any order', () => {
  const set = example('temporal');
  const at = (r: string, t: number, user = 'bob'): RuleMatch => m(r, t, { ComputerName: 'pc1', User: user });
  const { firings } = run(set, [at('recon_cmd_c', 0), at('recon_cmd_a', M), at('recon_cmd_a', 2 * M), at('recon_cmd_b', 4 * M)]);
  assert.equal(firings.length, 1);
  assert.equal(firings[0].value, 3);
  assert.deepEqual(firings[0].groupKey, { ComputerName: 'pc1', User: 'bob' });
  assert.equal(firings[0].windowStart, T0);
  assert.equal(firings[0].windowEnd, T0 + 4 * M);
  assert.equal(run(set, [at('recon_cmd_a', 0), at('recon_cmd_b', M)]).firings.length, 0, 'two of three');
  assert.equal(run(set, [at('recon_cmd_a', 0), at('recon_cmd_b', M), at('recon_cmd_c', 2 * M, 'eve')]).firings.length, 0, 'another user');
  assert.equal(run(set, [at('recon_cmd_a', 0), at('recon_cmd_b', M), at('recon_cmd_c', 5 * M + S)]).firings.length, 0, 'beyond 5m');
  assert.equal(run(set, [at('recon_cmd_a', 0), at('recon_cmd_b', M), at('recon_cmd_c', 5 * M)]).firings.length, 1, 'exactly 5m: inclusive');
});

test('temporal_ordered example: the recon commands in the order of the rule', () => {
  const set = example('temporal_ordered');
  const at = (r: string, t: number): RuleMatch => m(r, t, { ComputerName: 'pc1', User: 'bob' });
  assert.equal(run(set, [at('recon_cmd_a', 0), at('recon_cmd_b', M), at('recon_cmd_c', 2 * M)]).firings.length, 1);
  assert.equal(run(set, [at('recon_cmd_c', 0), at('recon_cmd_b', M), at('recon_cmd_a', 2 * M)]).firings.length, 0, 'reverse order');
  assert.equal(run(set, [at('recon_cmd_a', 0), at('recon_cmd_c', M), at('recon_cmd_b', 2 * M)]).firings.length, 0, 'c before b');
  // Stray commands in between do not hide the ordered sequence.
  const { firings } = run(set, [at('recon_cmd_b', 0), at('recon_cmd_a', M), at('recon_cmd_c', 90 * S), at('recon_cmd_b', 2 * M), at('recon_cmd_c', 3 * M)]);
  assert.equal(firings.length, 1);
  assert.equal(firings[0].windowEnd, T0 + 3 * M);
  // Order is event time, not arrival: c arrives first but happened last (within the lateness).
  const late = example('temporal_ordered', { latenessMs: 10 * M });
  assert.equal(run(late, [at('recon_cmd_c', 2 * M), at('recon_cmd_a', 0), at('recon_cmd_b', M)]).firings.length, 1);
});

test('value_sum example: more than 1,000,000 bytes sent by one source and user within 1h', () => {
  const set = example('value_sum');
  const sent = (bytes: number[], step = M): RuleMatch[] => bytes.map((b, i) => m('website_access', i * step, { SourceIP: '10.0.0.5', User: 'bob', bytes_sent: b }));
  const { firings } = run(set, sent([400_000, 400_000, 200_001]));
  assert.equal(firings.length, 1);
  assert.equal(firings[0].value, 1_000_001);
  assert.equal(run(set, sent([400_000, 400_000, 200_000])).firings.length, 0, 'gt: exactly the threshold does not fire');
  assert.equal(run(set, sent([600_000, 600_000], 61 * M)).firings.length, 0, 'more than an hour apart');
  assert.equal(run(set, sent([600_000, '500000' as unknown as number])).firings.length, 1, 'numeric text counts');
  assert.equal(run(set, sent([600_000, 'lots' as unknown as number, 300_000])).firings.length, 0, 'non-numbers are ignored');
});

test('value_avg example: average bytes out above 500 per source and user within 24h', () => {
  const set = example('value_avg');
  const out = (bytes: number[]): RuleMatch[] => bytes.map((b, i) => m('rule_a_id', i * M, { SourceIP: '10.0.0.5', User: 'bob', BytesOut: b }));
  const { firings } = run(set, out([100, 300, 2000]));
  assert.equal(firings.length, 1);
  assert.equal(firings[0].value, 800);
  assert.equal(run(set, out([100, 300, 1100])).firings.length, 0, 'average exactly 500');
});

test('value_percentile example: a process name making up at most 1% of a computer\'s processes within 24h', () => {
  const set = example('value_percentile');
  const proc = (image: string, t: number): RuleMatch => m('process_creation', t, { ComputerName: 'pc1', Image: image });
  const common = Array.from({ length: 100 }, (_, i) => proc(i % 2 ? 'C:\\Windows\\explorer.exe' : 'C:\\Windows\\System32\\svchost.exe', i * M));
  const { firings } = run(set, [...common, proc('C:\\Users\\Public\\evil.exe', 101 * M)]);
  assert.equal(firings.length, 1);
  assert.ok(Math.abs(firings[0].value - 100 / 101) < 1e-9);
  assert.equal(firings[0].inputCount, 101);
  // Among 50 processes one is 2%: not rare enough.
  assert.equal(run(set, [...common.slice(0, 50), proc('C:\\Users\\Public\\evil.exe', 101 * M)]).firings.length, 0);
});

test('value_percentile with a percentile (pySigma) and value_median compare a nearest-rank percentile', () => {
  const p90 = compile(['title: P\ncorrelation:\n  type: value_percentile\n  rules: [r]\n  group-by: [h]\n  timespan: 1h\n  condition:\n    field: ms\n    percentile: 90\n    gte: 1000\n']);
  const lat = (values: number[]): RuleMatch[] => values.map((v, i) => m('r', i * S, { h: 'x', ms: v }));
  const nine = [10, 20, 30, 40, 50, 60, 70, 80, 90];
  assert.equal(run(p90, lat([...nine, 5000])).firings.length, 0, '10 values: the 90th percentile is the 9th');
  assert.equal(run(p90, lat([...nine, 5000, 6000])).firings[0]?.value, 5000);
  const median = compile(['title: Med\ncorrelation:\n  type: value_median\n  rules: [r]\n  group-by: [h]\n  timespan: 1h\n  condition:\n    field: ms\n    gt: 50\n']);
  assert.deepEqual(run(median, lat([10, 90, 100])).firings.map((f) => f.value), [90]);
});

test('chaining (specification example): many failed logins, then a successful login of the same user, within 10m', () => {
  const set = compile([
    'title: Many failed logins\nname: multiple_failed_login\ncorrelation:\n  type: event_count\n  rules: [failed_login]\n  group-by: [User]\n  timespan: 10m\n  condition:\n    gte: 10\n',
    'title: Brute force then success\nid: 4a0b8c7e-52c5-4b16-9e3c-3c1c7e2b7c11\nlevel: high\ncorrelation:\n  type: temporal_ordered\n  rules: [multiple_failed_login, successful_login]\n  group-by: [User]\n  timespan: 10m\n',
  ]);
  // The inner correlation comes first in the set, whatever the order of the documents.
  assert.deepEqual(set.correlations.map((c) => c.title), ['Many failed logins', 'Brute force then success']);
  const failures = Array.from({ length: 10 }, (_, i) => m('failed_login', i * 10 * S, { User: 'bob', Host: 'pc1' }));
  const success = m(['9c1a1f1e-0000-4000-8000-000000000001', 'successful_login'], 3 * M, { User: 'bob' });
  const { firings } = run(set, [...failures, success, m('successful_login', 4 * M, { User: 'eve' })]);
  assert.deepEqual(firings.map((f) => f.correlation.title), ['Many failed logins', 'Brute force then success']);
  const outer = firings[1];
  assert.deepEqual(outer.groupKey, { User: 'bob' });
  assert.equal(outer.windowStart, T0 + 90 * S, 'the inner firing enters at its window end');
  assert.equal(outer.windowEnd, T0 + 3 * M);
  // The chained firing reports the base events: the failures, then the success.
  assert.deepEqual(outer.eventIds, [...failures.map((f) => f.eventId), success.eventId]);
  // A success before the burst is out of order: no outer firing.
  assert.deepEqual(run(set, [m('successful_login', 0, { User: 'bob' }), ...failures.map((f) => ({ ...f, time: f.time + S }))]).firings.map((f) => f.correlation.title), ['Many failed logins']);
  // generate: false (the default) means the referenced rules raise no alerts of their own.
  assert.equal(generatesAlerts(set, ['failed_login']), false);
  assert.equal(generatesAlerts(set, ['unrelated']), true);
  // The inner correlation is a referenced rule too: its own firings are not alerts either.
  assert.equal(generatesAlerts(set, ['multiple_failed_login']), false);
  assert.equal(generatesAlerts(set, ['4a0b8c7e-52c5-4b16-9e3c-3c1c7e2b7c11']), true);
});

test('aliases (specification example): one group field named differently in each rule', () => {
  const set = compile([
    'title: Internal scan then connection\ncorrelation:\n  type: temporal\n  rules: [internal_error, new_network_connection]\n  group-by: [internal_ip, remote_ip]\n  timespan: 10s\n' +
      '  aliases:\n    internal_ip:\n      internal_error: destination.ip\n      new_network_connection: source.ip\n    remote_ip:\n      internal_error: source.ip\n      new_network_connection: destination.ip\n',
  ]);
  const { firings } = run(set, [
    m('internal_error', 0, { destination: { ip: '10.0.0.1' }, source: { ip: '1.2.3.4' } }),
    m('new_network_connection', 5 * S, { source: { ip: '10.0.0.1' }, destination: { ip: '1.2.3.4' } }),
  ]);
  assert.equal(firings.length, 1);
  assert.deepEqual(firings[0].groupKey, { internal_ip: '10.0.0.1', remote_ip: '1.2.3.4' });
  // Without the aliases the two events would be in different groups.
  assert.equal(
    run(set, [m('internal_error', 0, { destination: { ip: '10.0.0.1' }, source: { ip: '1.2.3.4' } }), m('new_network_connection', 5 * S, { source: { ip: '1.2.3.4' }, destination: { ip: '10.0.0.1' } })]).firings.length,
    0,
  );
});

test('generate: true keeps the referenced rules\' own alerts; the flag is read at the top level and in the correlation', () => {
  const top = compile(['title: G\ngenerate: true\ncorrelation:\n  type: event_count\n  rules: [r]\n  timespan: 1m\n  condition:\n    gte: 2\n']);
  assert.equal(top.correlations[0].generate, true);
  assert.equal(generatesAlerts(top, 'r'), true);
  const inner = compile(['title: G\ncorrelation:\n  generate: true\n  type: event_count\n  rules: [r]\n  timespan: 1m\n  condition:\n    gte: 2\n']);
  assert.equal(generatesAlerts(inner, 'r'), true);
});

const COUNT3 = 'title: Three\nname: three\ncorrelation:\n  type: event_count\n  rules: [r]\n  group-by: [host]\n  timespan: 1m\n  condition:\n    gte: 3\n';

test('threshold and window ends: gte fires at the threshold, gt one later; 60s apart is inside a 1m window, 61s is not', () => {
  const set = compile([COUNT3]);
  const at = (...times: number[]): RuleMatch[] => times.map((t) => m('r', t, { host: 'h' }));
  assert.deepEqual(run(set, at(0, S, 2 * S)).firings.map((f) => f.windowEnd), [T0 + 2 * S]);
  const gt = compile([COUNT3.replace('gte: 3', 'gt: 3')]);
  assert.deepEqual(run(gt, at(0, S, 2 * S)).firings, []);
  assert.deepEqual(run(gt, at(0, S, 2 * S, 3 * S)).firings.map((f) => f.value), [4]);
  assert.equal(run(set, at(0, 30 * S, 60 * S)).firings.length, 1, 'both ends inclusive');
  assert.equal(run(set, at(0, 30 * S, 61 * S)).firings.length, 0, 'one second outside');
  // The window slides: 0 leaves when 61 arrives, 30/61/62 fire.
  assert.deepEqual(run(set, at(0, 30 * S, 61 * S, 62 * S)).firings.map((f) => [f.windowStart - T0, f.windowEnd - T0]), [[30 * S, 62 * S]]);
});

test('nothing fires twice for one window: after a firing the group starts afresh after the firing event', () => {
  const set = compile([COUNT3]);
  const six = Array.from({ length: 7 }, (_, i) => m('r', i * S, { host: 'h' }));
  const { firings, state } = run(set, six);
  assert.deepEqual(firings.map((f) => f.eventIds), [six.slice(0, 3).map((e) => e.eventId), six.slice(3, 6).map((e) => e.eventId)]);
  assert.equal(state.correlations[0].firings, 2);
});

test('a counting condition that one input satisfies is compiled with a warning (it fires at every group\'s first input)', () => {
  const { set, warnings } = compileCorrelations([rule(COUNT3.replace('gte: 3', 'lt: 5')), rule(COUNT3)]);
  assert.equal(set.correlations.length, 2);
  assert.deepEqual(warnings, [
    "correlation 'Three': its condition holds for a single input, so it fires at the first input of every group (conditions are checked at each input, not at the end of the timespan)",
  ]);
  assert.deepEqual(run(set, [m('r', 0, { host: 'h' })]).firings.map((f) => f.value), [1]);
});

test('range conditions combine two comparisons; eq and neq', () => {
  const range = compile([COUNT3.replace('gte: 3', 'gt: 1\n    lte: 2')]);
  assert.deepEqual(run(range, [m('r', 0, { host: 'h' }), m('r', S, { host: 'h' })]).firings.map((f) => f.value), [2]);
  const eq = compile([COUNT3.replace('gte: 3', 'eq: 2')]);
  assert.deepEqual(run(eq, [m('r', 0, { host: 'h' }), m('r', S, { host: 'h' }), m('r', 2 * S, { host: 'h' })]).firings.map((f) => f.value), [2]);
  const neq = compile([COUNT3.replace('gte: 3', 'neq: 1')]);
  assert.deepEqual(run(neq, [m('r', 0, { host: 'h' }), m('r', S, { host: 'h' })]).firings.map((f) => f.value), [2]);
});

test('out-of-order events within the lateness give the firings of the sorted stream; too-late ones are dropped, counted and warned once', () => {
  const set = compile([COUNT3], { latenessMs: 30 * S });
  const sorted = [0, 10, 20, 30, 40, 50].map((t) => m('r', t * S, { host: 'h' }));
  const shuffled = [sorted[1], sorted[0], sorted[3], sorted[2], sorted[5], sorted[4]];
  const key = (fs: Firing[]): unknown => fs.map((f) => [f.windowStart, f.windowEnd, f.eventIds]);
  assert.deepEqual(key(run(set, shuffled).firings), key(run(set, sorted).firings));
  // 5s is 45s behind the newest (50s): beyond the 30s lateness.
  const late = run(set, [m('r', 0, { host: 'h' }), m('r', 50 * S, { host: 'h' }), m('r', 5 * S, { host: 'h' }), m('r', 6 * S, { host: 'h' }), m('r', 55 * S, { host: 'h' })]);
  assert.equal(late.state.droppedLate, 2);
  assert.equal(late.warnings.filter((w) => /dropped/.test(w)).length, 1);
  assert.deepEqual(late.firings.map((f) => f.value), [3]);
  assert.deepEqual(late.firings[0].windowStart, T0 + 0);
});

test('inputs wait for the lateness bound; advance (a clock) and flush evaluate them', () => {
  const set = compile([COUNT3], { latenessMs: M });
  const state = newState(set);
  for (const t of [0, S, 2 * S]) assert.deepEqual(feed(set, state, m('r', t, { host: 'h' })).firings, []);
  assert.deepEqual(advance(set, state, T0 + 62 * S - 1).firings, [], 'the third input is not yet past the bound');
  assert.equal(advance(set, state, T0 + 62 * S + 1).firings.length, 1);
  assert.deepEqual(flush(set, state).firings, []);
});

test('event clocks are per group: two hosts interleaved out of time order with lateness 0 both fire, as if sorted', () => {
  const set = compile([COUNT3]);
  const a = [0, 10, 20].map((t) => m('r', 2 * 60 * M + t * S, { host: 'a' }));
  const b = [0, 10, 20].map((t) => m('r', t * S, { host: 'b' }));
  const interleaved = run(set, [a[0], b[0], a[1], b[1], a[2], b[2]]);
  const sorted = run(set, [...b, ...a]);
  const key = (fs: Firing[]) => fs.map((f) => [f.groupKey, f.windowStart, f.windowEnd, f.eventIds]).sort((x, y) => (x[2] as number) - (y[2] as number));
  assert.equal(interleaved.firings.length, 2);
  assert.deepEqual(key(interleaved.firings), key(sorted.firings));
  assert.equal(interleaved.state.droppedLate, 0);
});

test("a group catching up after another group's newer events fires; an event behind its own group's newest is dropped and counted", () => {
  const set = compile([COUNT3]);
  const state = newState(set);
  for (const t of [60 * M, 60 * M + S]) assert.deepEqual(feed(set, state, m('r', t, { host: 'live' })).firings, []);
  assert.deepEqual(feed(set, state, m('r', 0, { host: 'back' })).firings, []);
  assert.deepEqual(feed(set, state, m('r', 10 * S, { host: 'back' })).firings, []);
  const late = feed(set, state, m('r', 5 * S, { host: 'back' }));
  assert.equal(state.droppedLate, 1);
  assert.equal(late.warnings.filter((w) => /group's newest event time/.test(w)).length, 1);
  assert.deepEqual(feed(set, state, m('r', 20 * S, { host: 'back' })).firings, []);
  const fired = settle(set, state).firings;
  assert.deepEqual(fired.map((f) => [f.groupKey, f.windowStart - T0, f.windowEnd - T0, f.inputCount]), [[{ host: 'back' }, 0, 20 * S, 3]]);
});

test('with a lateness, waiting inputs are due the lateness after they arrived (wall clock), whatever their group\'s clock', () => {
  const set = compile([COUNT3], { latenessMs: 2 * S });
  const state = newState(set);
  const arrived = 1_000_000;
  for (const t of [0, S, 2 * S]) assert.deepEqual(feed(set, state, m('r', t, { host: 'h' }), arrived).firings, []);
  assert.deepEqual(settle(set, state).firings, [], 'the clock is not past them');
  assert.equal(anyDue(set, state, arrived + 2 * S - 1), false);
  assert.deepEqual(due(set, state, arrived + 2 * S - 1).firings, []);
  assert.equal(anyDue(set, state, arrived + 2 * S), true);
  const fired = due(set, state, arrived + 2 * S).firings;
  assert.deepEqual(fired.map((f) => [f.windowStart - T0, f.windowEnd - T0]), [[0, 2 * S]]);
  assert.equal(state.pending.length, 0);
  // Evaluated: an input older than the last one evaluated in its group is late now, even within the lateness.
  feed(set, state, m('r', 2 * S - 1, { host: 'h' }), arrived + 3 * S);
  assert.equal(state.droppedLate, 1);
});

test('a due input takes the older waiting inputs of its group with it, in time order; other groups wait on', () => {
  const set = compile([COUNT3], { latenessMs: 10 * S });
  const state = newState(set);
  feed(set, state, m('r', 5 * S, { host: 'h' }), 0);
  feed(set, state, m('r', 6 * S, { host: 'other' }), 500);
  feed(set, state, m('r', 4 * S, { host: 'h' }), 1000);
  feed(set, state, m('r', 3 * S, { host: 'h' }), 2000);
  // Only h's input at 5 s arrived 10 s ago; h's older inputs (arrived later) are evaluated before it.
  const fired = due(set, state, 10 * S).firings;
  assert.deepEqual(fired.map((f) => [f.groupKey, f.windowStart - T0, f.windowEnd - T0]), [[{ host: 'h' }, 3 * S, 5 * S]]);
  assert.deepEqual(state.pending.map((p) => p.f), [{ host: 'other' }]);
});

test('a state saved with one clock per correlation (version 1) is restored with clocks per group', () => {
  const set = compile([COUNT3], { latenessMs: M });
  const state = newState(set);
  for (const t of [0, 10]) feed(set, state, m('r', t * S, { host: 'h' }), 0);
  const { clocks: _clocks, version: _version, ...rest } = state;
  const v1 = JSON.stringify({ ...rest, version: 1, floor: null, pending: state.pending.map(({ k: _k, m: _m, a: _a, ...p }) => p) });
  const back = restore(set, v1, 5000);
  assert.equal(back.version, 2);
  assert.deepEqual(back.clocks, { [clockIdOf({ host: 'h' })]: { t: T0 + 10 * S, floor: null } });
  assert.deepEqual(back.pending.map((p) => [p.t - T0, p.k, p.m, p.a]), [[0, clockIdOf({ host: 'h' }), [0], 5000], [10 * S, clockIdOf({ host: 'h' }), [0], 5000]]);
  assert.equal(run(set, [m('r', 20 * S, { host: 'h' })], back).firings.length, 1);
});

test("a chain over other group-by fields: inner firings enter the outer group's own clock, late ones dropped", () => {
  const inner = 'title: Pair\nname: pair\ncorrelation:\n  type: event_count\n  rules: [r]\n  group-by: [host, user]\n  timespan: 1m\n  condition:\n    gte: 2\n';
  const outer = 'title: Users\nname: users\ncorrelation:\n  type: event_count\n  rules: [pair]\n  group-by: [host]\n  timespan: 10m\n  condition:\n    gte: 2\n';
  const set = compile([outer, inner]);
  const state = newState(set);
  const fired: Firing[] = [];
  const at = (t: number, user: string) => fired.push(...feed(set, state, m('r', t * S, { host: 'h', user })).firings, ...settle(set, state).firings);
  // bob's pair completes at 100 s, then alice's (an older user's events arriving later) at 20 s: the
  // outer group h has seen 100 s, so alice's firing is late for it and dropped.
  at(90, 'bob');
  at(100, 'bob');
  at(10, 'alice');
  at(20, 'alice');
  assert.deepEqual(fired.map((f) => [f.correlation.name, f.groupKey, f.windowEnd - T0]), [
    ['pair', { host: 'h', user: 'bob' }, 100 * S],
    ['pair', { host: 'h', user: 'alice' }, 20 * S],
  ]);
  assert.equal(state.droppedLate, 1);
  // carol's pair after bob's: the outer group fires.
  at(110, 'carol');
  at(120, 'carol');
  assert.deepEqual(fired.slice(2).map((f) => [f.correlation.name, f.groupKey, f.windowStart - T0, f.windowEnd - T0]), [
    ['pair', { host: 'h', user: 'carol' }, 110 * S, 120 * S],
    ['users', { host: 'h' }, 100 * S, 120 * S],
  ]);
});

test('a missing group-by field is the value null: such events form their own group', () => {
  const set = compile([COUNT3.replace('[host]', '[host, user]')]);
  const { firings } = run(set, [m('r', 0, { host: 'h' }), m('r', S, { host: 'h', user: null }), m('r', 2 * S, { host: 'h' }), m('r', 3 * S, { host: 'h', user: 'bob' })]);
  assert.deepEqual(firings.map((f) => f.groupKey), [{ host: 'h', user: null }]);
  // Values compare as text: 443 and "443" are one group.
  const ports = compile([COUNT3.replace('[host]', '[port]')]);
  assert.equal(run(ports, [m('r', 0, { port: 443 }), m('r', S, { port: '443' }), m('r', 2 * S, { port: 443 })]).firings.length, 1);
});

test('the group cap refuses new groups past it, warns once, and frees groups whose windows are over', () => {
  const set = compile([COUNT3], { maxGroups: 2 });
  const state = newState(set);
  const warnings: string[] = [];
  for (const h of ['a', 'b', 'c', 'd']) warnings.push(...feed(set, state, m('r', 0, { host: h })).warnings);
  warnings.push(...flush(set, state).warnings);
  assert.equal(state.correlations[0].groupCount, 2);
  assert.equal(state.correlations[0].refusedInputs, 2);
  assert.deepEqual(warnings, ["correlation 'Three': more than 2 groups at once; inputs of new groups are refused and counted"]);
  // Group c is refused, so its three events never fire; a and b still do.
  const r = run(set, [m('r', S, { host: 'c' }), m('r', 2 * S, { host: 'a' }), m('r', 3 * S, { host: 'a' }), m('r', 4 * S, { host: 'c' })], state);
  assert.deepEqual(r.firings.map((f) => f.groupKey), [{ host: 'a' }]);
  // Two minutes later b's window is over: a new group takes its place.
  const later = run(set, [2, 3, 4].map((i) => m('r', 2 * M + i * S, { host: 'e' })), state);
  assert.deepEqual(later.firings.map((f) => f.groupKey), [{ host: 'e' }]);
});

test('at the group cap, a sweep that frees every group does not stop the later ones', () => {
  const set = compile([COUNT3], { maxGroups: 2 });
  // a and b are over when c arrives (every group freed); c and d are over when e arrives.
  const r = run(set, [m('r', 0, { host: 'a' }), m('r', 0, { host: 'b' }), m('r', 2 * M, { host: 'c' }), m('r', 2 * M, { host: 'd' }), m('r', 4 * M, { host: 'e' })]);
  assert.equal(r.state.correlations[0].refusedInputs, 0);
  assert.deepEqual(Object.values(r.state.correlations[0].groups).map((g) => g.key), [{ host: 'e' }]);
});

test('a window holds at most maxInputsPerGroup inputs (the oldest go), and a firing at most maxEventIds ids', () => {
  const set = compile([COUNT3.replace('gte: 3', 'gte: 5')], { maxInputsPerGroup: 4, maxEventIds: 2 });
  const r = run(set, Array.from({ length: 10 }, (_, i) => m('r', i * S, { host: 'h' })));
  assert.deepEqual(r.firings, []);
  assert.equal(r.state.correlations[0].overflowInputs, 6);
  assert.equal(r.warnings.length, 1);
  const ids = compile([COUNT3], { maxEventIds: 2 });
  const f = run(ids, [0, 1, 2].map((i) => m('r', i * S, { host: 'h' }))).firings[0];
  assert.equal(f.eventIds.length, 2);
  assert.equal(f.inputCount, 3);
});

test('a restart in the middle of a window (serialize, restore, continue) gives the same firings', () => {
  const set = compile([COUNT3, readFileSync(join(EXAMPLES, 'temporal.yml'), 'utf8')], { latenessMs: 20 * S });
  const stream: RuleMatch[] = [];
  for (let i = 0; i < 40; i++) {
    stream.push(m('r', i * 7 * S - (i % 3) * 5 * S, { host: `h${i % 2}` }));
    stream.push(m(['recon_cmd_a', 'recon_cmd_b', 'recon_cmd_c'][i % 3], i * 7 * S, { ComputerName: 'pc', User: 'u' }));
  }
  const straight = run(set, stream).firings;
  assert.ok(straight.length >= 10);
  for (const cut of [1, 17, 40, 63]) {
    const first = run(set, [], newState(set)).state;
    const part: Firing[] = [];
    for (const x of stream.slice(0, cut)) part.push(...feed(set, first, x).firings);
    // Through text, as a database would keep it.
    const text = serialize(first);
    const again = restore(set, JSON.parse(JSON.stringify(text)) as string);
    assert.deepEqual(again, first);
    const rest = run(set, stream.slice(cut), again).firings;
    assert.deepEqual([...part, ...rest], straight, `cut at ${cut}`);
  }
  // A state restores only into the same rules and options.
  const other = compile([COUNT3], { latenessMs: 20 * S });
  assert.throws(() => restore(other, serialize(newState(set))), StateMismatchError);
  assert.throws(() => restore(set, '{"version":2}'), StateMismatchError);
  assert.throws(() => restore(set, 'not json'), StateMismatchError);
});

test('correlations that cannot be evaluated are rejected with a reason, and so are those referencing them', () => {
  const texts = [
    'title: Cycle A\nname: ca\ncorrelation:\n  type: event_count\n  rules: [cb]\n  timespan: 1m\n  condition:\n    gte: 1\n',
    'title: Cycle B\nname: cb\ncorrelation:\n  type: event_count\n  rules: [ca]\n  timespan: 1m\n  condition:\n    gte: 1\n',
    'title: Bad key\nname: bad\ncorrelation:\n  type: event_count\n  rules: [r]\n  timespan: 1m\n  condition:\n    gte: 1\n    over: 2\n',
    'title: On bad\ncorrelation:\n  type: temporal\n  rules: [bad, r]\n  timespan: 1m\n',
    'title: Text threshold\ncorrelation:\n  type: event_count\n  rules: [r]\n  timespan: 1m\n  condition:\n    gte: many\n',
    'title: Expression\ncorrelation:\n  type: temporal\n  rules: [a, b]\n  timespan: 1m\n  condition: a and not b\n',
    'title: Proto\ncorrelation:\n  type: event_count\n  rules: [r]\n  group-by: [__proto__]\n  timespan: 1m\n  condition:\n    gte: 1\n',
    COUNT3,
  ];
  const { set, rejected } = compileCorrelations(texts.map(rule));
  assert.deepEqual(set.correlations.map((c) => c.title), ['Three']);
  assert.deepEqual(
    rejected.map((r) => [r.input, r.title]),
    [
      [0, 'Cycle A'],
      [1, 'Cycle B'],
      [2, 'Bad key'],
      [3, 'On bad'],
      [4, 'Text threshold'],
      [5, 'Expression'],
      [6, 'Proto'],
    ],
  );
  assert.match(rejected[0].reason, /cycle/);
  assert.match(rejected[2].reason, /unknown key 'over'/);
  assert.match(rejected[3].reason, /references 'Bad key', which is rejected/);
  assert.match(rejected[4].reason, /gte must be a number/);
  assert.match(rejected[5].reason, /not supported/);
  assert.match(rejected[6].reason, /'__proto__' is not a usable field name/);
});

test('past maxPending the oldest waiting inputs are evaluated early, and nothing older is accepted afterwards', () => {
  const set = compile([COUNT3], { latenessMs: 60 * M, maxPending: 2 });
  const state = newState(set);
  const fired: Firing[] = [];
  for (const t of [10, 20, 30]) fired.push(...feed(set, state, m('r', t * S, { host: 'h' })).firings);
  compactWaiting(state);
  assert.equal(state.pending.length, 2);
  assert.equal(state.clocks[clockIdOf({ host: 'h' })].floor, T0 + 10 * S);
  // Within the lateness, but older than what was evaluated: dropped.
  assert.deepEqual(feed(set, state, m('r', 5 * S, { host: 'h' })).firings, []);
  assert.equal(state.droppedLate, 1);
  fired.push(...flush(set, state).firings);
  assert.deepEqual(fired.map((f) => [f.windowStart - T0, f.windowEnd - T0]), [[10 * S, 30 * S]]);
});

test('matches of rules no correlation references are ignored: they neither wait nor move the clock', () => {
  const set = compile([COUNT3]);
  const state = newState(set);
  assert.deepEqual(feed(set, state, m('unrelated', 10 * M, { host: 'h' })), { firings: [], warnings: [] });
  assert.equal(state.clock, null);
  assert.equal(run(set, [0, S, 2 * S].map((t) => m('r', t, { host: 'h' })), state).firings.length, 1);
});

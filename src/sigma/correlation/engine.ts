// The correlation engine: state machines over rule matches, one per correlation and group, with one
// event clock per group. Semantics (docs/correlation.md says the same for users):
// - Event clocks per group. A group's clock is the newest event time among its inputs; groups of
//   correlations that group by the same fields share it (clockIdOf). An input is accepted while its time
//   is at least (its group's clock − lateness) and not older than the last input evaluated in that
//   group; older ones are dropped and counted. Other groups' times do not matter: a group whose events
//   arrive after another group's newer ones (a shipper catching up) is evaluated as if sorted.
//   Accepted inputs wait until their group's clock is more than `lateness` past them, or until
//   `lateness` of wall-clock time has passed since they arrived (`due`), then are evaluated in time
//   order within the group, so the outcome does not depend on the arrival order of accepted inputs.
//   `advance` moves every clock without an input; `flush` evaluates everything waiting (the end of a
//   finite input).
// - Windows slide. When an input of group G at time t is evaluated, G's window is G's inputs with time
//   in [t − timespan, t] (both ends inclusive) that have not been used by an earlier firing of G. The
//   condition is checked on that window at every input; the first time it holds the correlation fires.
// - No re-firing. After a firing the group starts afresh: every input up to and including the one that
//   fired is consumed, so no input contributes to two firings of one correlation and one burst raises
//   one firing, not one per further event.
// - Groups. The group is the tuple of group-by values (aliases resolved per referenced rule); a missing
//   field is the value null, a group of its own. value_* inputs without a usable value are ignored.
// - Chains. A firing is an input of the correlations that reference this correlation (by id or name),
//   at time windowEnd, with the group key as its fields; it is fed to them after the input that caused
//   it has been fed to every correlation it concerns.
// - Bounds. maxGroups live groups per correlation (new ones refused past it, after dropping the groups
//   whose newest input is older than the newest time seen overall minus timespan and lateness),
//   maxInputsPerGroup inputs per window (oldest dropped), maxPending inputs waiting for the lateness
//   bound (oldest evaluated early; nothing older is accepted in their group afterwards). `forgetStale`
//   forgets the clocks of groups silent for longer than the timespan and lateness behind the newest
//   time overall, with nothing waiting; an input older than its group window's newest input is still
//   dropped.
// The state is a plain JSON object, changed in place by feed/advance/flush. It may hold only part of the
// windows and waiting inputs (a service storing them per group, state-parts.ts): those a batch can reach
// (reach.ts); `groupCount` and `pendingStored` count the rest, and a sweep drops only groups held.
import { push, size, trim, windowValue } from './window.js';
import { holds } from './condition.js';
import { refKey } from './compile.js';
import { groupOf, lookup, neededFields, valueOf } from './fields.js';
import type { CorrelationSet, CorrelationState, EngineState, FeedResult, Firing, GroupClock, JsonValue, PendingInput, RuleMatch, Target, WindowEntry } from './types.js';

export function newState(set: CorrelationSet): EngineState {
  return {
    version: 2,
    fingerprint: set.fingerprint,
    clock: null,
    clocks: {},
    seq: 0,
    pending: [],
    droppedLate: 0,
    lateWarned: false,
    correlations: set.correlations.map(
      (): CorrelationState => ({ groups: {}, groupCount: 0, refusedInputs: 0, capWarned: false, overflowInputs: 0, overflowWarned: false, firings: 0 }),
    ),
  };
}

export function refsOf(ruleRef: string | readonly string[]): string[] {
  return typeof ruleRef === 'string' ? [ruleRef] : [...ruleRef];
}

/** The correlations (and their `rules` positions) an input of these references feeds. */
export function targetsOf(set: CorrelationSet, refs: readonly string[]): Target[] {
  const out: Target[] = [];
  for (const r of refs) {
    for (const t of set.targets.get(refKey(r)) ?? []) {
      const have = out.find((x) => x.correlation === t.correlation);
      if (have === undefined) out.push({ correlation: t.correlation, entries: [...t.entries] });
      else for (const e of t.entries) if (!have.entries.includes(e)) have.entries.push(e);
    }
  }
  return out.sort((a, b) => a.correlation - b.correlation);
}

/** The identity of a group's event clock: its group-by names and values (as text, like group ids). */
export function clockIdOf(key: Readonly<Record<string, JsonValue>>): string {
  return JSON.stringify(Object.keys(key).sort().map((name) => [name, key[name] === null ? null : String(key[name])]));
}

/** The event clocks an input waits on, each with the correlations (positions) it feeds there. */
export function clocksOf(set: CorrelationSet, refs: readonly string[], f: Readonly<Record<string, JsonValue>>, targets: readonly Target[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const t of targets) {
    const k = clockIdOf(groupOf(set.correlations[t.correlation], f, t.entries, refs).key);
    const m = out.get(k);
    if (m === undefined) out.set(k, [t.correlation]);
    else m.push(t.correlation);
  }
  return out;
}

function before(a: PendingInput, b: PendingInput): boolean {
  return a.t < b.t || (a.t === b.t && a.s < b.s);
}

/** The position of `p` in a list in (t, s) order, or where it would go. */
function lowerBound(list: PendingInput[], p: PendingInput): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (before(list[mid], p)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function insertSorted(list: PendingInput[], p: PendingInput): number {
  const at = lowerBound(list, p);
  list.splice(at, 0, p);
  return at;
}

function removeSorted(list: PendingInput[], p: PendingInput): void {
  const lo = lowerBound(list, p);
  if (list[lo] === p) {
    if (lo === 0) list.shift();
    else list.splice(lo, 1);
  } else {
    const i = list.indexOf(p);
    if (i >= 0) list.splice(i, 1);
  }
}

/**
 * The waiting inputs by clock, each list in (t, s) order: derived from `pending`, rebuilt after a restore.
 * `pending` itself drops the inputs taken in batches (they stay, marked taken, until compactWaiting):
 * removing each from a long list would cost its length every time.
 */
const byClock = new WeakMap<PendingInput[], Map<string, PendingInput[]>>();

function waitingByClock(state: EngineState): Map<string, PendingInput[]> {
  let index = byClock.get(state.pending);
  if (index === undefined) {
    index = new Map();
    for (const p of state.pending) {
      if (taken.has(p)) continue;
      const list = index.get(p.k!);
      if (list === undefined) index.set(p.k!, [p]);
      else list.push(p);
    }
    byClock.set(state.pending, index);
  }
  return index;
}

function addWaiting(state: EngineState, p: PendingInput): void {
  const index = waitingByClock(state);
  const at = insertSorted(state.pending, p);
  if (at < (frontHint.get(state.pending) ?? 0)) frontHint.set(state.pending, at);
  const list = index.get(p.k!);
  if (list === undefined) index.set(p.k!, [p]);
  else insertSorted(list, p);
}

/** Waiting inputs taken out of a state (to be evaluated). */
const taken = new WeakSet<PendingInput>();
/** How many taken inputs a `pending` list still holds, and how many of its first ones are taken. */
const deadIn = new WeakMap<PendingInput[], number>();
const frontHint = new WeakMap<PendingInput[], number>();

/** The oldest waiting input held (not taken), or undefined. */
function firstWaiting(state: EngineState): PendingInput | undefined {
  const pending = state.pending;
  let i = frontHint.get(pending) ?? 0;
  while (i < pending.length && taken.has(pending[i])) i++;
  frontHint.set(pending, i);
  return pending[i];
}

function takeWaiting(state: EngineState, p: PendingInput): void {
  const index = waitingByClock(state);
  taken.add(p);
  const pending = state.pending;
  const dead = (deadIn.get(pending) ?? 0) + 1;
  deadIn.set(pending, dead);
  if (dead > 32 && dead * 2 > pending.length) compactWaiting(state);
  const list = index.get(p.k!);
  if (list !== undefined) {
    removeSorted(list, p);
    if (list.length === 0) index.delete(p.k!);
  }
}

/** Drop the taken inputs still in `state.pending` (before it is read from outside the engine). */
export function compactWaiting(state: EngineState): void {
  const pending = state.pending;
  if ((deadIn.get(pending) ?? 0) === 0) return;
  let j = 0;
  for (const p of pending) if (!taken.has(p)) pending[j++] = p;
  pending.length = j;
  deadIn.set(pending, 0);
  frontHint.set(pending, 0);
}

/** The waiting inputs held, not counting those taken. */
function waitingHeld(state: EngineState): number {
  return state.pending.length - (deadIn.get(state.pending) ?? 0);
}

function lateFor(set: CorrelationSet, gc: GroupClock | undefined, t: number): boolean {
  if (gc === undefined) return false;
  return t < gc.t - set.options.latenessMs || (gc.floor !== null && t < gc.floor);
}

function countLate(set: CorrelationSet, state: EngineState, result: FeedResult): void {
  state.droppedLate++;
  if (!state.lateWarned) {
    state.lateWarned = true;
    result.warnings.push(`events older than their group's newest event time minus the allowed lateness (${set.options.latenessMs} ms) are dropped and counted`);
  }
}

/**
 * Feed one rule match that arrived at `now` (wall clock, ms). Returns the firings it released (of
 * inputs of its groups now past the lateness bound).
 */
export function feed(set: CorrelationSet, state: EngineState, match: RuleMatch, now: number = Date.now()): FeedResult {
  const result: FeedResult = { firings: [], warnings: [] };
  if (typeof match.time !== 'number' || !Number.isFinite(match.time)) throw new TypeError('a rule match needs a finite time (milliseconds since the epoch)');
  const refs = refsOf(match.ruleRef);
  const targets = targetsOf(set, refs);
  if (targets.length === 0) return result;
  const input = waitingInput(set, match, targets, 0);
  let late = false;
  for (const [k, m] of clocksOf(set, refs, input.f, targets)) {
    if (lateFor(set, state.clocks[k], match.time)) late = true;
    else enter(set, state, { t: input.t, s: state.seq++, refs: input.refs, id: input.id, f: input.f, k, m, a: now }, result);
  }
  if (late) countLate(set, state, result);
  state.clock = state.clock === null ? match.time : Math.max(state.clock, match.time);
  // Too many waiting: the oldest are evaluated now (and nothing older is accepted in their group from then on).
  while (waitingHeld(state) + (state.pendingStored ?? 0) > set.options.maxPending) {
    const oldest = firstWaiting(state);
    if (oldest === undefined) throw new Error('the oldest waiting input is not held in the state');
    takeWaiting(state, oldest);
    evaluate(set, state, oldest, result);
  }
  return result;
}

/** An accepted input waits on its clock, which it moves; what the clock passes is evaluated. */
function enter(set: CorrelationSet, state: EngineState, p: PendingInput, result: FeedResult): void {
  const k = p.k!;
  let gc = state.clocks[k];
  if (gc === undefined) {
    gc = { t: p.t, floor: null };
    state.clocks[k] = gc;
  } else gc.t = Math.max(gc.t, p.t);
  addWaiting(state, p);
  releaseClock(set, state, k, gc.t - set.options.latenessMs, false, result);
}

/** A match as it waits for the lateness bound: only the fields its correlations read are kept. */
export function waitingInput(set: CorrelationSet, match: RuleMatch, targets: readonly Target[], seq: number): PendingInput {
  const refs = refsOf(match.ruleRef);
  const f: Record<string, JsonValue> = {};
  for (const t of targets) {
    for (const name of neededFields(set.correlations[t.correlation], t.entries, refs)) {
      if (Object.hasOwn(f, name)) continue;
      const v = lookup(match.fields, name);
      if (v !== undefined) f[name] = v;
    }
  }
  return { t: match.time, s: seq, refs, id: String(match.eventId), f };
}

/** Move every event clock to `time` (if later) without an input, evaluating what is past the lateness. */
export function advance(set: CorrelationSet, state: EngineState, time: number): FeedResult {
  const result: FeedResult = { firings: [], warnings: [] };
  if (!Number.isFinite(time)) throw new TypeError('advance needs a finite time');
  state.clock = state.clock === null ? time : Math.max(state.clock, time);
  for (const gc of Object.values(state.clocks)) gc.t = Math.max(gc.t, time);
  releaseWhere(set, state, (p) => p.t < state.clocks[p.k!].t - set.options.latenessMs, result);
  return result;
}

/** Evaluate every waiting input (the end of the input). Later inputs older than those are dropped. */
export function flush(set: CorrelationSet, state: EngineState): FeedResult {
  const result: FeedResult = { firings: [], warnings: [] };
  for (let p = firstWaiting(state); p !== undefined; p = firstWaiting(state)) {
    takeWaiting(state, p);
    evaluate(set, state, p, result);
  }
  compactWaiting(state);
  return result;
}

/**
 * Evaluate the waiting inputs at or before their group's newest event time minus the lateness, without
 * moving any clock: a service settles after each batch, so a match at its group's newest time is
 * evaluated at once, while inputs of that same time arriving later are still accepted (evaluated after it).
 */
export function settle(set: CorrelationSet, state: EngineState): FeedResult {
  const result: FeedResult = { firings: [], warnings: [] };
  releaseWhere(set, state, (p) => p.t <= state.clocks[p.k!].t - set.options.latenessMs, result);
  return result;
}

/**
 * Evaluate the waiting inputs that arrived at least the lateness ago (wall clock `now`, ms), with the
 * older inputs of their groups: a burst followed by silence is evaluated within the lateness of its
 * arrival, not only when its group's clock moves on.
 */
export function due(set: CorrelationSet, state: EngineState, now: number): FeedResult {
  const result: FeedResult = { firings: [], warnings: [] };
  releaseWhere(set, state, (p) => (p.a ?? -Infinity) + set.options.latenessMs <= now, result);
  return result;
}

/** Whether some waiting input held is due at `now` (cheap check before `due`). */
export function anyDue(set: CorrelationSet, state: EngineState, now: number): boolean {
  return state.pending.some((p) => !taken.has(p) && (p.a ?? -Infinity) + set.options.latenessMs <= now);
}

/** Evaluate, in (t, s) order, each group's waiting inputs up to its last one `pick` selects, until none
 * is selected (a firing entering another group's clock may be selected in turn). */
function releaseWhere(set: CorrelationSet, state: EngineState, pick: (p: PendingInput) => boolean, result: FeedResult): void {
  while (releaseOnce(set, state, pick, result) > 0);
}

function releaseOnce(set: CorrelationSet, state: EngineState, pick: (p: PendingInput) => boolean, result: FeedResult): number {
  compactWaiting(state);
  const last = new Map<string, PendingInput>();
  for (const p of state.pending) if (pick(p)) last.set(p.k!, p);
  if (last.size === 0) return 0;
  const ready = state.pending.filter((p) => {
    const upTo = last.get(p.k!);
    return upTo !== undefined && !before(upTo, p);
  });
  for (const p of ready) {
    // An earlier evaluation may have released it already (a chained firing moving its clock).
    if (taken.has(p)) continue;
    takeWaiting(state, p);
    evaluate(set, state, p, result);
  }
  compactWaiting(state);
  return ready.length;
}

/** Evaluate the waiting inputs of one clock before `bound` (or at it, inclusive), in order. */
function releaseClock(set: CorrelationSet, state: EngineState, k: string, bound: number, inclusive: boolean, result: FeedResult): void {
  const index = waitingByClock(state);
  for (;;) {
    const list = index.get(k);
    const p = list?.[0];
    if (p === undefined || !(p.t < bound || (inclusive && p.t === bound))) return;
    takeWaiting(state, p);
    evaluate(set, state, p, result);
  }
}

interface Work {
  correlation: number;
  entries: number[];
  refs: string[];
  t: number;
  s: number;
  f: Record<string, JsonValue>;
  ids: string[];
}

/** Feed one input to the correlations it waited for, then the firings to the correlations above: on
 * the same clock at once, on another clock as an input of that clock (late ones dropped). */
function evaluate(set: CorrelationSet, state: EngineState, p: PendingInput, result: FeedResult): void {
  const k = p.k!;
  let gc = state.clocks[k];
  if (gc === undefined) {
    gc = { t: p.t, floor: null };
    state.clocks[k] = gc;
  }
  gc.floor = gc.floor === null ? p.t : Math.max(gc.floor, p.t);
  const ids = p.ids ?? [p.id];
  const queue: Work[] = targetsOf(set, p.refs)
    .filter((t) => p.m === undefined || p.m.includes(t.correlation))
    .map((t) => ({ correlation: t.correlation, entries: t.entries, refs: p.refs, t: p.t, s: p.s, f: p.f, ids }));
  for (let i = 0; i < queue.length; i++) {
    const firing = step(set, state, queue[i], result);
    if (firing === null) continue;
    result.firings.push(firing);
    const c = firing.correlation;
    const refs = [c.id, c.name].filter((x): x is string => x !== null);
    const f = firing.groupKey as Record<string, JsonValue>;
    for (const t of targetsOf(set, refs)) {
      const outer = clockIdOf(groupOf(set.correlations[t.correlation], f, t.entries, refs).key);
      if (outer === k) queue.push({ correlation: t.correlation, entries: t.entries, refs, t: firing.windowEnd, s: p.s, f, ids: [...firing.eventIds] });
      else if (lateFor(set, state.clocks[outer], firing.windowEnd)) countLate(set, state, result);
      else enter(set, state, { t: firing.windowEnd, s: state.seq++, refs, id: '', ids: [...firing.eventIds], f, k: outer, m: [t.correlation], a: p.a }, result);
    }
  }
}

/**
 * Forget the clocks of groups with nothing waiting whose newest input is older than the newest time
 * seen overall minus the longest timespan and the lateness (the caller decides when: a service after
 * each batch, a scan now and then). A forgotten clock only loses its lateness bound: an input older
 * than its group window's newest input is still dropped. Returns how many were forgotten.
 */
export function forgetStale(set: CorrelationSet, state: EngineState): number {
  if (state.clock === null) return 0;
  const waiting = waitingByClock(state);
  const before = staleBefore(set, state.clock);
  let n = 0;
  for (const [k, gc] of Object.entries(state.clocks)) {
    if (gc.t < before && !waiting.has(k)) {
      delete state.clocks[k];
      n++;
    }
  }
  return n;
}

/** Clocks older than this (given the newest time overall) may be forgotten. */
export function staleBefore(set: CorrelationSet, clock: number): number {
  return clock - Math.max(0, ...set.correlations.map((c) => c.timespanMs)) - set.options.latenessMs;
}

/** One input into one correlation: window update, condition, firing. */
function step(set: CorrelationSet, state: EngineState, w: Work, result: FeedResult): Firing | null {
  const c = set.correlations[w.correlation];
  const cs = state.correlations[w.correlation];
  const v = valueOf(c, w.f, w.entries, w.refs);
  if (v === undefined) return null;
  const { key, id } = groupOf(c, w.f, w.entries, w.refs);
  const from = w.t - c.timespanMs;
  let g = Object.hasOwn(cs.groups, id) ? cs.groups[id] : undefined;
  if (g !== undefined && size(g) > 0 && w.t < g.entries[g.entries.length - 1].t) {
    // Older than the window's newest input (its group's clock was forgotten): late.
    countLate(set, state, result);
    return null;
  }
  if (g === undefined) {
    if (cs.groupCount >= set.options.maxGroups) sweep(cs, (state.clock ?? w.t) - c.timespanMs - set.options.latenessMs, w.t);
    if (cs.groupCount >= set.options.maxGroups) {
      cs.refusedInputs++;
      if (!cs.capWarned) {
        cs.capWarned = true;
        result.warnings.push(`correlation '${c.title}': more than ${set.options.maxGroups} groups at once; inputs of new groups are refused and counted`);
      }
      return null;
    }
    g = { key, entries: [], head: 0 };
    cs.groups[id] = g;
    cs.groupCount++;
    // Groups catching up may be older than those a sweep kept.
    const kept = keptSince.get(cs);
    if (kept !== undefined && w.t < kept) keptSince.set(cs, w.t);
  }
  const entry: WindowEntry = { t: w.t, s: w.s, r: w.entries, v, ids: w.ids };
  push(g, entry);
  const over = trim(g, from, set.options.maxInputsPerGroup);
  if (over > 0) {
    cs.overflowInputs += over;
    if (!cs.overflowWarned) {
      cs.overflowWarned = true;
      result.warnings.push(`correlation '${c.title}': more than ${set.options.maxInputsPerGroup} inputs in one group's window; the oldest are dropped and counted`);
    }
  }
  const value = windowValue(c, g);
  if (!holds(c.condition, value)) return null;
  // Fired: the group starts afresh.
  delete cs.groups[id];
  cs.groupCount--;
  cs.firings++;
  const ids: string[] = [];
  const seen = new Set<string>();
  for (let i = g.head; i < g.entries.length; i++) {
    for (const x of g.entries[i].ids) {
      if (ids.length >= set.options.maxEventIds) break;
      if (!seen.has(x)) {
        seen.add(x);
        ids.push(x);
      }
    }
  }
  return {
    correlation: { index: c.index, id: c.id, name: c.name, title: c.title },
    groupKey: { ...g.key },
    windowStart: g.entries[g.head].t,
    windowEnd: w.t,
    value,
    eventIds: ids,
    inputCount: size(g),
  };
}

/**
 * For each correlation state, the oldest newest-input time among the groups its last sweep kept (lowered
 * when an older group is created since): until `from` passes this time a sweep can drop nothing, and a
 * correlation at its group cap is not scanned for every refused input. Not part of the saved state (a
 * restored state sweeps once to learn it again).
 */
const keptSince = new WeakMap<CorrelationState, number>();

/** Drop the groups whose newest input is older than `from` (the newest time seen overall minus the
 * timespan and the lateness: groups that only a group catching up could still feed). `now` is the time of
 * the input sweeping (so a sweep that keeps no group does not stop the next ones). */
function sweep(cs: CorrelationState, from: number, now: number): void {
  const kept = keptSince.get(cs);
  if (kept !== undefined && from <= kept) return;
  let oldest = Infinity;
  for (const [id, g] of Object.entries(cs.groups)) {
    const newest = size(g) === 0 ? -Infinity : g.entries[g.entries.length - 1].t;
    if (newest < from) {
      delete cs.groups[id];
      cs.groupCount--;
    } else if (newest < oldest) oldest = newest;
  }
  keptSince.set(cs, Math.min(oldest, now));
}

/**
 * A state of version 1 (one event clock for the whole correlation) as a state of this version: each
 * group held gets a clock at its window's newest input, with the old state's floor (nothing older than
 * the old clock allowed was accepted then, and still is not); each waiting input waits on the clocks
 * of its groups, as if it arrived at `now`.
 */
export function upgradeState(set: CorrelationSet, old: EngineState & { floor?: number | null }, now: number): EngineState {
  const floor = old.floor ?? null;
  const clocks: Record<string, GroupClock> = {};
  const touch = (k: string, t: number) => {
    const gc = clocks[k];
    if (gc === undefined) clocks[k] = { t: Math.max(t, floor ?? t), floor };
    else gc.t = Math.max(gc.t, t);
  };
  for (const cs of old.correlations) {
    for (const g of Object.values(cs.groups)) touch(clockIdOf(g.key), g.entries.length > g.head ? g.entries[g.entries.length - 1].t : (floor ?? -Infinity));
  }
  let seq = old.seq;
  const pending: PendingInput[] = [];
  for (const p of [...old.pending].sort((a, b) => a.t - b.t || a.s - b.s)) {
    if (p.k !== undefined) {
      pending.push(p);
      continue;
    }
    for (const [k, m] of clocksOf(set, p.refs, p.f, targetsOf(set, p.refs))) {
      touch(k, p.t);
      pending.push({ ...p, s: seq++, k, m, a: now });
    }
  }
  const { floor: _floor, version: _version, ...rest } = old;
  return { ...rest, version: 2, clocks, seq, pending };
}

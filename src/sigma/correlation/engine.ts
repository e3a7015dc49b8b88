// The correlation engine: state machines over rule matches, one per correlation and group, sharing one
// event clock. Semantics (docs/correlation.md says the same for users):
// - Event time. Inputs are ordered by their own time (ties: arrival order). An input is accepted while
//   its time is at least (newest time seen − lateness); older ones are dropped and counted. Accepted
//   inputs wait until the newest time seen is more than `lateness` past them, then are evaluated in
//   time order, so the outcome does not depend on the arrival order of accepted inputs. `advance` moves
//   the clock without an input (a service's wall clock); `flush` evaluates everything waiting (the end
//   of a finite input).
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
// - Bounds. maxGroups live groups per correlation (new ones refused past it, after dropping groups whose
//   windows can no longer fire), maxInputsPerGroup inputs per window (oldest dropped), maxPending inputs
//   waiting for the lateness bound (oldest evaluated early; nothing older is accepted afterwards).
// The state is a plain JSON object, changed in place by feed/advance/flush. It may hold only part of the
// windows and waiting inputs (a service storing them per group, state-parts.ts): those a batch can reach
// (reach.ts); `groupCount` and `pendingStored` count the rest, and a sweep drops only groups held.
import { push, size, trim, windowValue } from './window.js';
import { holds } from './condition.js';
import { refKey } from './compile.js';
import { groupOf, lookup, neededFields, valueOf } from './fields.js';
import type { CorrelationSet, CorrelationState, EngineState, FeedResult, Firing, JsonValue, PendingInput, RuleMatch, Target, WindowEntry } from './types.js';

export function newState(set: CorrelationSet): EngineState {
  return {
    version: 1,
    fingerprint: set.fingerprint,
    clock: null,
    floor: null,
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

/** The lowest time still accepted. */
function acceptFrom(set: CorrelationSet, state: EngineState): number {
  const byClock = state.clock === null ? -Infinity : state.clock - set.options.latenessMs;
  return Math.max(byClock, state.floor ?? -Infinity);
}

function insertPending(pending: PendingInput[], p: PendingInput): void {
  let lo = 0;
  let hi = pending.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const q = pending[mid];
    if (q.t < p.t || (q.t === p.t && q.s < p.s)) lo = mid + 1;
    else hi = mid;
  }
  pending.splice(lo, 0, p);
}

/** Feed one rule match. Returns the firings it released (of inputs now past the lateness bound). */
export function feed(set: CorrelationSet, state: EngineState, match: RuleMatch): FeedResult {
  const result: FeedResult = { firings: [], warnings: [] };
  if (typeof match.time !== 'number' || !Number.isFinite(match.time)) throw new TypeError('a rule match needs a finite time (milliseconds since the epoch)');
  const refs = refsOf(match.ruleRef);
  const targets = targetsOf(set, refs);
  if (targets.length === 0) return result;
  if (match.time < acceptFrom(set, state)) {
    state.droppedLate++;
    if (!state.lateWarned) {
      state.lateWarned = true;
      result.warnings.push(`events older than the newest event time minus the allowed lateness (${set.options.latenessMs} ms) are dropped and counted`);
    }
    return result;
  }
  insertPending(state.pending, waitingInput(set, match, targets, state.seq++));
  state.clock = state.clock === null ? match.time : Math.max(state.clock, match.time);
  release(set, state, state.clock - set.options.latenessMs, result);
  // Too many waiting: the oldest are evaluated now (and nothing older is accepted from then on).
  while (state.pending.length + (state.pendingStored ?? 0) > set.options.maxPending) {
    const oldest = state.pending.shift();
    if (oldest === undefined) throw new Error('the oldest waiting input is not held in the state');
    evaluate(set, state, oldest, result);
  }
  return result;
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

/** Move the event clock to `time` (if later) without an input, evaluating what is past the lateness. */
export function advance(set: CorrelationSet, state: EngineState, time: number): FeedResult {
  const result: FeedResult = { firings: [], warnings: [] };
  if (!Number.isFinite(time)) throw new TypeError('advance needs a finite time');
  state.clock = state.clock === null ? time : Math.max(state.clock, time);
  release(set, state, state.clock - set.options.latenessMs, result);
  return result;
}

/** Evaluate every waiting input (the end of the input). Later inputs older than those are dropped. */
export function flush(set: CorrelationSet, state: EngineState): FeedResult {
  const result: FeedResult = { firings: [], warnings: [] };
  release(set, state, Infinity, result);
  return result;
}

/**
 * Evaluate the waiting inputs at or before the newest event time minus the lateness, without moving the
 * clock: a service settles after each batch, so a match at the newest time is evaluated at once, while
 * inputs of that same time arriving later are still accepted (evaluated after it).
 */
export function settle(set: CorrelationSet, state: EngineState): FeedResult {
  const result: FeedResult = { firings: [], warnings: [] };
  if (state.clock !== null) release(set, state, state.clock - set.options.latenessMs, result, true);
  return result;
}

function release(set: CorrelationSet, state: EngineState, bound: number, result: FeedResult, inclusive = false): void {
  let n = 0;
  while (n < state.pending.length && (state.pending[n].t < bound || (inclusive && state.pending[n].t === bound))) n++;
  if (n === 0) return;
  const ready = state.pending.splice(0, n);
  for (const p of ready) evaluate(set, state, p, result);
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

/** Feed one input to every correlation it concerns, then the firings to the correlations above. */
function evaluate(set: CorrelationSet, state: EngineState, p: PendingInput, result: FeedResult): void {
  state.floor = state.floor === null ? p.t : Math.max(state.floor, p.t);
  const queue: Work[] = targetsOf(set, p.refs).map((t) => ({ correlation: t.correlation, entries: t.entries, refs: p.refs, t: p.t, s: p.s, f: p.f, ids: [p.id] }));
  for (let i = 0; i < queue.length; i++) {
    const firing = step(set, state, queue[i], result);
    if (firing === null) continue;
    result.firings.push(firing);
    const c = firing.correlation;
    const refs = [c.id, c.name].filter((x): x is string => x !== null);
    for (const t of targetsOf(set, refs)) {
      queue.push({ correlation: t.correlation, entries: t.entries, refs, t: firing.windowEnd, s: p.s, f: firing.groupKey as Record<string, JsonValue>, ids: [...firing.eventIds] });
    }
  }
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
  if (g === undefined) {
    if (cs.groupCount >= set.options.maxGroups) sweep(cs, from, w.t);
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
 * For each correlation state, the oldest newest-input time among the groups its last sweep kept. Inputs
 * are evaluated in time order, so groups created since then are newer still: until `from` passes this
 * time a sweep can drop nothing, and a correlation at its group cap is not scanned for every refused
 * input. Not part of the saved state (a restored state sweeps once to learn it again).
 */
const keptSince = new WeakMap<CorrelationState, number>();

/** Drop the groups whose newest input is older than `from`: no later input can share a window with it.
 * `now` is the time of the input sweeping: a group created after the sweep has its newest input at or
 * after it (so a sweep that keeps no group does not stop the next ones). */
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

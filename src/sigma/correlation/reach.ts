// What a batch of inputs can reach, worked out before it is fed, so a service that stores the state in
// parts (state-parts.ts) holds only those parts while it feeds the batch: the windows an input (or the
// firing it may cause, through a chain) can step into, the event clocks it can move, and the waiting
// inputs the batch may evaluate. Promise: a feed of these inputs, then a settle and a due, never steps
// into a group of a correlation outside `windowsReached`, nor touches a clock outside `clocksReached`,
// given it holds every waiting input of those clocks, the oldest `waitingReached` counts and those due.
// The analysis may only over-approximate (an input dropped as late, a window that does not fire, still
// counts as reaching).
import { clockIdOf, clocksOf, refsOf, targetsOf, waitingInput } from './engine.js';
import { groupOf, valueOf } from './fields.js';
import type { CorrelationSet, JsonValue, PendingInput, RuleMatch } from './types.js';

/** The matches that feed the set, as they would wait (their sequence numbers are not yet known: 0). */
export function asWaiting(set: CorrelationSet, matches: readonly RuleMatch[]): PendingInput[] {
  const out: PendingInput[] = [];
  for (const m of matches) {
    const targets = targetsOf(set, refsOf(m.ruleRef));
    if (targets.length > 0) out.push(waitingInput(set, m, targets, 0));
  }
  return out;
}

/** For each correlation of the set (by position), the identities of the groups these inputs can reach. */
export function windowsReached(set: CorrelationSet, inputs: Iterable<PendingInput>): Set<string>[] {
  const out = set.correlations.map(() => new Set<string>());
  for (const p of inputs) {
    const queue = targetsOf(set, p.refs).map((t) => ({ correlation: t.correlation, entries: t.entries, refs: p.refs, f: p.f }));
    for (let i = 0; i < queue.length; i++) {
      const w = queue[i];
      const c = set.correlations[w.correlation];
      if (valueOf(c, w.f, w.entries, w.refs) === undefined) continue;
      const { key, id } = groupOf(c, w.f, w.entries, w.refs);
      out[w.correlation].add(id);
      // Were it to fire, its group key is the input of the correlations above (engine.ts, chains).
      const refs = [c.id, c.name].filter((x): x is string => x !== null);
      for (const t of targetsOf(set, refs)) queue.push({ correlation: t.correlation, entries: t.entries, refs, f: key as Record<string, JsonValue> });
    }
  }
  return out;
}

/** The event clocks these inputs (or the firings they may cause, through a chain) wait on or move. */
export function clocksReached(set: CorrelationSet, inputs: Iterable<PendingInput>): Set<string> {
  const out = new Set<string>();
  for (const p of inputs) {
    const queue = targetsOf(set, p.refs).map((t) => ({ correlation: t.correlation, entries: t.entries, refs: p.refs, f: p.f }));
    for (const k of clocksOf(set, p.refs, p.f, targetsOf(set, p.refs)).keys()) out.add(k);
    if (p.k !== undefined) out.add(p.k);
    for (let i = 0; i < queue.length; i++) {
      const w = queue[i];
      const c = set.correlations[w.correlation];
      const { key } = groupOf(c, w.f, w.entries, w.refs);
      out.add(clockIdOf(key));
      const refs = [c.id, c.name].filter((x): x is string => x !== null);
      for (const t of targetsOf(set, refs)) queue.push({ correlation: t.correlation, entries: t.entries, refs, f: key as Record<string, JsonValue> });
    }
  }
  return out;
}

export interface WaitingReach {
  /** The oldest this many waiting inputs may be evaluated (early, when too many wait). */
  oldest: number;
  /** The newest event time overall once the batch is fed. */
  clock: number | null;
}

/**
 * Besides every waiting input of the clocks a batch reaches and those due by wall clock: the oldest ones
 * that too many waiting would evaluate early, given the number waiting before the batch.
 */
export function waitingReached(set: CorrelationSet, clock: number | null, waiting: number, batch: readonly PendingInput[]): WaitingReach {
  let newest = clock;
  for (const p of batch) newest = newest === null ? p.t : Math.max(newest, p.t);
  return { oldest: Math.max(0, waiting + batch.length * Math.max(1, set.correlations.length) - set.options.maxPending), clock: newest };
}

// A group's window: its inputs in event-time order (`entries` from `head` on; the dead prefix is cut off
// in batches, so sliding costs O(1) per input) and a summary of them kept beside the state (distinct
// values, rules seen, an exact integer sum), so count-like values cost O(1) per input. The summary is
// derived: it lives in a WeakMap, not in the JSON state, and is rebuilt from the entries when missing
// (after a restore), so a restored state computes exactly what the original would have.
import { nearestRank } from './aggregate.js';
import type { CompiledCorrelation, GroupState, WindowEntry } from './types.js';

interface Summary {
  /** Inputs per value (value_count, the percentile-rank form). */
  values: Map<string | number | null, number>;
  /** Inputs per position in `rules`, and how many positions have at least one. */
  rules: number[];
  ruleKinds: number;
  /** Sum of integer values and of their magnitudes (the sum is exact while the magnitudes stay safe). */
  sum: number;
  magnitude: number;
  nonIntegers: number;
}

const summaries = new WeakMap<GroupState, Summary>();

function change(s: Summary, e: WindowEntry, by: 1 | -1): void {
  const n = (s.values.get(e.v) ?? 0) + by;
  if (n === 0) s.values.delete(e.v);
  else s.values.set(e.v, n);
  for (const r of e.r) {
    const before = s.rules[r] ?? 0;
    s.rules[r] = before + by;
    if (before === 0 && by === 1) s.ruleKinds++;
    if (before === 1 && by === -1) s.ruleKinds--;
  }
  if (typeof e.v === 'number') {
    if (Number.isInteger(e.v)) {
      s.sum += by * e.v;
      s.magnitude += by * Math.abs(e.v);
    } else s.nonIntegers += by;
  }
}

function summaryOf(g: GroupState): Summary {
  let s = summaries.get(g);
  if (s === undefined) {
    s = { values: new Map(), rules: [], ruleKinds: 0, sum: 0, magnitude: 0, nonIntegers: 0 };
    for (let i = g.head; i < g.entries.length; i++) change(s, g.entries[i], 1);
    summaries.set(g, s);
  }
  return s;
}

export function size(g: GroupState): number {
  return g.entries.length - g.head;
}

export function push(g: GroupState, e: WindowEntry): void {
  const s = summaryOf(g);
  g.entries.push(e);
  change(s, e, 1);
}

/** Drop the oldest inputs: those before `from`, then any beyond `max`. Returns how many went for `max`. */
export function trim(g: GroupState, from: number, max: number): number {
  const s = summaryOf(g);
  while (g.head < g.entries.length && g.entries[g.head].t < from) change(s, g.entries[g.head++], -1);
  let over = 0;
  while (size(g) > max) {
    change(s, g.entries[g.head++], -1);
    over++;
  }
  if (g.head > 32 && g.head * 2 > g.entries.length) {
    g.entries.splice(0, g.head);
    g.head = 0;
  }
  return over;
}

export function live(g: GroupState): WindowEntry[] {
  return g.entries.slice(g.head);
}

/** The value of the window, per correlation type (docs/correlation.md). */
export function windowValue(c: CompiledCorrelation, g: GroupState): number {
  const s = summaryOf(g);
  const n = size(g);
  switch (c.type) {
    case 'event_count':
      return n;
    case 'value_count':
      return s.values.size;
    case 'temporal':
      return s.ruleKinds;
    case 'temporal_ordered': {
      // The longest prefix of `rules` found in order (each step at a later input than the previous one).
      let k = 0;
      for (let i = g.head; i < g.entries.length && k < c.rules.length; i++) if (g.entries[i].r.includes(k)) k++;
      return k;
    }
    case 'value_sum':
    case 'value_avg': {
      let sum = s.sum;
      if (s.nonIntegers > 0 || s.magnitude > Number.MAX_SAFE_INTEGER) {
        // Not exact incrementally: added up in window order.
        sum = 0;
        for (let i = g.head; i < g.entries.length; i++) sum += g.entries[i].v as number;
      }
      return c.type === 'value_sum' ? sum : sum / n;
    }
    case 'value_percentile':
    case 'value_median': {
      if (c.percentile !== null) return nearestRank(live(g).map((e) => e.v as number), c.percentile);
      // Percentile-rank form: the share (in %) of the window's values equal to the newest input's value.
      return (100 * (s.values.get(g.entries[g.entries.length - 1].v) ?? 0)) / n;
    }
  }
}

// The value of a window, per correlation type. Recomputed from the window's inputs (in event-time order)
// each time, so the result does not depend on how the window was reached (incremental sums could drift).
import type { CompiledCorrelation, WindowEntry } from './types.js';

/** Nearest-rank percentile of numbers (p in 0..100): the smallest value with at least p% at or below it. */
export function nearestRank(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

export function windowValue(c: CompiledCorrelation, entries: readonly WindowEntry[]): number {
  switch (c.type) {
    case 'event_count':
      return entries.length;
    case 'value_count':
      return new Set(entries.map((e) => e.v)).size;
    case 'temporal': {
      const seen = new Set<number>();
      for (const e of entries) for (const r of e.r) seen.add(r);
      return seen.size;
    }
    case 'temporal_ordered': {
      // The longest prefix of `rules` found in order (each step at or after the previous one's input).
      let k = 0;
      for (const e of entries) if (k < c.rules.length && e.r.includes(k)) k++;
      return k;
    }
    case 'value_sum': {
      let sum = 0;
      for (const e of entries) sum += e.v as number;
      return sum;
    }
    case 'value_avg': {
      let sum = 0;
      for (const e of entries) sum += e.v as number;
      return sum / entries.length;
    }
    case 'value_percentile':
    case 'value_median': {
      if (c.percentile !== null) return nearestRank(entries.map((e) => e.v as number), c.percentile);
      // Percentile-rank form: the share (in %) of the window's values equal to the newest input's value.
      const last = entries[entries.length - 1].v;
      let same = 0;
      for (const e of entries) if (e.v === last) same++;
      return (100 * same) / entries.length;
    }
  }
}

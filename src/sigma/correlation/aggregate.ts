// Aggregates that need every value of a window at once.

/** Nearest-rank percentile of numbers (p in 0..100): the smallest value with at least p% at or below it. */
export function nearestRank(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

// Long loops of a rule test that must not hold the event loop: a Pacer lets other requests run once a
// slice of time has passed, and mergeRuns puts runs (each already sorted) into one sorted list by
// merging them in pairs under a pacer, so ordering half a million correlation matches never runs in
// one piece (a single sort of them held the loop for over a second).

/** Time given to the work between two turns of the event loop. */
export const SLICE_MS = 20;
/** Steps between two looks at the clock. */
const STEPS_PER_LOOK = 1024;

export class Pacer {
  private sliceStart = performance.now();
  private steps = 0;

  /** Counts a step; once the slice is spent, waits a turn of the event loop. */
  async step(): Promise<void> {
    if (++this.steps % STEPS_PER_LOOK !== 0 || performance.now() - this.sliceStart <= SLICE_MS) return;
    await new Promise((resolve) => setImmediate(resolve));
    this.sliceStart = performance.now();
  }
}

async function merge<T>(a: T[], b: T[], order: (x: T, y: T) => number, pacer: Pacer): Promise<T[]> {
  const out: T[] = new Array<T>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) {
    out[k++] = order(a[i], b[j]) <= 0 ? a[i++] : b[j++];
    await pacer.step();
  }
  while (i < a.length) out[k++] = a[i++];
  while (j < b.length) out[k++] = b[j++];
  return out;
}

/** The items of `runs` (each sorted by `order`) in one list sorted by `order`; equal items keep the order of their runs. */
export async function mergeRuns<T>(runs: T[][], order: (x: T, y: T) => number, pacer = new Pacer()): Promise<T[]> {
  let level = runs.filter((run) => run.length > 0);
  while (level.length > 1) {
    const next: T[][] = [];
    for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? await merge(level[i], level[i + 1], order, pacer) : level[i]);
    level = next;
  }
  return level[0] ?? [];
}

// Several matcher threads (matcher-thread.ts), each with a copy of every rule set, so that one index
// pattern's costly events never hold another pattern's ingest. A pattern's batches go to one thread at a
// time, its home while it has batches in flight, chosen as the thread with the fewest batches in flight
// when it has none: a pattern busy with costly events keeps to its own thread and the others' batches
// go to the rest. Within a thread, patterns take turns (matcher-worker.ts), so patterns that share one
// wait at most a turn or one event, which the per-event work budget bounds. Changes go to every thread
// in log order; a thread that is lost and started again gets the current rule sets applied anew.
import type { BatchMatches, EventBatch, StoredQuery } from '../backend.js';
import type { LiveRules, RuleChange, SetAside } from './live-rules.js';
import { ThreadRules } from './matcher-thread.js';

const changeKey = (change: Pick<RuleChange, 'index' | 'id'>) => `${change.index}\u0000${change.id}`;

export class MatcherPool implements LiveRules {
  private readonly threads: ThreadRules[];
  /** The stored queries written and not removed since the start, to bring a fresh thread up to date. */
  private readonly current = new Map<string, RuleChange>();
  /** Per percolator index with batches in flight: the thread they run on, and how many. */
  private readonly homes = new Map<string, { thread: ThreadRules; inFlight: number }>();

  constructor(size: number) {
    this.threads = Array.from({ length: Math.max(1, size) }, () => {
      const thread: ThreadRules = new ThreadRules(() => thread.apply([...this.current.values()]));
      return thread;
    });
  }

  async apply(changes: RuleChange[]): Promise<SetAside[]> {
    if (changes.length === 0) return [];
    for (const change of changes) {
      if (change.doc) this.current.set(changeKey(change), change);
      else this.current.delete(changeKey(change));
    }
    // Every thread compiles the same documents: the first one's answer stands for all.
    const [setAside] = await Promise.all(this.threads.map((thread) => thread.apply(changes)));
    return setAside;
  }

  match(index: string, batch: EventBatch): Promise<BatchMatches> {
    return this.onHome(index, (thread) => thread.match(index, batch));
  }

  explain(index: string, batch: EventBatch, hits: string[][]): Promise<BatchMatches> {
    return this.onHome(index, (thread) => thread.explain(index, batch, hits));
  }

  /** Runs a batch of `index` on its home thread (chosen now when it has none). */
  private async onHome(index: string, work: (thread: ThreadRules) => Promise<BatchMatches>): Promise<BatchMatches> {
    let home = this.homes.get(index);
    if (!home) {
      const thread = this.threads.reduce((best, t) => (t.pending < best.pending ? t : best));
      this.homes.set(index, (home = { thread, inFlight: 0 }));
    }
    home.inFlight++;
    try {
      return await work(home.thread);
    } finally {
      if (--home.inFlight === 0) this.homes.delete(index);
    }
  }

  isLive(index: string, id: string): boolean {
    return this.threads[0].isLive(index, id);
  }

  remember(_index: string, _query: StoredQuery): void {}

  async close(): Promise<void> {
    await Promise.all(this.threads.map((thread) => thread.close()));
  }
}

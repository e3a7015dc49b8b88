// One matcher thread (matcher-worker.ts) with its copy of the rule sets: compiling thousands of rules
// and matching ingested events happen there, so the event loop keeps answering requests while a batch
// of large events runs through costly rules, and matching uses another core while this thread writes to
// the database. Events cross as their JSON text. If the thread dies, waiting calls fail as a backend
// outage (503, retried by the client), a fresh thread starts, and `onRestart` has the rule sets applied
// to it again. The matcher pool (matcher-pool.ts) runs several.
import { Worker } from 'node:worker_threads';
import { BackendUnavailableError, type BatchMatches, type EventBatch, type StoredQuery } from '../backend.js';
import { workerEntry } from '../../threads/worker-entry.js';
import type { LiveRules, RuleChange, SetAside } from './live-rules.js';
import type { MatcherJob } from './matcher-worker.js';

type Reply = { id: number; result?: unknown; failure?: string };
type Waiting = { resolve(value: unknown): void; reject(error: Error): void };

export class ThreadRules implements LiveRules {
  private worker!: Worker;
  private readonly waiting = new Map<number, Waiting>();
  private readonly live = new Map<string, Set<string>>();
  private nextId = 1;
  private closed = false;
  /** Match and explain calls waiting for an answer. */
  pending = 0;
  /** The rule sets being applied to a replacement thread: batches wait for them. */
  private restoring: Promise<unknown> = Promise.resolve();

  /**
   * `onRestart` is called after a lost thread is replaced and applies everything to it again (its
   * promise settles when that is done); batches sent meanwhile wait, so none meets an empty rule set.
   */
  constructor(private readonly onRestart: () => Promise<unknown>) {
    this.start();
  }

  private start(): void {
    const entry = workerEntry(import.meta.url, 'matcher-worker');
    const worker = new Worker(entry.source, entry.options);
    this.worker = worker;
    worker.unref();
    worker.on('message', (reply: Reply) => {
      const waiting = this.waiting.get(reply.id);
      if (!waiting) return;
      this.waiting.delete(reply.id);
      if (this.waiting.size === 0) worker.unref();
      if (reply.failure !== undefined) waiting.reject(new Error(`matcher thread: ${reply.failure}`));
      else waiting.resolve(reply.result);
    });
    worker.on('error', () => {});
    worker.on('exit', () => {
      if (this.worker !== worker) return;
      const lost = [...this.waiting.values()];
      this.waiting.clear();
      this.live.clear();
      for (const waiting of lost) waiting.reject(new BackendUnavailableError());
      if (this.closed) return;
      this.start();
      this.restoring = this.onRestart().catch(() => {});
    });
  }

  private call(request: MatcherJob): Promise<unknown> {
    if (this.closed) return Promise.reject(new BackendUnavailableError());
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.ref();
      this.worker.postMessage({ ...request, id });
    });
  }

  async apply(changes: RuleChange[]): Promise<SetAside[]> {
    if (changes.length === 0) return [];
    const setAside = (await this.call({ kind: 'apply', changes })) as SetAside[];
    const refused = new Set(setAside.map((s) => `${s.index}\u0000${s.id}`));
    for (const change of changes) {
      let ids = this.live.get(change.index);
      if (!ids) this.live.set(change.index, (ids = new Set()));
      if (change.doc && !refused.has(`${change.index}\u0000${change.id}`)) ids.add(change.id);
      else ids.delete(change.id);
    }
    return setAside;
  }

  match(index: string, batch: EventBatch): Promise<BatchMatches> {
    return this.batch(index, batch, { kind: 'match', index, batch });
  }

  explain(index: string, batch: EventBatch, hits: string[][]): Promise<BatchMatches> {
    return this.batch(index, batch, { kind: 'explain', index, batch, hits });
  }

  /** Sends a batch's job (counted in `pending` from now on), once a replacement thread has its rules. */
  private async batch(index: string, batch: EventBatch, job: MatcherJob): Promise<BatchMatches> {
    this.pending++;
    try {
      await this.restoring;
      if (batch.texts.length === 0 || !this.live.get(index)?.size) return { hits: batch.texts.map(() => []), refused: [] };
      return (await this.call(job)) as BatchMatches;
    } finally {
      this.pending--;
    }
  }

  isLive(index: string, id: string): boolean {
    return this.live.get(index)?.has(id) ?? false;
  }

  /** Compiled detections cannot cross threads: the matcher thread compiles every document itself. */
  remember(_index: string, _query: StoredQuery): void {}

  async close(): Promise<void> {
    this.closed = true;
    await this.worker.terminate();
  }
}

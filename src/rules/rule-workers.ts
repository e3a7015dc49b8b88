// Rule work off the event loop: a small pool of worker threads (rule-worker.ts) runs rule checks and
// sample tests, so a costly rule never stops the service from answering other requests. Each thread has
// its own heap limit (`resourceLimits`) and each job a time budget: a job past either ends its thread
// (a fresh one starts for the next job) and answers 422 naming the budget; the process lives on. Jobs
// wait in a bounded queue (503 when it is full). Idle threads do not keep the process alive and end
// after a minute. One pool per service context, ended when the service closes.
import { Worker } from 'node:worker_threads';
import { workerEntry } from '../threads/worker-entry.js';
import type { AppContext } from '../http/context.js';
import { HttpError } from '../http/errors.js';
import type { JobResult, RuleJob, TestOutcome } from './rule-jobs.js';
import type { ImportChecked } from './import-check.js';
import type { ImportDocument } from './import-sources.js';
import type { HistoryBatchOutcome } from './history-matching.js';

/** Threads per pool (the machine's cores are shared with ingest and the database). */
const POOL_SIZE = 2;
/** Jobs waiting for a thread beyond which new jobs are refused. */
const MAX_QUEUE = 64;
const IDLE_MS = 60_000;
/** Longest a new thread may take to load before it is given up. */
const BOOT_MS = 60_000;
export const WORK_BUSY = 'Rule workers are busy: retry shortly';

/**
 * Splitting a multi-document import parses the whole upload (up to 10,000 rules: seconds of work where
 * one rule takes milliseconds), so that one job has a budget of its own, at least a minute.
 */
const SPLIT_BUDGET_MS = 60_000;
const budgetOf = (job: RuleJob, timeoutMs: number) => (job.kind === 'split' ? Math.max(timeoutMs, SPLIT_BUDGET_MS) : timeoutMs);

interface Pending {
  id: number;
  job: RuleJob;
  resolve(result: JobResult): void;
  reject(error: Error): void;
}

interface Slot {
  worker: Worker;
  ready: Promise<void>;
  current?: Pending;
  timer?: NodeJS.Timeout;
  idle?: NodeJS.Timeout;
}

/** What a job hands over to the thread rather than copying: the buffer of a page of history. */
const transferOf = (job: RuleJob): ArrayBuffer[] => (job.kind === 'history' && job.page?.buffer instanceof ArrayBuffer ? [job.page.buffer] : []);

export class RuleWorkers {
  private readonly slots = new Set<Slot>();
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly budget: { timeoutMs: number; memoryMb: number }) {}

  /** Runs a job on a worker thread; answers its result, or throws the 422/503 of a job that could not finish. */
  run(job: RuleJob): Promise<JobResult> {
    if (this.closed) return Promise.reject(new HttpError(503, WORK_BUSY, undefined, { 'Retry-After': '1' }));
    if (this.queue.length >= MAX_QUEUE) return Promise.reject(new HttpError(503, WORK_BUSY, undefined, { 'Retry-After': '1' }));
    return new Promise<JobResult>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, job, resolve, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const pending of this.queue.splice(0)) pending.reject(new HttpError(503, WORK_BUSY, undefined, { 'Retry-After': '1' }));
    await Promise.all([...this.slots].map((slot) => this.end(slot, new HttpError(503, WORK_BUSY, undefined, { 'Retry-After': '1' }))));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = [...this.slots].find((s) => s.current === undefined);
      if (!slot && this.slots.size < POOL_SIZE) slot = this.start();
      if (!slot) return;
      this.assign(slot, this.queue.shift()!);
    }
  }

  private start(): Slot {
    const entry = workerEntry(import.meta.url, 'rule-worker');
    const worker = new Worker(entry.source, {
      ...entry.options,
      resourceLimits: { maxOldGenerationSizeMb: this.budget.memoryMb, maxYoungGenerationSizeMb: Math.min(32, Math.max(4, this.budget.memoryMb / 8)), stackSizeMb: 4 },
    });
    let onReady: () => void = () => {};
    const slot: Slot = { worker, ready: new Promise<void>((resolve) => (onReady = resolve)) };
    // A thread that never gets ready (a stalled start) is ended, so waiting jobs do not wait forever.
    const boot = setTimeout(() => void this.end(slot, new HttpError(503, WORK_BUSY, undefined, { 'Retry-After': '1' })), BOOT_MS);
    boot.unref();
    worker.on('message', (message: { ready?: true; id?: number; result?: JobResult; failure?: string }) => {
      if (message.ready) {
        clearTimeout(boot);
        return onReady();
      }
      const pending = slot.current;
      if (!pending || pending.id !== message.id) return;
      this.finish(slot);
      if (message.result) pending.resolve(message.result);
      else pending.reject(new Error(message.failure ?? 'rule worker failed'));
      this.dispatch();
    });
    worker.on('error', (error: Error & { code?: string }) => {
      const outOfMemory = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
      void this.end(
        slot,
        outOfMemory
          ? new HttpError(422, `Rule work stopped: it needed more than its memory budget of ${this.budget.memoryMb} MB`)
          : new Error(`rule worker failed: ${error.message}`),
      );
    });
    worker.on('exit', () => {
      if (this.slots.has(slot)) void this.end(slot, new Error('rule worker ended unexpectedly'));
    });
    this.slots.add(slot);
    return slot;
  }

  private assign(slot: Slot, pending: Pending): void {
    slot.current = pending;
    if (slot.idle) clearTimeout(slot.idle);
    slot.worker.ref();
    void slot.ready.then(() => {
      if (slot.current !== pending) return;
      // The time budget counts from when the thread is ready, so a cold start is not charged to the job.
      const timeoutMs = budgetOf(pending.job, this.budget.timeoutMs);
      slot.timer = setTimeout(() => {
        void this.end(slot, new HttpError(422, `Rule work stopped: it ran past its time budget of ${timeoutMs / 1000} s`));
      }, timeoutMs);
      try {
        slot.worker.postMessage({ id: pending.id, job: pending.job }, transferOf(pending.job));
      } catch (error) {
        // A job that cannot be sent (not cloneable) fails alone; the thread stays for the next one.
        this.finish(slot);
        pending.reject(error instanceof Error ? error : new Error(String(error)));
        this.dispatch();
      }
    });
  }

  private finish(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = undefined;
    slot.current = undefined;
    slot.worker.unref();
    slot.idle = setTimeout(() => void this.end(slot), IDLE_MS);
    slot.idle.unref();
  }

  /** Ends a thread; its job (if any) fails with `error`, and waiting jobs move on to other threads. */
  private async end(slot: Slot, error?: Error): Promise<void> {
    if (!this.slots.delete(slot)) return;
    if (slot.timer) clearTimeout(slot.timer);
    if (slot.idle) clearTimeout(slot.idle);
    const pending = slot.current;
    slot.current = undefined;
    if (pending) pending.reject(error ?? new Error('rule worker ended'));
    await slot.worker.terminate().catch(() => undefined);
    if (!this.closed) this.dispatch();
  }
}

const pools = new WeakMap<AppContext, RuleWorkers>();

/** The rule worker pool of a service context (started on first use). */
export function ruleWorkersOf(ctx: AppContext): RuleWorkers {
  let pool = pools.get(ctx);
  if (!pool) {
    pool = new RuleWorkers(ctx.config.ruleWork);
    pools.set(ctx, pool);
  }
  return pool;
}

export async function closeRuleWorkers(ctx: AppContext): Promise<void> {
  const pool = pools.get(ctx);
  pools.delete(ctx);
  await pool?.close();
}

/** Runs a job and answers its value, throwing the HttpError a failed job stands for. */
export async function runRuleJob(ctx: AppContext, job: Extract<RuleJob, { kind: 'test' }>): Promise<TestOutcome>;
export async function runRuleJob(ctx: AppContext, job: Extract<RuleJob, { kind: 'check' }>): Promise<null>;
export async function runRuleJob(ctx: AppContext, job: Extract<RuleJob, { kind: 'exceptions' }>): Promise<number>;
export async function runRuleJob(ctx: AppContext, job: Extract<RuleJob, { kind: 'history' }>): Promise<HistoryBatchOutcome>;
export async function runRuleJob(ctx: AppContext, job: Extract<RuleJob, { kind: 'import' }>): Promise<ImportChecked>;
export async function runRuleJob(ctx: AppContext, job: Extract<RuleJob, { kind: 'split' }>): Promise<ImportDocument[]>;
export async function runRuleJob(ctx: AppContext, job: Extract<RuleJob, { kind: 'cover' }>): Promise<number[]>;
export async function runRuleJob(ctx: AppContext, job: RuleJob): Promise<TestOutcome | ImportChecked | ImportDocument[] | HistoryBatchOutcome | number[] | number | null> {
  const result = await ruleWorkersOf(ctx).run(job);
  if (!result.ok) throw new HttpError(result.status, result.detail, result.errors, result.headers);
  return result.value;
}

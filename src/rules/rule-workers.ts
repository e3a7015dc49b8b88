// Rule work off the event loop: a small pool of worker threads (rule-worker.ts) runs rule checks and
// sample tests, so a costly rule never stops the service from answering other requests. Each thread has
// its own heap limit (`resourceLimits`) and each job a time budget: a job past either ends its thread
// (a fresh one starts for the next job) and answers 422 naming the budget; the process lives on. Jobs
// wait in a bounded queue (503 when it is full). Idle threads do not keep the process alive and end
// after a minute. One pool per service context, ended when the service closes.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { AppContext } from '../http/context.js';
import { HttpError } from '../http/errors.js';
import type { JobResult, RuleJob, TestOutcome } from './rule-jobs.js';

/** Threads per pool (the machine's cores are shared with ingest and the database). */
const POOL_SIZE = 2;
/** Jobs waiting for a thread beyond which new jobs are refused. */
const MAX_QUEUE = 64;
const IDLE_MS = 60_000;
/** Longest a new thread may take to load before it is given up. */
const BOOT_MS = 60_000;
export const WORK_BUSY = 'Rule workers are busy: retry shortly';

/** The worker entry beside this file, with this file's extension (.ts under tsx, .js once built). */
const WORKER_URL = new URL(`./rule-worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

/**
 * How to start a worker: the built entry as it is; a TypeScript entry (sources run through tsx, as the
 * tests do) after registering tsx in the new thread, since loader hooks of the main thread do not reach it.
 */
function workerSource(): { source: string | URL; eval: boolean } {
  if (!WORKER_URL.pathname.endsWith('.ts')) return { source: WORKER_URL, eval: false };
  const tsx = import.meta.resolve('tsx/esm/api');
  return { source: `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(WORKER_URL.href)}); });`, eval: true };
}

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
    const { source, eval: evaluated } = workerSource();
    const worker = new Worker(source, {
      eval: evaluated,
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
      slot.timer = setTimeout(() => {
        const seconds = this.budget.timeoutMs / 1000;
        void this.end(slot, new HttpError(422, `Rule work stopped: it ran past its time budget of ${seconds} s`));
      }, this.budget.timeoutMs);
      try {
        slot.worker.postMessage({ id: pending.id, job: pending.job });
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
export async function runRuleJob(ctx: AppContext, job: RuleJob): Promise<TestOutcome | null> {
  const result = await ruleWorkersOf(ctx).run(job);
  if (!result.ok) throw new HttpError(result.status, result.detail, result.errors, result.headers);
  return result.value;
}

// The embedded database: PostgreSQL compiled to WebAssembly (PGlite), kept in a data directory or in
// memory. It runs on a thread of its own (pglite-worker.ts), so the statements of one request execute
// while this thread parses, checks and answers others: storing events and handling requests use both
// cores. Ingest transactions take turns on that thread, so no burst of them queues ahead of a read. One process at a time may open a data directory; see data-dir-lock.ts.
import { Worker } from 'node:worker_threads';
import { workerEntry } from '../threads/worker-entry.js';
import { checkChannel, type Database, type Queryable, type Row } from './database.js';
import type { EngineOptions } from './pglite-engine.js';
import type { DatabaseReply, DatabaseRequest, DatabaseThreadData } from './pglite-worker.js';

/** Where the database lives (the same options as the engine on the database thread takes). */
export type PgliteOptions = EngineOptions;

type Waiting = { resolve(value: unknown): void; reject(error: Error): void };

/** A database error as the thread sent it: an Error carrying PostgreSQL's fields (code, detail, ...). */
function rebuilt(fields: Record<string, unknown>): Error {
  const { message, name, ...rest } = fields;
  const error = Object.assign(new Error(String(message)), rest);
  if (typeof name === 'string' && name !== 'Error') error.name = name;
  return error;
}

export async function openPglite(options: PgliteOptions = {}): Promise<Database & { dump(): Promise<Blob> }> {
  const data: DatabaseThreadData = { dataDir: options.dataDir, loadDataDir: options.loadDataDir ? await options.loadDataDir.arrayBuffer() : undefined };
  const entry = workerEntry(import.meta.url, 'pglite-worker');
  const worker = new Worker(entry.source, { ...entry.options, workerData: data, transferList: data.loadDataDir ? [data.loadDataDir] : [] });
  const waiting = new Map<number, Waiting>();
  const listeners = new Map<string, Set<() => void>>();
  let nextId = 1;
  let nextTx = 1;
  let stopped: Error | undefined;

  await new Promise<void>((ready, failed) => {
    worker.on('message', (reply: DatabaseReply) => {
      if ('ready' in reply) return ready();
      if ('failedToOpen' in reply) return failed(rebuilt(reply.failedToOpen));
      if ('notify' in reply) {
        for (const onNotify of listeners.get(reply.notify) ?? []) onNotify();
        return;
      }
      const call = waiting.get(reply.id);
      if (!call) return;
      waiting.delete(reply.id);
      // An idle database thread does not keep the process alive (as PGlite in this thread would not).
      if (waiting.size === 0) worker.unref();
      if (reply.failure) call.reject(rebuilt(reply.failure));
      else call.resolve(reply.result);
    });
    worker.on('error', (error) => failed(error));
    worker.on('exit', () => {
      stopped ??= new Error('the embedded database thread has stopped');
      failed(stopped);
      for (const call of waiting.values()) call.reject(stopped);
      waiting.clear();
    });
  });
  worker.unref();

  const call = (request: DatabaseRequest): Promise<unknown> => {
    if (stopped) return Promise.reject(stopped);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ ...request, id });
    });
  };
  const query = <T extends Row>(sql: string, params: readonly unknown[] = [], tx?: number) => call({ op: 'query', sql, params: params as unknown[], tx }) as Promise<T[]>;

  return {
    kind: 'pglite',
    query: (sql, params) => query(sql, params),
    async ping() {
      await call({ op: 'ping' });
    },
    async exec(sql) {
      await call({ op: 'exec', sql });
    },
    async transaction(work, options) {
      // Begun without waiting: the thread holds this transaction's statements until it has started
      // (an ingest transaction also until the one ahead of it has ended).
      const tx = nextTx++;
      void call({ op: 'begin', tx, lane: options?.lane }).catch(() => {});
      const scoped: Queryable = { query: (sql, params) => query(sql, params, tx) };
      let result;
      try {
        result = await work(scoped);
      } catch (error) {
        await call({ op: 'end', tx, commit: false }).catch(() => {});
        throw error;
      }
      await call({ op: 'end', tx, commit: true });
      return result;
    },
    async listen(channel, onNotify) {
      checkChannel(channel);
      let set = listeners.get(channel);
      if (!set) {
        set = new Set();
        listeners.set(channel, set);
        await call({ op: 'listen', channel });
      }
      const mine = () => onNotify();
      set.add(mine);
      return async () => {
        set.delete(mine);
        if (set.size > 0 || listeners.get(channel) !== set) return;
        listeners.delete(channel);
        if (!stopped) await call({ op: 'unlisten', channel });
      };
    },
    async close() {
      if (stopped) return;
      try {
        await call({ op: 'close' });
      } finally {
        stopped = new Error('the embedded database is closed');
        await worker.terminate();
      }
    },
    async dump() {
      return new Blob([(await call({ op: 'dump' })) as ArrayBuffer]);
    },
  };
}

// Entry of the database thread (started by pglite.ts): opens the embedded database and runs the
// statements it is sent. Each transaction stays open, holding PGlite's transaction lock, until the
// starter says whether to commit; statements sent outside it wait for that lock as they would in one
// thread; ingest transactions take turns (one at a time, reads sent meanwhile running between two of
// them: see TransactionOptions). Errors go back as their fields (code, detail, constraint, ...), which the starter rebuilds.
import { parentPort, workerData } from 'node:worker_threads';
import type { Transaction } from '@electric-sql/pglite';
import type { TransactionOptions } from './database.js';
import { createEngine } from './pglite-engine.js';

export type DatabaseRequest =
  | { op: 'query'; sql: string; params: unknown[]; tx?: number }
  | { op: 'exec'; sql: string }
  | { op: 'begin'; tx: number; lane?: TransactionOptions['lane'] }
  | { op: 'end'; tx: number; commit: boolean }
  | { op: 'listen'; channel: string }
  | { op: 'unlisten'; channel: string }
  | { op: 'ping' }
  | { op: 'dump' }
  | { op: 'close' };

export type DatabaseReply = { id: number; result?: unknown; failure?: Record<string, unknown> } | { notify: string } | { ready: true } | { failedToOpen: Record<string, unknown> };

export interface DatabaseThreadData {
  dataDir?: string;
  loadDataDir?: ArrayBuffer;
}

/** The fields of a database error that callers read (PostgreSQL's error fields), as plain data. */
function failureOf(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { message: String(error) };
  const fields: Record<string, unknown> = { message: error.message, name: error.name };
  for (const key of ['code', 'detail', 'hint', 'constraint', 'table', 'column', 'schema', 'severity', 'position', 'where', 'routine', 'dataType']) {
    const value = (error as unknown as Record<string, unknown>)[key];
    if (value !== undefined && value !== null) fields[key] = value;
  }
  return fields;
}

const ROLLBACK = Symbol('rollback');
const port = parentPort!;
const data = workerData as DatabaseThreadData;

interface OpenTransaction {
  /** The transaction once PGlite has started it (statements sent before wait for it). */
  started: Promise<Transaction>;
  decide(commit: boolean): void;
  done: Promise<unknown>;
}

try {
  const lite = await createEngine({ dataDir: data.dataDir, loadDataDir: data.loadDataDir ? new Blob([data.loadDataDir]) : undefined });
  const transactions = new Map<number, OpenTransaction>();
  const listening = new Map<string, () => Promise<void>>();
  // The starter numbers its transactions and sends their statements without waiting for the start.
  // Ingest transactions take turns: the next one asks PGlite for its lock only once the one ahead has
  // ended, so the reads sent meanwhile (queued for the lock in arrival order) run between the two.
  let ingestTurn: Promise<unknown> = Promise.resolve();
  const begin = (id: number, lane: TransactionOptions['lane']) => {
    let decide!: (commit: boolean) => void;
    const decided = new Promise<boolean>((resolve) => (decide = resolve));
    let started!: (tx: Transaction) => void;
    const open: OpenTransaction = { started: new Promise<Transaction>((resolve) => (started = resolve)), decide, done: Promise.resolve() };
    const run = () =>
      lite.transaction(async (tx) => {
        started(tx);
        if (!(await decided)) throw ROLLBACK;
      });
    open.done = lane === 'ingest' ? (ingestTurn = ingestTurn.then(run, run)) : run();
    // A transaction that could not start fails its statements with the reason.
    open.started = Promise.race([open.started, open.done.then(() => Promise.reject(new Error('the transaction has ended')))]);
    open.started.catch(() => {});
    open.done.catch(() => {}).finally(() => transactions.delete(id));
    transactions.set(id, open);
  };

  const handle = async (request: DatabaseRequest): Promise<unknown> => {
    switch (request.op) {
      case 'query': {
        if (request.tx === undefined) return (await lite.query(request.sql, request.params)).rows;
        const open = transactions.get(request.tx);
        if (!open) throw new Error('the transaction has ended');
        return (await (await open.started).query(request.sql, request.params)).rows;
      }
      case 'exec':
        await lite.exec(request.sql);
        return undefined;
      case 'begin':
        begin(request.tx, request.lane);
        return undefined;
      case 'end': {
        const open = transactions.get(request.tx);
        if (!open) throw new Error('the transaction has ended');
        open.decide(request.commit);
        try {
          await open.done;
        } catch (error) {
          if (error !== ROLLBACK) throw error;
        }
        return undefined;
      }
      case 'listen':
        if (!listening.has(request.channel)) listening.set(request.channel, await lite.listen(request.channel, () => port.postMessage({ notify: request.channel })));
        return undefined;
      case 'unlisten':
        await listening.get(request.channel)?.();
        listening.delete(request.channel);
        return undefined;
      case 'ping':
        // Answered between statements, whatever the transactions waiting: the thread is alive and the
        // engine open.
        if (lite.closed) throw new Error('the embedded database is closed');
        return undefined;
      case 'dump':
        return await ((await lite.dumpDataDir('none')) as Blob).arrayBuffer();
      case 'close':
        await lite.close();
        return undefined;
    }
  };

  port.on('message', (message: DatabaseRequest & { id: number }) => {
    handle(message).then(
      (result) => port.postMessage({ id: message.id, result }, result instanceof ArrayBuffer ? [result] : []),
      (error) => port.postMessage({ id: message.id, failure: failureOf(error) }),
    );
  });
  port.postMessage({ ready: true });
} catch (error) {
  port.postMessage({ failedToOpen: failureOf(error) });
}

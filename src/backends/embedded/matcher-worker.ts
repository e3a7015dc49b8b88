// Entry of a matcher thread (started by matcher-thread.ts): holds its own copy of the compiled rule
// sets, applies the change log it is sent, and matches batches of events sent as JSON text. Changes are
// applied in arrival order, and a batch starts once every change sent before it is applied. The batches
// of one percolator index are matched in arrival order; those of different indices take turns of
// SLICE_MS (at least one event each), so an index pattern's costly events share the thread with another
// pattern's batches instead of holding them until they end; each event is held to the per-event work
// budget (event-matching.ts).
import { parentPort } from 'node:worker_threads';
import type { EventShaper } from '../../sigma/index.js';
import type { EventBatch } from '../backend.js';
import { shaperOfPattern } from '../../index-patterns/event-shape.js';
import { collect, LocalRules, type EventMatches, type RuleChange } from './live-rules.js';
import type { ExceptionTally } from './event-matching.js';

export type MatcherJob =
  | { kind: 'apply'; changes: RuleChange[] }
  | { kind: 'match'; index: string; batch: EventBatch }
  | { kind: 'explain'; index: string; batch: EventBatch; hits: string[][] };
type MatcherRequest = MatcherJob & { id: number };

/** Longest turn of one batch before the next batch waiting gets the thread. */
const SLICE_MS = 20;

interface Run {
  id: number;
  index: string;
  texts: string[];
  shape: EventShaper | null;
  hits?: string[][];
  outcomes: EventMatches[];
  /** Matches the exceptions suppressed, by exception id. */
  tally: ExceptionTally;
}

const rules = new LocalRules();
/** The changes, applied one message after the other. */
let applied: Promise<unknown> = Promise.resolve();
/** Batches waiting, by percolator index (each in arrival order), and the indices in turn order. */
const waiting = new Map<string, Run[]>();
const turnOrder: string[] = [];
let turning = false;

const reply = (id: number, result: unknown) => parentPort!.postMessage({ id, result });
const fail = (id: number, error: unknown) => parentPort!.postMessage({ id, failure: error instanceof Error ? error.message : String(error) });
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** Matches the waiting batches, the indices in turns, until none is left; messages are received between turns. */
async function turns(): Promise<void> {
  if (turning) return;
  turning = true;
  try {
    while (turnOrder.length > 0) {
      const index = turnOrder.shift()!;
      const queue = waiting.get(index)!;
      const run = queue[0];
      const until = performance.now() + SLICE_MS;
      let failed = false;
      try {
        do {
          const i = run.outcomes.length;
          run.outcomes.push(rules.matchOne(run.index, run.texts[i], run.shape, run.hits?.[i], run.tally));
        } while (run.outcomes.length < run.texts.length && performance.now() < until);
      } catch (error) {
        failed = true;
        fail(run.id, error);
      }
      if (failed || run.outcomes.length === run.texts.length) {
        queue.shift();
        if (!failed) reply(run.id, collect(run.outcomes, run.tally));
      }
      if (queue.length > 0) turnOrder.push(index);
      else waiting.delete(index);
      await nextTurn();
    }
  } finally {
    turning = false;
  }
}

/** Queues a batch behind the earlier ones of its index. */
function enqueue(run: Run): void {
  const queue = waiting.get(run.index);
  if (queue) queue.push(run);
  else {
    waiting.set(run.index, [run]);
    turnOrder.push(run.index);
  }
  void turns();
}

parentPort?.on('message', (message: MatcherRequest) => {
  if (message.kind === 'apply') {
    applied = applied.then(() => rules.apply(message.changes)).then(
      (setAside) => reply(message.id, setAside),
      (error: unknown) => fail(message.id, error),
    );
    return;
  }
  const run: Run = { id: message.id, index: message.index, texts: message.batch.texts, shape: null, hits: message.kind === 'explain' ? message.hits : undefined, outcomes: [], tally: new Map() };
  void applied.then(() => {
    try {
      run.shape = shaperOfPattern(message.batch);
    } catch (error) {
      return fail(run.id, error);
    }
    if (run.texts.length === 0) return reply(run.id, collect([]));
    enqueue(run);
  });
});

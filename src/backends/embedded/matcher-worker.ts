// Entry of a matcher thread (started by matcher-thread.ts): holds its own copy of the compiled rule
// sets, applies the change log it is sent, and matches batches of events sent as JSON text. Changes are
// applied in arrival order, and a batch starts once every change sent before it is applied. Batches are
// matched in turns of SLICE_MS (at least one event each), so a batch of costly events shares the thread
// with the batches sent after it instead of holding them until it ends; each event is held to the
// per-event work budget (event-matching.ts).
import { parentPort } from 'node:worker_threads';
import type { EventShaper } from '../../sigma/index.js';
import type { EventBatch } from '../backend.js';
import { shaperOfPattern } from '../../index-patterns/event-shape.js';
import { collect, LocalRules, type EventMatches, type RuleChange } from './live-rules.js';

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
}

const rules = new LocalRules();
/** The changes, applied one message after the other. */
let applied: Promise<unknown> = Promise.resolve();
/** Batches being matched, in turn. */
const runs: Run[] = [];
let turning = false;

const reply = (id: number, result: unknown) => parentPort!.postMessage({ id, result });
const fail = (id: number, error: unknown) => parentPort!.postMessage({ id, failure: error instanceof Error ? error.message : String(error) });
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** Matches the waiting batches in turns until none is left; messages are received between turns. */
async function turns(): Promise<void> {
  if (turning) return;
  turning = true;
  try {
    while (runs.length > 0) {
      const run = runs.shift()!;
      const until = performance.now() + SLICE_MS;
      try {
        do {
          const i = run.outcomes.length;
          run.outcomes.push(rules.matchOne(run.index, run.texts[i], run.shape, run.hits?.[i]));
        } while (run.outcomes.length < run.texts.length && performance.now() < until);
      } catch (error) {
        fail(run.id, error);
        continue;
      }
      if (run.outcomes.length < run.texts.length) runs.push(run);
      else reply(run.id, collect(run.outcomes));
      await nextTurn();
    }
  } finally {
    turning = false;
  }
}

parentPort?.on('message', (message: MatcherRequest) => {
  if (message.kind === 'apply') {
    applied = applied.then(() => rules.apply(message.changes)).then(
      (setAside) => reply(message.id, setAside),
      (error: unknown) => fail(message.id, error),
    );
    return;
  }
  const run: Run = { id: message.id, index: message.index, texts: message.batch.texts, shape: null, hits: message.kind === 'explain' ? message.hits : undefined, outcomes: [] };
  void applied.then(() => {
    try {
      run.shape = shaperOfPattern(message.batch);
    } catch (error) {
      return fail(run.id, error);
    }
    if (run.texts.length === 0) return reply(run.id, collect([]));
    runs.push(run);
    void turns();
  });
});

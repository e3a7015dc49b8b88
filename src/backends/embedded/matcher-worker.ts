// Entry of the matcher thread (started by matcher-thread.ts): holds its own copy of the compiled rule
// sets, applies the change log it is sent, and matches batches of events sent as JSON text. Messages
// are handled strictly in arrival order, so a batch is matched against every change sent before it.
import { parentPort } from 'node:worker_threads';
import { LocalRules, type RuleChange } from './live-rules.js';
import type { EventBatch } from '../backend.js';

export type MatcherJob = { kind: 'apply'; changes: RuleChange[] } | { kind: 'match'; index: string; batch: EventBatch };
type MatcherRequest = MatcherJob & { id: number };

const rules = new LocalRules();
let queue: Promise<void> = Promise.resolve();

async function handle(message: MatcherRequest): Promise<unknown> {
  if (message.kind === 'apply') return rules.apply(message.changes);
  return rules.matchNow(message.index, message.batch);
}

parentPort?.on('message', (message: MatcherRequest) => {
  queue = queue.then(async () => {
    try {
      parentPort!.postMessage({ id: message.id, result: await handle(message) });
    } catch (error) {
      parentPort!.postMessage({ id: message.id, failure: error instanceof Error ? error.message : String(error) });
    }
  });
});

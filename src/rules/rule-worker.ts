// Entry of a rule worker thread (started by rule-workers.ts): runs one rule job per message and answers
// {id, result}; an unexpected failure answers {id, failure} with its message. The thread's memory is
// capped by its starter, which also ends it when a job runs past its time budget.
import { parentPort } from 'node:worker_threads';
import { runJob, type RuleJob } from './rule-jobs.js';

parentPort?.on('message', (message: { id: number; job: RuleJob }) => {
  try {
    parentPort!.postMessage({ id: message.id, result: runJob(message.job) });
  } catch (error) {
    parentPort!.postMessage({ id: message.id, failure: error instanceof Error ? error.message : String(error) });
  }
});

// Imports are loaded: the starter may send jobs (their time budget starts now).
parentPort?.postMessage({ ready: true });

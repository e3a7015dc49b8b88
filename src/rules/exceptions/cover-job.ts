// Which of a list of stored events one exception covers, run on a rule worker: the exception compiled
// by the same code that applies it at ingest (matcher.ts), each event held to the per-test work budget
// at the exception's matching cost (an event past it is left out, counted as not covered).
import { compileException, type ExceptionSpec } from './matcher.js';
import { overTestWork } from '../rule-jobs.js';

export interface CoverJob {
  kind: 'cover';
  exception: ExceptionSpec;
  events: Record<string, unknown>[];
}

let compiled: { key: string; matches: (event: object) => boolean; cost: number } | undefined;

/** Positions of the events the exception matches. */
export function coveredEvents(job: CoverJob): number[] {
  const key = JSON.stringify(job.exception);
  if (compiled?.key !== key) compiled = { key, ...compileException(job.exception) };
  const { matches, cost } = compiled;
  const out: number[] = [];
  job.events.forEach((event, i) => {
    if (overTestWork(Math.max(1, cost), event) === undefined && matches(event)) out.push(i);
  });
  return out;
}

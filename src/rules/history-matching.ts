// A historical rule test's matching, run on a rule worker (rule-jobs.ts) one batch of stored events at a
// time: the stored rule compiled for its pattern with its enabled exceptions (kept for the next batch of
// the same test), each event held to the per-event work budget with the matching cost of the rule and its
// exceptions (413 naming it), then matched and checked against the exceptions. Answers the positions
// of the events matched and of those an exception would suppress.
import { shaperOfPattern } from '../index-patterns/event-shape.js';
import type { IndexPatternRow } from '../index-patterns/store.js';
import { HttpError, unprocessable } from '../http/errors.js';
import { compileFor, parseSigma } from './analysis.js';
import { compileExceptions, type ExceptionSpec } from './exceptions/matcher.js';
import { costOf, matchingCost, overTestWork, testTooLarge } from './rule-jobs.js';

export interface HistoryJob {
  kind: 'history';
  yaml: string;
  pattern: IndexPatternRow;
  exceptions: ExceptionSpec[];
  events: Record<string, unknown>[];
}

export interface HistoryBatchOutcome {
  /** Positions in the batch of the events the rule matches. */
  matched: number[];
  /** Positions of those an enabled exception would suppress. */
  excepted: number[];
}

let compiled: { key: string; test: ReturnType<typeof compileTest> } | undefined;

function compileTest(job: HistoryJob) {
  let sigma;
  try {
    sigma = parseSigma(job.yaml, 'Rule validation failed');
  } catch (error) {
    if (error instanceof HttpError && error.statusCode === 400) throw unprocessable('Rule validation failed', [{ field: 'yaml_content', message: error.detail }]);
    throw error;
  }
  const matcher = compileFor(sigma, job.pattern, 'Rule validation failed');
  const exceptions = compileExceptions(job.exceptions);
  return { matcher, exceptions, shape: shaperOfPattern(job.pattern), cost: matchingCost(matcher) + exceptions.cost };
}

export function matchHistoryBatch(job: HistoryJob): HistoryBatchOutcome {
  const key = JSON.stringify([job.yaml, job.pattern, job.exceptions]);
  if (compiled?.key !== key) compiled = { key, test: compileTest(job) };
  const { matcher, exceptions, shape, cost } = compiled.test;
  const out: HistoryBatchOutcome = { matched: [], excepted: [] };
  job.events.forEach((stored, i) => {
    const seen = shape ? shape(stored) : stored;
    const chars = overTestWork(cost, seen);
    if (chars !== undefined) throw testTooLarge('a stored event', chars, costOf(cost, exceptions.cost), 'event');
    if (!matcher.match(seen)) return;
    out.matched.push(i);
    if (exceptions.matches(stored)) out.excepted.push(i);
  });
  return out;
}

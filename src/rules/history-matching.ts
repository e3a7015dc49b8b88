// A historical rule test's matching, run on a rule worker (rule-jobs.ts) one batch of stored events at a
// time: the stored rule compiled for its pattern with its enabled exceptions (kept for the next batch of
// the same test), each event held to the per-event work budget with the matching cost of the rule and its
// exceptions (413 naming it), then matched and checked against the exceptions. Answers the positions
// of the events matched and of those an exception would suppress. A batch comes as events, or as a page
// of the cluster's history as bytes (decoded and parsed here, off the main thread), whose first matched events come
// back as samples in text with their numbers as stored.
import { shaperOfPattern } from '../index-patterns/event-shape.js';
import type { IndexPatternRow } from '../index-patterns/store.js';
import { HttpError, unprocessable } from '../http/errors.js';
import { stringifyJson } from '../http/exact-json.js';
import { eventsOfPage } from '../backends/opensearch/history-page.js';
import { compileFor, parseSigma } from './analysis.js';
import { compileExceptions, type ExceptionSpec } from './exceptions/matcher.js';
import { costOf, matchingCost, overTestWork, testTooLarge } from './rule-jobs.js';

export interface HistoryJob {
  kind: 'history';
  yaml: string;
  pattern: IndexPatternRow;
  exceptions: ExceptionSpec[];
  /** The stored events, or `page` (then `samples` says how many matched events to send back). */
  events?: Record<string, unknown>[];
  page?: Uint8Array;
  samples?: number;
}

export interface HistoryBatchOutcome {
  /** Positions in the batch of the events the rule matches. */
  matched: number[];
  /** Positions of those an enabled exception would suppress. */
  excepted: number[];
  /** Events in the batch. */
  count: number;
  /** For a page: its first matched events (up to `samples`) as exact JSON text, with their time. */
  samples: Array<{ json: string; time: string }>;
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
  const page = job.page === undefined ? undefined : eventsOfPage(job.page, (job.samples ?? 0) > 0);
  const events = page ? page.map((e) => e.event) : (job.events ?? []);
  const out: HistoryBatchOutcome = { matched: [], excepted: [], count: events.length, samples: [] };
  events.forEach((stored, i) => {
    const seen = shape ? shape(stored) : stored;
    const chars = overTestWork(cost, seen);
    if (chars !== undefined) throw testTooLarge('a stored event', chars, costOf(cost, exceptions.cost), 'event');
    if (!matcher.match(seen)) return;
    out.matched.push(i);
    if (page && out.samples.length < (job.samples ?? 0)) out.samples.push({ json: stringifyJson(stored), time: page[i].time });
    if (exceptions.matches(stored)) out.excepted.push(i);
  });
  return out;
}

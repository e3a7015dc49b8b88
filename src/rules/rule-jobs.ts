// The CPU-heavy rule work that runs on a rule worker thread (rule-worker.ts), as plain functions of plain
// data: checking a rule (parse and compile, the validation errors of analysis.ts), splitting a YAML
// import into documents and checking each (import-check.ts), testing a rule against a sample event, and
// checking a rule's exceptions (their values, and the rule's matching cost with them: exceptions-limit.ts),
// and finding the stored events an exception covers (exceptions/cover-job.ts).
// A test is refused up front (413) when the sample's text times the matching cost of the rule and its
// exceptions exceeds the per-test work budget, so a test that would run for minutes never starts.
import { eventText, MAX_EVENT_WORK, ruleCost, type CompiledRule } from '../sigma/index.js';
import { HttpError, unprocessable, type FieldError } from '../http/errors.js';
import { shaperOfPattern } from '../index-patterns/event-shape.js';
import type { IndexPatternRow } from '../index-patterns/store.js';
import { checkRule, compileFor, parseSigma, type ValidationDetail } from './analysis.js';
import { compileExceptions, type ExceptionSpec } from './exceptions/matcher.js';
import { checkExceptions } from './exceptions/exceptions-limit.js';
import { coveredEvents, type CoverJob } from './exceptions/cover-job.js';
import { matchHistoryBatch, type HistoryBatchOutcome, type HistoryJob } from './history-matching.js';
import { checkImportDocument, type ImportChecked } from './import-check.js';
import { documentsFromYaml, type ImportDocument } from './import-sources.js';

/** Work budget of one sample test: characters of the sample's text × the rule's matching cost (the per-event work budget of ingest). */
export const MAX_TEST_WORK = MAX_EVENT_WORK;

export type RuleJob =
  | {
      kind: 'check';
      yaml: string;
      pattern: IndexPatternRow | null;
      detail: ValidationDetail;
      parseOnly?: boolean;
      /** A stored rule: text that no longer parses is a 422, not a 400. */
      stored?: boolean;
    }
  | {
      kind: 'test';
      yaml: string;
      pattern: IndexPatternRow | null;
      sample: Record<string, unknown>;
      exceptions: ExceptionSpec[];
      /** A stored rule: text that no longer parses is a 422, not a 400. */
      stored: boolean;
    }
  | {
      kind: 'exceptions';
      /** The stored rule. */
      yaml: string;
      pattern: IndexPatternRow | null;
      /** The rule's enabled exceptions once the change is made. */
      exceptions: ExceptionSpec[];
      /** The exception created or changed, whose value is checked. */
      changed: Pick<ExceptionSpec, 'operator' | 'value'>;
    }
  | HistoryJob
  | CoverJob
  | { kind: 'import'; yaml: string; pattern: IndexPatternRow | null; deploy: boolean }
  /** A multi-document YAML import split into its documents (the whole text is parsed to find them). */
  | { kind: 'split'; text: string };

export interface TestOutcome {
  title: string;
  matches: boolean;
  matched_conditions: Array<Record<string, Record<string, unknown>>>;
  excepted: boolean;
}

export type JobResult = { ok: true; value: TestOutcome | ImportChecked | ImportDocument[] | HistoryBatchOutcome | number[] | number | null } | { ok: false; status: number; detail: string; errors?: FieldError[]; headers?: Record<string, string> };

const grouped = (n: number) => n.toLocaleString('en-US');


function parseStored(yaml: string) {
  try {
    return parseSigma(yaml, 'Rule validation failed');
  } catch (error) {
    if (error instanceof HttpError && error.statusCode === 400) throw unprocessable('Rule validation failed', [{ field: 'yaml_content', message: error.detail }]);
    throw error;
  }
}

/** A rule's matching cost per character of an event's text (at least 1). */
export const matchingCost = (matcher: CompiledRule): number => Math.max(1, ruleCost(matcher.ir).matchCost);

/** The characters of text of `event` when matching it at `cost` per character could exceed MAX_TEST_WORK; else undefined. */
export function overTestWork(cost: number, event: object): number | undefined {
  const chars = eventText(event, Math.ceil(MAX_TEST_WORK / cost) + 1);
  return chars * cost > MAX_TEST_WORK ? chars : undefined;
}

/** The 413 of a test that would match `what` (its text of `chars` characters) at `cost` per character. */
export function testTooLarge(what: string, chars: number, cost: string, per: 'test' | 'event'): HttpError {
  return new HttpError(413, `Rule test too large: ${what}'s ${grouped(chars)} characters of text times ${cost} exceed the work budget of ${grouped(MAX_TEST_WORK)} per ${per}`);
}

/** How a 413 names the matching cost: the rule's, or the rule's with its exceptions'. */
export const costOf = (cost: number, exceptionsCost: number): string =>
  exceptionsCost > 0 ? `the matching cost of ${grouped(cost)} of the rule and its exceptions` : `the rule's matching cost of ${grouped(cost)}`;

/** 413 when testing `matcher` (and exceptions of `exceptionsCost`) against an event of this much text could exceed MAX_TEST_WORK. */
export function checkTestWork(matcher: CompiledRule, event: object, exceptionsCost = 0): void {
  const cost = matchingCost(matcher) + exceptionsCost;
  const chars = overTestWork(cost, event);
  if (chars !== undefined) throw testTooLarge('the sample', chars, costOf(cost, exceptionsCost), 'test');
}

function runTest(job: Extract<RuleJob, { kind: 'test' }>): TestOutcome {
  const sigma = job.stored ? parseStored(job.yaml) : parseSigma(job.yaml, 'Rule validation failed');
  const pattern = job.pattern ?? undefined;
  const matcher = compileFor(sigma, pattern, 'Rule validation failed');
  const shape = shaperOfPattern(pattern);
  const event = shape ? shape(job.sample) : job.sample;
  const exceptions = compileExceptions(job.exceptions);
  checkTestWork(matcher, event, exceptions.cost);
  const explanation = matcher.explain(event);
  const excepted = explanation.matched && exceptions.matches(job.sample);
  return { title: sigma.title, matches: explanation.matched, matched_conditions: explanation.matched ? explanation.matchedConditions : [], excepted };
}

/** Runs a job; validation failures come back as the error they would answer. */
export function runJob(job: RuleJob): JobResult {
  try {
    if (job.kind === 'check') {
      const sigma = job.stored ? parseStored(job.yaml) : parseSigma(job.yaml, job.detail);
      if (!job.parseOnly) checkRule(sigma, job.pattern ?? undefined, job.detail);
      return { ok: true, value: null };
    }
    if (job.kind === 'history') return { ok: true, value: matchHistoryBatch(job) };
    if (job.kind === 'cover') return { ok: true, value: coveredEvents(job) };
    if (job.kind === 'exceptions') return { ok: true, value: checkExceptions(job.yaml, job.pattern, job.exceptions, job.changed) };
    if (job.kind === 'import') return { ok: true, value: checkImportDocument(job.yaml, job.pattern, job.deploy) };
    if (job.kind === 'split') return { ok: true, value: documentsFromYaml(job.text) };
    return { ok: true, value: runTest(job) };
  } catch (error) {
    if (error instanceof HttpError) return { ok: false, status: error.statusCode, detail: error.detail, errors: error.errors, headers: error.headers };
    throw error;
  }
}

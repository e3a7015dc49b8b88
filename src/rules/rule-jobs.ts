// The CPU-heavy rule work that runs on a rule worker thread (rule-worker.ts), as plain functions of plain
// data: checking a rule (parse and compile, the validation errors of analysis.ts), splitting a YAML
// import into documents and checking each (import-check.ts), and testing a rule against a sample event. A test is refused up front (413) when the sample's text times the rule's matching cost
// exceeds the per-test work budget, so a test that would run for minutes never starts.
import { ruleCost, type CompiledRule } from '../sigma/index.js';
import { HttpError, unprocessable, type FieldError } from '../http/errors.js';
import { shaperOfPattern } from '../index-patterns/event-shape.js';
import type { IndexPatternRow } from '../index-patterns/store.js';
import { checkRule, compileFor, parseSigma, type ValidationDetail } from './analysis.js';
import { compileExceptions, type ExceptionSpec } from './exceptions/matcher.js';
import { checkImportDocument, type ImportChecked } from './import-check.js';
import { documentsFromYaml, type ImportDocument } from './import-sources.js';

/** Work budget of one sample test: characters of the sample's text × the rule's matching cost. */
export const MAX_TEST_WORK = 1_000_000_000;

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
  | { kind: 'import'; yaml: string; pattern: IndexPatternRow | null; deploy: boolean }
  /** A multi-document YAML import split into its documents (the whole text is parsed to find them). */
  | { kind: 'split'; text: string };

export interface TestOutcome {
  title: string;
  matches: boolean;
  matched_conditions: Array<Record<string, Record<string, unknown>>>;
  excepted: boolean;
}

export type JobResult = { ok: true; value: TestOutcome | ImportChecked | ImportDocument[] | null } | { ok: false; status: number; detail: string; errors?: FieldError[]; headers?: Record<string, string> };

const grouped = (n: number) => n.toLocaleString('en-US');

/** Characters of text a matcher may read in an event (strings, and numbers as text), bounded by `stop`. */
export function textSize(value: unknown, stop = Number.MAX_SAFE_INTEGER): number {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && total <= stop) {
    const v = stack.pop();
    if (typeof v === 'string') total += v.length;
    else if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') total += String(v).length;
    else if (v !== null && typeof v === 'object') {
      for (const [key, child] of Object.entries(v)) {
        total += key.length;
        stack.push(child);
      }
    }
  }
  return total;
}

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
  const chars = textSize(event, Math.ceil(MAX_TEST_WORK / cost) + 1);
  return chars * cost > MAX_TEST_WORK ? chars : undefined;
}

/** The 413 of a test that would match `what` (its text of `chars` characters) at `cost` per character. */
export function testTooLarge(what: string, chars: number, cost: string, per: 'test' | 'event'): HttpError {
  return new HttpError(413, `Rule test too large: ${what}'s ${grouped(chars)} characters of text times ${cost} exceed the work budget of ${grouped(MAX_TEST_WORK)} per ${per}`);
}

/** 413 when testing `matcher` against an event of this much text could exceed MAX_TEST_WORK. */
export function checkTestWork(matcher: CompiledRule, event: object): void {
  const cost = matchingCost(matcher);
  const chars = overTestWork(cost, event);
  if (chars !== undefined) throw testTooLarge('the sample', chars, `the rule's matching cost of ${grouped(cost)}`, 'test');
}

function runTest(job: Extract<RuleJob, { kind: 'test' }>): TestOutcome {
  const sigma = job.stored ? parseStored(job.yaml) : parseSigma(job.yaml, 'Rule validation failed');
  const pattern = job.pattern ?? undefined;
  const matcher = compileFor(sigma, pattern, 'Rule validation failed');
  const shape = shaperOfPattern(pattern);
  const event = shape ? shape(job.sample) : job.sample;
  checkTestWork(matcher, event);
  const explanation = matcher.explain(event);
  const excepted = explanation.matched && compileExceptions(job.exceptions)(job.sample);
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
    if (job.kind === 'import') return { ok: true, value: checkImportDocument(job.yaml, job.pattern, job.deploy) };
    if (job.kind === 'split') return { ok: true, value: documentsFromYaml(job.text) };
    return { ok: true, value: runTest(job) };
  } catch (error) {
    if (error instanceof HttpError) return { ok: false, status: error.statusCode, detail: error.detail, errors: error.errors, headers: error.headers };
    throw error;
  }
}

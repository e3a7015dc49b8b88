// Testing a correlation rule without side effects: against a list of sample events (unsaved YAML or a
// stored correlation) and against the stored history of its index pattern (a dry run). The rules it
// references are the stored ones (with their enabled exceptions), compiled for the pattern; their
// matches are replayed in event-time order through a fresh window state and every firing is reported.
// Nothing is written: no alert, no window state.
import type { AppContext } from '../http/context.js';
import { badRequest, unprocessable } from '../http/errors.js';
import { compileCorrelations, feed, flush, makeAccessor, newState, parseRule, type Accessor, type CompiledRule, type CorrelationSet, type Firing, type SigmaRule } from '../sigma/index.js';
import { pipelineOf } from '../index-patterns/pipeline.js';
import { shaperOfPattern } from '../index-patterns/event-shape.js';
import type { IndexPatternRow } from '../index-patterns/store.js';
import { eventTime } from '../ingest/event-checks.js';
import { fieldAccessors, projectFields } from '../correlation/plan.js';
import { checkCorrelation, compileFor, identityPipeline } from './analysis.js';
import { refsOf, resolveChain } from './correlation-refs.js';
import { compileExceptions, type ExceptionSet } from './exceptions/matcher.js';
import { enabledExceptionSpecs } from './exceptions/store.js';
import { MAX_TEST_WORK, matchingCost, overTestWork, testTooLarge } from './rule-jobs.js';
import { MAX_EVENT_CHARS } from '../ingest/service.js';
import { eventTimeAccessor } from '../ingest/event-time-fields.js';
import { Pacer, mergeRuns } from './paced-merge.js';

/** Sample events one correlation test takes. */
export const MAX_CORRELATION_SAMPLES = 10_000;
/** Matches one historical correlation test keeps before it stops scanning (reported as truncated). */
export const MAX_HISTORY_MATCHES = 500_000;
/** Longest stretch of matching before other requests get a turn. */
const SLICE_MS = 20;

/** A firing as the test endpoints report it; `events` are positions in the samples (sample tests). */
export interface FiringView {
  group: Record<string, unknown>;
  window_start: string;
  window_end: string;
  value: number;
  event_count: number;
  events: (number | string)[];
}

interface Feeder {
  refs: string[];
  matcher: CompiledRule;
  excepted: ExceptionSet;
}

/** A correlation compiled with the stored rules it needs, ready to replay events through. */
export interface CorrelationTester {
  set: CorrelationSet;
  top: number;
  feeders: Feeder[];
  fields: Map<string, Accessor[]>;
  timestamp: Accessor;
  shape: ((event: Record<string, unknown>) => Record<string, unknown>) | null;
  /** The matching cost per character of text of every referenced rule together (each event meets them all). */
  cost: number;
}

export async function compileTester(ctx: AppContext, sigma: SigmaRule, pattern: IndexPatternRow | undefined, selfId = ''): Promise<CorrelationTester> {
  checkCorrelation(sigma, 'Rule validation failed');
  const refs = [...new Set(sigma.correlation!.rules.map((r) => r.toLowerCase()))];
  let chain;
  try {
    chain = await resolveChain(ctx.db, { id: selfId, correlation_refs: refs }, pattern);
  } catch (error) {
    throw unprocessable('Rule validation failed', [{ field: 'correlation.rules', message: error instanceof Error ? error.message.replace(/^Validation failed: /, '') : String(error) }]);
  }
  const ids = [...chain.detections, ...chain.correlations].map((r) => r.id);
  const yamls = new Map((await ctx.db.query<{ id: string; yaml_content: string }>('SELECT id, yaml_content FROM rules WHERE id = ANY($1::uuid[])', [ids])).map((r) => [r.id, r.yaml_content]));
  const inner = chain.correlations.map((c) => parsedOrRefused(yamls.get(c.id) ?? '', c.title));
  const { set, rejected } = compileCorrelations([sigma, ...inner]);
  const refusal = rejected.find((r) => r.input === 0);
  if (refusal) throw unprocessable('Rule validation failed', [{ field: 'correlation', message: refusal.reason }]);
  const feeders: Feeder[] = [];
  for (const detection of chain.detections) {
    const matcher = compileFor(parsedOrRefused(yamls.get(detection.id) ?? '', detection.title), pattern, 'Rule validation failed');
    feeders.push({ refs: refsOf(detection), matcher, excepted: compileExceptions(await enabledExceptionSpecs(ctx.db, detection.id)) });
  }
  return {
    set,
    top: set.correlations.findIndex((c) => c.input === 0),
    feeders,
    fields: fieldAccessors(set, pattern ? pipelineOf(pattern) : identityPipeline()),
    timestamp: pattern ? eventTimeAccessor(pattern) : makeAccessor('@timestamp'),
    shape: shaperOfPattern(pattern),
    // A rule's exceptions count in its matching cost.
    cost: feeders.reduce((sum, f) => sum + matchingCost(f.matcher) + f.excepted.cost, 0),
  };
}

function parsedOrRefused(yaml: string, title: string): SigmaRule {
  const parsed = parseRule(yaml);
  if (!parsed.ok) throw unprocessable('Rule validation failed', [{ field: 'correlation.rules', message: `the referenced rule '${title}' no longer validates` }]);
  return parsed.rule;
}

/** One rule match waiting to be replayed in event-time order. */
interface Match {
  time: number;
  order: number;
  refs: string[];
  id: string | number;
  fields: Record<string, unknown>;
}

/** 413 when matching `event` with every referenced rule could exceed the per-event work budget. */
function checkWork(tester: CorrelationTester, event: object, what: string): void {
  const chars = overTestWork(Math.max(1, tester.cost), event);
  if (chars !== undefined) throw testTooLarge(what, chars, `the referenced rules' matching cost of ${tester.cost.toLocaleString('en-US')}`, 'event');
}

/** The matches of one event (after the rules' exceptions). */
function matchesOf(tester: CorrelationTester, raw: Record<string, unknown>, time: number, order: number, id: string | number): Match[] {
  const seen = tester.shape ? tester.shape(raw) : raw;
  const out: Match[] = [];
  let fields: Record<string, unknown> | undefined;
  for (const feeder of tester.feeders) {
    if (!feeder.matcher.match(seen) || feeder.excepted.matches(raw)) continue;
    fields ??= projectFields(tester.fields, seen);
    out.push({ time, order, refs: feeder.refs, id, fields });
  }
  return out;
}

/** Replays matches in event-time order through a fresh state; answers the correlation's firings. */
const inTimeOrder = (a: Match, b: Match) => a.time - b.time || a.order - b.order;

/** Replays `runs` of matches (each in time order) through the correlation, a slice at a time. */
async function replay(tester: CorrelationTester, runs: Match[][]): Promise<Firing[]> {
  const pacer = new Pacer();
  const matches = await mergeRuns(runs, inTimeOrder, pacer);
  const state = newState(tester.set);
  const firings: Firing[] = [];
  const keep = (list: Firing[]) => firings.push(...list.filter((f) => f.correlation.index === tester.top));
  for (const m of matches) {
    keep(feed(tester.set, state, { ruleRef: m.refs, eventId: String(m.id), time: m.time, fields: m.fields }).firings);
    await pacer.step();
  }
  keep(flush(tester.set, state).firings);
  // Each group's clock releases its own firings: answered in event-time order (stable within a group).
  return firings.sort((a, b) => a.windowEnd - b.windowEnd);
}

function view(f: Firing, asNumber: boolean): FiringView {
  return {
    group: f.groupKey,
    window_start: new Date(f.windowStart).toISOString(),
    window_end: new Date(f.windowEnd).toISOString(),
    value: f.value,
    event_count: f.inputCount,
    events: f.eventIds.map((id) => (asNumber ? Number(id) : id)),
  };
}

const otherRequestsRun = () => new Promise((resolve) => setImmediate(resolve));

/** The sample events of a correlation test: `sample_log` as a list of event objects (or one event). */
export function samplesOf(sample: unknown, invalid: string): Record<string, unknown>[] {
  const list = Array.isArray(sample) ? sample : [sample];
  if (list.length === 0) throw badRequest(`${invalid}: a correlation rule is tested against a list of events`);
  if (list.length > MAX_CORRELATION_SAMPLES) throw badRequest(`${invalid}: at most ${MAX_CORRELATION_SAMPLES} events per correlation test`);
  for (const e of list) if (e === null || typeof e !== 'object' || Array.isArray(e)) throw badRequest(`${invalid}: every event must be a JSON object`);
  return list as Record<string, unknown>[];
}

/** Tests a correlation against sample events; `events` of each firing are positions in the list (from 0). */
export async function testAgainstSamples(tester: CorrelationTester, samples: Record<string, unknown>[]): Promise<FiringView[]> {
  const now = new Date();
  const matches: Match[] = [];
  let sliceStart = performance.now();
  for (const [i, raw] of samples.entries()) {
    if (performance.now() - sliceStart > SLICE_MS) {
      await otherRequestsRun();
      sliceStart = performance.now();
    }
    checkWork(tester, raw, `sample_log[${i}]`);
    const time = eventTime(tester.timestamp, raw, now) ?? now;
    matches.push(...matchesOf(tester, raw, time.getTime(), i, i));
  }
  return (await replay(tester, [matches.sort(inTimeOrder)])).map((f) => view(f, true));
}

/** Dry run over stored events: matches are collected (newest first), then replayed oldest first. */
export async function testAgainstHistory(
  ctx: AppContext,
  tester: CorrelationTester,
  pattern: IndexPatternRow,
  since: Date,
  until: Date,
  maxEvents: number,
): Promise<{ firings: FiringView[]; scanned: number; truncated: boolean }> {
  // Each batch's matches, put in time order as the batch ends (a sort of one batch is short).
  const runs: Match[][] = [];
  let matchCount = 0;
  let scanned = 0;
  let truncated = false;
  // A stored event holds at most MAX_EVENT_CHARS of JSON: below this cost none can pass the work budget.
  const bounded = tester.cost * MAX_EVENT_CHARS > MAX_TEST_WORK;
  await ctx.history.scan(pattern.id, since, until, async (batch) => {
    const run: Match[] = [];
    let sliceStart = performance.now();
    for (const stored of batch) {
      if (performance.now() - sliceStart > SLICE_MS) {
        await otherRequestsRun();
        sliceStart = performance.now();
      }
      scanned++;
      if (bounded) checkWork(tester, stored.event, 'a stored event');
      run.push(...matchesOf(tester, stored.event, stored.eventTime.getTime(), -scanned, stored.id));
    }
    runs.push(run.sort(inTimeOrder));
    matchCount += run.length;
    if (scanned >= maxEvents || matchCount >= MAX_HISTORY_MATCHES) truncated = true;
    return !truncated;
  });
  return { firings: (await replay(tester, runs)).map((f) => view(f, false)), scanned, truncated };
}

// A saved rule's dry run over its pattern's stored events (`POST /api/rules/{id}/test/historical`): the
// history scanned newest first, each batch matched on a rule worker with the rule's exceptions under
// the per-event work budget (history-matching.ts), stopping at the per-test event limit. A history kept
// on the cluster comes as pages of its answers, parsed on the workers, in parts read at once, the next
// page of each part fetched while the worker matches the last.
import { parseJson, wireValue } from '../http/exact-json.js';
import type { AppContext } from '../http/context.js';
import type { IndexPatternRow } from '../index-patterns/store.js';
import type { ExceptionSpec } from './exceptions/matcher.js';
import type { HistoryBatchOutcome } from './history-matching.js';
import { runRuleJob } from './rule-workers.js';

/** Upper bound of events one historical test examines, so a test can never run unbounded. */
export const MAX_EVENTS_SCANNED = 2_000_000;
/** Stored events per rule-worker job of a historical test. */
const HISTORY_JOB_EVENTS = 500;
/** Parts of a history kept outside the database read at once (one per rule worker). */
const SCAN_SLICES = 2;

export interface HistoryTest {
  yaml: string;
  pattern: IndexPatternRow;
  exceptions: ExceptionSpec[];
  since: Date;
  until: Date;
  /** Matched events to answer as samples. */
  limit: number;
}

export interface HistoryTestOutcome {
  matches: number;
  excepted: number;
  scanned: number;
  truncated: boolean;
  samples: Record<string, unknown>[];
}

export async function testOverHistory(ctx: AppContext, test: HistoryTest): Promise<HistoryTestOutcome> {
  const out: HistoryTestOutcome = { matches: 0, excepted: 0, scanned: 0, truncated: false, samples: [] };
  const job = { kind: 'history' as const, yaml: test.yaml, pattern: test.pattern, exceptions: test.exceptions };
  const counted = (outcome: HistoryBatchOutcome): boolean => {
    out.matches += outcome.matched.length;
    out.excepted += outcome.excepted.length;
    out.scanned += outcome.count;
    if (out.scanned >= MAX_EVENTS_SCANNED) out.truncated = true;
    return !out.truncated;
  };
  const { history } = ctx;
  if (history.scanPages) {
    // Parts of the range scanned at once, each newest first: the newest samples of each part, then the newest of them all.
    const sampled: number[] = [];
    const candidates: Array<{ json: string; time: string }> = [];
    const visit = async (page: Uint8Array, part: number) => {
      const outcome = await runRuleJob(ctx, { ...job, page, samples: Math.max(0, test.limit - (sampled[part] ?? 0)) });
      sampled[part] = (sampled[part] ?? 0) + outcome.samples.length;
      candidates.push(...outcome.samples);
      return counted(outcome);
    };
    await history.scanPages(test.pattern.id, test.since, test.until, visit, { slices: SCAN_SLICES, upTo: MAX_EVENTS_SCANNED });
    candidates.sort((a, b) => Date.parse(b.time) - Date.parse(a.time));
    for (const s of candidates.slice(0, test.limit)) out.samples.push({ ...wireValue(parseJson(s.json) as Record<string, unknown>), timestamp: s.time });
    return out;
  }
  await history.scan(test.pattern.id, test.since, test.until, async (batch) => {
    let more = true;
    for (let start = 0; start < batch.length; start += HISTORY_JOB_EVENTS) {
      const part = batch.slice(start, start + HISTORY_JOB_EVENTS);
      const outcome = await runRuleJob(ctx, { ...job, events: part.map((e) => e.event) });
      for (const i of outcome.matched.slice(0, test.limit - out.samples.length)) out.samples.push({ ...wireValue(part[i].event), timestamp: part[i].eventTime.toISOString() });
      more = counted(outcome);
    }
    return more;
  });
  return out;
}

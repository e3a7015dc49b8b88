// What an exception would cover, before (or as) it is created: the rule's open alerts (new or
// acknowledged) whose stored event it matches, and the stored events of the last 7 days it would have
// suppressed (events the rule matches and the exception too). Both are matched on rule workers by the
// code that applies exceptions at ingest, a page of events at a time, and both are bounded: at most
// MAX_OPEN_ALERTS_SCANNED open alerts and MAX_PREVIEW_EVENTS stored events are read, and the answer says
// when a bound was reached (`capped`) and how much was read (`scanned`).
import type { AppContext } from '../../http/context.js';
import type { IndexPatternRow } from '../../index-patterns/store.js';
import { runRuleJob } from '../rule-workers.js';
import type { ExceptionSpec } from './matcher.js';
import { openAlertEvents } from './store.js';

/** Most open alerts read for one preview or close (the bound of a bulk change by filter). */
export const MAX_OPEN_ALERTS_SCANNED = 100_000;
/** Most stored events read for one preview. */
export const MAX_PREVIEW_EVENTS = 200_000;
/** Days of stored events a preview reads. */
export const PREVIEW_DAYS = 7;
const PAGE = 500;

export interface CoveredAlerts {
  ids: string[];
  scanned: number;
  capped: boolean;
}

/** The rule's open alerts whose event the exception matches. */
export async function coveredOpenAlerts(ctx: AppContext, ruleId: string, exception: ExceptionSpec): Promise<CoveredAlerts> {
  const ids: string[] = [];
  let scanned = 0;
  let after: string | null = null;
  for (;;) {
    const page = await openAlertEvents(ctx.db, ruleId, after, Math.min(PAGE, MAX_OPEN_ALERTS_SCANNED - scanned));
    if (page.length === 0) break;
    const covered = await runRuleJob(ctx, { kind: 'cover', exception, events: page.map((row) => row.event) });
    for (const i of covered) ids.push(page[i].id);
    scanned += page.length;
    after = page[page.length - 1].id;
    if (scanned >= MAX_OPEN_ALERTS_SCANNED) {
      const more = await openAlertEvents(ctx.db, ruleId, after, 1);
      return { ids, scanned, capped: more.length > 0 };
    }
    if (page.length < PAGE) break;
  }
  return { ids, scanned, capped: false };
}

export interface SuppressedEvents {
  suppressed: number;
  scanned: number;
  capped: boolean;
}

/** The stored events of the last PREVIEW_DAYS days the rule matches and the exception would suppress. */
export async function suppressedRecently(ctx: AppContext, yaml: string, pattern: IndexPatternRow, exception: ExceptionSpec): Promise<SuppressedEvents> {
  const until = new Date();
  const since = new Date(until.getTime() - PREVIEW_DAYS * 24 * 3600 * 1000);
  let suppressed = 0;
  let scanned = 0;
  let capped = false;
  await ctx.history.scan(pattern.id, since, until, async (batch) => {
    for (let start = 0; start < batch.length && !capped; start += PAGE) {
      const part = batch.slice(start, Math.min(start + PAGE, start + MAX_PREVIEW_EVENTS - scanned));
      const outcome = await runRuleJob(ctx, { kind: 'history', yaml, pattern, exceptions: [exception], events: part.map((e) => e.event) });
      suppressed += outcome.excepted.length;
      scanned += part.length;
      if (scanned >= MAX_PREVIEW_EVENTS) capped = true;
    }
    return !capped;
  });
  return { suppressed, scanned, capped };
}

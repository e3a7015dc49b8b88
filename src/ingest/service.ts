// The one ingest pipeline every door calls (POST /api/logs/{pattern}, the Elasticsearch-compatible
// _bulk facade): check each event, match the accepted ones against the pattern's deployed rules, then
// store the events, count their fields and write their alerts in one transaction. When it resolves,
// every accepted event is durably stored and matched and its alerts are written; re-sending the same
// events stores nothing twice and raises no alert twice.
import { createHash } from 'node:crypto';
import type { AppContext } from '../http/context.js';
import { insertAlerts } from '../alerts/store.js';
import type { IndexPatternRow } from '../index-patterns/store.js';
import { MAX_EVENT_DEPTH, makeAccessor, nestedTooDeep } from '../sigma/index.js';
import { detect, type AcceptedEvent } from './detection.js';
import { eventTime, unstorableText } from './event-checks.js';
import { recordFields } from './field-catalogue.js';

export interface IngestItem {
  /** Position of the event in the request (reported back with its error). */
  index: number;
  event: Record<string, unknown>;
}

export interface IngestOutcome {
  accepted: number;
  alertsCreated: number;
  /** The rejected events, by their request position, in ascending order. */
  errors: { index: number; error: string }[];
  /** Request positions of the accepted events. */
  acceptedIndexes: number[];
}

/** Largest event accepted, in characters of its JSON (a bigger one is rejected alone). */
export const MAX_EVENT_CHARS = 1024 * 1024;

export type IngestContext = Pick<AppContext, 'db' | 'backend' | 'history' | 'enricher'>;

/** Checks one event; answers it ready to store, or the reason it is refused. */
function accept(pattern: IndexPatternRow, timestampField: ReturnType<typeof makeAccessor>, event: Record<string, unknown>, now: Date): AcceptedEvent | string {
  if (nestedTooDeep(event)) return `the event is nested deeper than ${MAX_EVENT_DEPTH} levels`;
  const problem = unstorableText(event);
  if (problem) return problem;
  const time = eventTime(timestampField, event, now);
  if (!time) return `the timestamp in '${pattern.timestamp_field}' is out of range (years 1 to 9999)`;
  const json = JSON.stringify(event);
  if (json.length > MAX_EVENT_CHARS) return `the event is larger than ${MAX_EVENT_CHARS / 1024 / 1024} MiB of JSON`;
  return { time, hash: createHash('sha256').update(json).digest('hex'), json, event };
}

export async function ingestEvents(ctx: IngestContext, pattern: IndexPatternRow, items: IngestItem[], rejected: { index: number; error: string }[] = []): Promise<IngestOutcome> {
  const now = new Date();
  const errors = [...rejected];
  const timestampField = makeAccessor(pattern.timestamp_field);
  const accepted: AcceptedEvent[] = [];
  const acceptedIndexes: number[] = [];
  for (const { index, event } of items) {
    const outcome = accept(pattern, timestampField, event, now);
    if (typeof outcome === 'string') errors.push({ index, error: outcome });
    else {
      accepted.push(outcome);
      acceptedIndexes.push(index);
    }
  }
  errors.sort((a, b) => a.index - b.index);
  // Matching runs before the transaction: the database is held only for the writes.
  const alerts = await detect(ctx.db, ctx.backend, ctx.enricher, pattern, accepted);
  const alertsCreated = await ctx.db.transaction(async (tx) => {
    // The catalogue counts stored events: a repeat (kept once) is not counted again.
    const stored = await ctx.history.store(tx, pattern.id, accepted);
    const counted = accepted.filter((e) => stored.delete(e.hash));
    await recordFields(tx, pattern.id, counted.map((e) => e.event));
    return insertAlerts(tx, alerts);
  });
  return { accepted: accepted.length, alertsCreated, errors, acceptedIndexes };
}

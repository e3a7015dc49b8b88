// The one ingest pipeline every door calls (POST /api/logs/{pattern}, the Elasticsearch-compatible
// _bulk facade): check each event, match the accepted ones against the pattern's deployed rules, then
// store the events, count their fields and write their alerts in one transaction. A big request goes
// through in chunks, each matched and committed on its own in the database's ingest lane, sized to
// about 0.1 s of writing (chunk-size.ts), with other requests served between chunks: the ingest
// transactions of concurrent requests take turns, and a read waits behind at most one of them. When it resolves, every accepted event is durably stored and matched and its alerts
// are written; re-sending the same events stores nothing twice and raises no alert twice, so a request
// that fails part-way (its answer says how many events were stored) is simply sent again. An event the
// matcher refuses (matching it could exceed the per-event work budget) is rejected alone, like an event
// too large to store: reported in `errors`, not stored, so no stored event ever escapes a deployed rule.
import type { AppContext } from '../http/context.js';
import { BackendUnavailableError } from '../backends/backend.js';
import { HttpError } from '../http/errors.js';
import { raiseAlerts } from './suppression.js';
import { eventTimeAccessor } from './event-time-fields.js';
import type { IndexPatternRow } from '../index-patterns/store.js';
import type { makeAccessor} from '../sigma/index.js';
import { MAX_EVENT_DEPTH, nestedTooDeep } from '../sigma/index.js';
import { draftAlerts, matchedRules, matchEvents, ruleIdsOf, type AcceptedEvent, type Matches } from './detection.js';
import { eventTime, unstorableJson } from './event-checks.js';
import { eventHash } from './event-hash.js';
import { countFields, recordFields, withoutFieldsOf } from './field-catalogue.js';
import { correlationPlan, type CorrelationPlan } from '../correlation/plan.js';
import { ChunkSize, INGEST_CHUNK } from './chunk-size.js';
import { correlate } from '../correlation/correlate.js';
import { forgetStates } from '../correlation/states.js';
import { addExceptionHits } from '../rules/exceptions/store.js';
import { stringifyJson } from '../http/exact-json.js';

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
  /** For the operator's log: correlation bounds reached, late events dropped, correlations that cannot run. */
  warnings: string[];
}

/** Largest event accepted, in characters of its JSON (a bigger one is rejected alone). */
export const MAX_EVENT_CHARS = 1024 * 1024;

export type IngestContext = Pick<AppContext, 'db' | 'backend' | 'history' | 'enricher' | 'config'>;

/** Checks one event; answers it ready to store, or the reason it is refused. */
function accept(pattern: IndexPatternRow, timestampField: ReturnType<typeof makeAccessor>, event: Record<string, unknown>, now: Date): AcceptedEvent | string {
  if (nestedTooDeep(event)) return `the event is nested deeper than ${MAX_EVENT_DEPTH} levels`;
  const time = eventTime(timestampField, event, now);
  if (!time) return `the timestamp in '${pattern.timestamp_field}' is out of range (years 1 to 9999)`;
  // The numbers the body held are written as sent (exact-json.ts); the matcher reads this text back.
  const json = stringifyJson(event);
  if (json.length > MAX_EVENT_CHARS) return `the event is larger than ${MAX_EVENT_CHARS / 1024 / 1024} MiB of JSON`;
  const problem = unstorableJson(json);
  if (problem) return problem;
  return { time, hash: eventHash(event, json), json, event };
}

/** The items sorted by their event time (stable: equal times keep the request's order). */
function inEventTimeOrder(items: IngestItem[], timestampField: ReturnType<typeof makeAccessor>, now: Date): IngestItem[] {
  const times = new Map<IngestItem, number>();
  for (const item of items) times.set(item, (eventTime(timestampField, item.event, now) ?? now).getTime());
  return [...items].sort((a, b) => times.get(a)! - times.get(b)!);
}

export { INGEST_CHUNK };

/** Events checked between two turns of the event loop (about 5 ms of work). */
const CHECK_SLICE = 250;

const otherRequestsRun = () => new Promise((resolve) => setImmediate(resolve));

export async function ingestEvents(ctx: IngestContext, pattern: IndexPatternRow, items: IngestItem[], rejected: { index: number; error: string }[] = []): Promise<IngestOutcome> {
  const now = new Date();
  const errors = [...rejected];
  const timestampField = eventTimeAccessor(pattern);
  const acceptedIndexes: number[] = [];
  let alertsCreated = 0;
  const warnings: string[] = [];
  // Correlations count matches in event time: a request of several chunks is matched in that order.
  const ordered = items.length > INGEST_CHUNK && (await correlationPlan(ctx, ctx.db, pattern, ctx.config.correlationLatenessMs)) ? inEventTimeOrder(items, timestampField, now) : items;
  // Each chunk is checked and sent to matching (on the matcher thread) before the chunk ahead of it is
  // written, so matching one overlaps writing the other. The checks run in slices: the statements of
  // the transaction ahead are sent between them, so the database thread is not left waiting.
  const prepare = async (start: number, size: number): Promise<PreparedChunk> => {
    const accepted: AcceptedEvent[] = [];
    const indexes: number[] = [];
    const refused: PreparedChunk['refused'] = [];
    const slice = ordered.slice(start, start + size);
    for (let i = 0; i < slice.length; i++) {
      if (i > 0 && i % CHECK_SLICE === 0) await otherRequestsRun();
      const { index, event } = slice[i];
      const outcome = accept(pattern, timestampField, event, now);
      if (typeof outcome === 'string') refused.push({ index, error: outcome });
      else {
        accepted.push(outcome);
        indexes.push(index);
      }
    }
    const matching = matchEvents(ctx.backend, pattern, accepted);
    // Awaited in turn below; a chunk never reached (an earlier one failed) must not fail unobserved.
    matching.catch(() => {});
    // Looked up while the chunk is matched: each query outside a transaction waits for the chunks being
    // written before it, so the chunk's reads wait once, together.
    const planning = correlationPlan(ctx, ctx.db, pattern, ctx.config.correlationLatenessMs);
    planning.catch(() => {});
    // Counted before the chunk's transaction, which holds the database only for its own statements.
    const fields = countFields(accepted.map((e) => e.event));
    return { end: start + slice.length, accepted, indexes, refused, matching, planning, fields };
  };
  const size = new ChunkSize(pattern.id);
  let next: Promise<PreparedChunk> | undefined = ordered.length > 0 ? prepare(0, size.events) : undefined;
  while (next) {
    const chunk = await next;
    next = chunk.end < ordered.length ? prepare(chunk.end, size.events) : undefined;
    // Awaited in turn; left unobserved only when this chunk fails.
    next?.catch(() => {});
    errors.push(...chunk.refused);
    try {
      const created = await storeChunk(ctx, pattern, chunk, warnings, errors);
      alertsCreated += created;
      size.record(chunk.accepted.length, created);
    } catch (error) {
      throw acceptedIndexes.length === 0 ? error : partlyStored(error, acceptedIndexes.length, items.length);
    }
    acceptedIndexes.push(...chunk.indexes);
  }
  errors.sort((a, b) => a.index - b.index);
  return { accepted: acceptedIndexes.length, alertsCreated, errors, acceptedIndexes, warnings };
}

/** A chunk's events checked, and their matching under way. */
interface PreparedChunk {
  /** Where the next chunk starts in the request. */
  end: number;
  accepted: AcceptedEvent[];
  /** Request positions of the accepted events. */
  indexes: number[];
  refused: { index: number; error: string }[];
  matching: Promise<Matches>;
  /** The pattern's correlation plan, looked up at the same time. */
  planning: Promise<CorrelationPlan | null>;
  /** The fields of the accepted events, counted as if every one is stored for the first time. */
  fields: Map<string, number>;
}

/**
 * Takes the events the matcher refused out of a matched chunk (they are reported in `errors`, not
 * stored) and answers the matches of the rest.
 */
function withoutRefused(chunk: PreparedChunk, matches: Matches, errors: IngestOutcome['errors'], warnings: string[]): Matches {
  if (matches.refused.length === 0) return matches;
  const refused = new Set(matches.refused.map((r) => r.index));
  for (const { index, reason } of matches.refused) errors.push({ index: chunk.indexes[index], error: reason });
  warnings.push(`${matches.refused.length} event(s) rejected: matching them could exceed the per-event work budget`);
  const kept = (_: unknown, i: number) => !refused.has(i);
  chunk.accepted = chunk.accepted.filter(kept);
  chunk.indexes = chunk.indexes.filter(kept);
  chunk.fields = countFields(chunk.accepted.map((e) => e.event));
  const hits = matches.hits.filter(kept);
  return { hits, refused: [], excepted: matches.excepted, ruleIds: ruleIdsOf(hits) };
}

/** Once a chunk is matched, stores its events, their fields and their alerts in one transaction (in
 * the database's ingest lane); answers the alerts created. */
async function storeChunk(ctx: IngestContext, pattern: IndexPatternRow, chunk: PreparedChunk, warnings: string[], errors: IngestOutcome['errors']): Promise<number> {
  if (chunk.accepted.length === 0) return 0;
  // Matching runs before the transaction: the database is held only for the reads and writes.
  const matches = withoutRefused(chunk, await chunk.matching, errors, warnings);
  const { accepted } = chunk;
  if (accepted.length === 0) return 0;
  const plan = await chunk.planning;
  if (plan) warnings.push(...plan.takeWarnings());
  // The alerts are drafted before the transaction (a read outside it waits behind at most one ingest
  // transaction), so the transaction holds the database only for its writes.
  const { alerts, seen } = draftAlerts(matches, await matchedRules(ctx.db, matches.ruleIds), ctx.enricher, pattern, accepted);
  let fresh: Map<string, number> | undefined;
  let created: number;
  try {
    created = await ctx.db.transaction(async (tx) => {
      // Sent together, without waiting for each other's answers: the database runs them in order.
      const storing = ctx.history.store(tx, pattern.id, accepted);
      const drafts = alerts.map((alert, i) => ({ alert, event: seen[i] })).filter((d) => !plan?.silenced.has(d.alert.ruleId));
      const alerting = raiseAlerts(tx, drafts);
      // Observed below; a failure meanwhile must not count as unhandled.
      for (const pending of [storing, alerting]) pending.catch(() => {});
      // The matches each exception suppressed, added to its count once for the chunk.
      const countingHits = matches.excepted ? addExceptionHits(tx, matches.excepted) : undefined;
      countingHits?.catch(() => {});
      const [stored, created] = await Promise.all([storing, alerting, countingHits]);
      const isNew = new Set(stored);
      const repeats = accepted.filter((e) => !stored.delete(e.hash));
      // The catalogue counts stored events: the chunk's counts less those of the repeats (kept once).
      fresh = withoutFieldsOf(chunk.fields, repeats.map((e) => e.event));
      if (!plan) return created;
      // Only events stored for the first time count in correlation windows.
      const inputs = alerts.flatMap((draft, i) => (isNew.has(draft.eventHash) ? [{ draft, event: seen[i] }] : []));
      const correlated = await correlate(ctx, tx, pattern, plan, inputs);
      warnings.push(...correlated.warnings);
      return created + (await raiseAlerts(tx, correlated.alerts.map((alert) => ({ alert, event: {} }))));
    }, { lane: 'ingest' });
  } catch (error) {
    if (plan) forgetStates(ctx);
    throw error;
  }
  // Written after the commit, in a statement of its own: the catalogue's rows are shared by every
  // writer of the pattern, and holding them for the whole transaction made its writers take turns.
  // The events are stored whatever happens here: a failure costs the catalogue this chunk's counts.
  try {
    if (fresh) await recordFields(ctx.db, pattern.id, fresh);
  } catch (error) {
    warnings.push(`The events are stored, but the field catalogue could not count their fields: ${error instanceof Error ? error.message : String(error)}`);
  }
  return created;
}

/** The answer to a request that failed after some of its chunks were committed: it says how many
 * events are stored and asks for the request again (what is stored is not stored twice). */
function partlyStored(error: unknown, stored: number, total: number): HttpError {
  const cause = error instanceof BackendUnavailableError || error instanceof HttpError ? error.message : 'The events could not be stored';
  const answer = new HttpError(
    503,
    `${cause}; ${stored} of the request's ${total} events were stored before this failure: send the request again (events already stored are not stored twice)`,
    undefined,
    { 'Retry-After': '5' },
  );
  // Logged with the answer (a 5xx is logged), so the original failure stays visible.
  answer.cause = error;
  return answer;
}

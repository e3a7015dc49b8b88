// Adding and removing threat-intel feeds: the content is parsed (see formats/), its indicators written
// in batches while the feed is 'loading' (so neither the event loop nor the embedded database is held
// for long, and no instance sees half a feed), then the feed is made active with the version bump that
// every instance's lookup follows; this instance's lookup takes the new feed at once.
import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { AppContext } from '../http/context.js';
import { badRequest, notFound } from '../http/errors.js';
import { FeedFormatError, parseFeedInSteps, type FeedFormat, type ParsedFeed } from './formats/index.js';
import type { IndicatorType } from './indicators.js';
import { ThreatIntelLookup } from './lookup.js';
import { DEFAULT_FEED_SCORE } from './scoring.js';
import { activateFeed, analyseIndicators, deleteFeed, discardLoadingFeed, insertIndicators, insertLoadingFeed, purgeStaleLoadingFeeds, type AlongWith, type FeedRow } from './store.js';

export const FEED_NOT_FOUND = 'Feed not found';
/** Most indicators one feed may hold. */
export const MAX_INDICATORS_PER_FEED = 1_000_000;
/** Indicators written per statement (a statement on the embedded database holds the event loop). */
const WRITE_BATCH = 1000;
/** From this many indicators on, the planner statistics are refreshed after writing a feed. */
const ANALYSE_FROM = 20_000;

export interface NewFeed {
  name: string;
  format: FeedFormat;
  type?: IndicatorType;
  content: string;
  risk_score?: number;
}

/** The lookup of this process when it keeps one (the enricher of the service). */
const lookupOf = (ctx: Pick<AppContext, 'enricher'>) => (ctx.enricher instanceof ThreatIntelLookup ? ctx.enricher : undefined);

/** Parses the upload a few thousand entries at a time, letting other requests run in between. */
async function parse(input: NewFeed): Promise<ParsedFeed> {
  let parsed: ParsedFeed;
  try {
    const steps = parseFeedInSteps(input.format, input.content, { type: input.type, maxIndicators: MAX_INDICATORS_PER_FEED });
    for (;;) {
      const step = steps.next();
      if (step.done) {
        parsed = step.value;
        break;
      }
      await nextTurn();
    }
  } catch (error) {
    if (error instanceof FeedFormatError) throw badRequest(error.message, [{ field: 'body.content', message: error.message }]);
    throw error;
  }
  if (parsed.indicators.length === 0) {
    const entries = (n: number) => `${n} ${n === 1 ? 'entry' : 'entries'}`;
    const why = parsed.rejected > 0 ? `${entries(parsed.rejected)} rejected` : parsed.skipped > 0 ? `${entries(parsed.skipped)} skipped as not indicators` : 'the content is empty';
    throw badRequest(
      `The feed holds no valid indicators (${why})`,
      parsed.problems.map((p) => ({ field: 'body.content', message: `${p.at}: ${p.reason}` })),
    );
  }
  return parsed;
}

/** Stores a feed; `audit` records the change in the transaction that makes the feed visible. */
export async function createFeed(ctx: Pick<AppContext, 'db' | 'enricher'>, input: NewFeed, actor: string, audit: AlongWith): Promise<{ row: FeedRow; parsed: ParsedFeed }> {
  const parsed = await parse(input);
  await purgeStaleLoadingFeeds(ctx.db);
  const typeCounts: Record<string, number> = {};
  for (const indicator of parsed.indicators) typeCounts[indicator.type] = (typeCounts[indicator.type] ?? 0) + 1;
  const id = randomUUID();
  await insertLoadingFeed(ctx.db, {
    id,
    name: input.name,
    format: input.format,
    type: input.type ?? null,
    risk_score: input.risk_score ?? DEFAULT_FEED_SCORE,
    indicator_count: parsed.indicators.length,
    rejected_count: parsed.rejected,
    type_counts: typeCounts,
    created_by: actor,
  });
  let row: FeedRow;
  try {
    for (let start = 0; start < parsed.indicators.length; start += WRITE_BATCH) {
      await insertIndicators(ctx.db, id, parsed.indicators.slice(start, start + WRITE_BATCH));
      await nextTurn();
    }
    if (parsed.indicators.length >= ANALYSE_FROM) await analyseIndicators(ctx.db);
    row = await activateFeed(ctx.db, id, audit);
  } catch (error) {
    await discardLoadingFeed(ctx.db, id).catch(() => {});
    throw error;
  }
  // The feed is stored: should this instance fail to take it now, its next poll does.
  await lookupOf(ctx)?.sync({ id, indicators: parsed.indicators }).catch(() => {});
  return { row, parsed };
}

/** Deletes a feed; `audit` records the change in the same transaction. */
export async function removeFeed(ctx: Pick<AppContext, 'db' | 'enricher'>, id: string, audit: AlongWith): Promise<FeedRow> {
  const row = await deleteFeed(ctx.db, id, audit);
  if (!row) throw notFound(FEED_NOT_FOUND);
  await lookupOf(ctx)?.sync().catch(() => {});
  return row;
}

// SQL of threat-intel feeds: feed rows (written as 'loading', made 'active' with the version bump once
// every indicator is stored), indicators written and read in batches, and the shared version number.
import type { Database, Queryable } from '../db/database.js';
import type { Indicator, IndicatorType } from './indicators.js';

export interface FeedRow {
  id: string;
  name: string;
  format: string;
  type: string | null;
  risk_score: number;
  indicator_count: number;
  rejected_count: number;
  type_counts: Record<string, number>;
  created_by: string;
  created_at: Date;
  [key: string]: unknown;
}

export const FEED_COLUMNS = 'id, name, format, type, risk_score, indicator_count, rejected_count, type_counts, created_by, created_at';

/** A feed still being written after this long was left by a stopped process; it is removed. */
const STALE_LOADING = '1 hour';

export async function insertLoadingFeed(
  db: Queryable,
  feed: Pick<FeedRow, 'id' | 'name' | 'format' | 'type' | 'risk_score' | 'indicator_count' | 'rejected_count' | 'type_counts' | 'created_by'>,
): Promise<void> {
  await db.query(
    `INSERT INTO threat_intel_feeds (id, name, format, type, risk_score, indicator_count, rejected_count, type_counts, created_by, status)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'loading')`,
    [feed.id, feed.name, feed.format, feed.type, feed.risk_score, feed.indicator_count, feed.rejected_count, JSON.stringify(feed.type_counts), feed.created_by],
  );
}

/** Writes a batch of a feed's indicators in one statement (arrays unnested: one round trip per batch). */
export async function insertIndicators(db: Queryable, feedId: string, batch: Indicator[]): Promise<void> {
  await db.query(
    `INSERT INTO threat_intel_indicators (feed_id, type, value, score, description, source)
     SELECT $1, t, v, s, d, src FROM unnest($2::text[], $3::text[], $4::smallint[], $5::text[], $6::text[]) AS x(t, v, s, d, src)
     ON CONFLICT DO NOTHING`,
    [
      feedId,
      batch.map((i) => i.type),
      batch.map((i) => i.value),
      batch.map((i) => i.score ?? null),
      batch.map((i) => i.description ?? null),
      batch.map((i) => i.source ?? null),
    ],
  );
}

async function bumpVersion(tx: Queryable): Promise<void> {
  await tx.query('UPDATE threat_intel_version SET version = version + 1');
}

/** Work done in the transaction of a feed change (its audit entry). */
export type AlongWith = (tx: Queryable, row: FeedRow) => Promise<void>;

/** Makes a fully written feed visible (lists, lookups on every instance). */
export async function activateFeed(db: Database, id: string, alongWith: AlongWith): Promise<FeedRow> {
  return db.transaction(async (tx) => {
    const [row] = await tx.query<FeedRow>(`UPDATE threat_intel_feeds SET status = 'active' WHERE id = $1 RETURNING ${FEED_COLUMNS}`, [id]);
    await bumpVersion(tx);
    await alongWith(tx, row);
    return row;
  });
}

/** Removes an active feed and its indicators; the removed row, or undefined when there was none. */
export async function deleteFeed(db: Database, id: string, alongWith: AlongWith): Promise<FeedRow | undefined> {
  return db.transaction(async (tx) => {
    const [row] = await tx.query<FeedRow>(`DELETE FROM threat_intel_feeds WHERE id = $1 AND status = 'active' RETURNING ${FEED_COLUMNS}`, [id]);
    if (!row) return undefined;
    await bumpVersion(tx);
    await alongWith(tx, row);
    return row;
  });
}

/** Removes a feed whose writing failed (it was never active, so no instance holds it). */
export async function discardLoadingFeed(db: Queryable, id: string): Promise<void> {
  await db.query(`DELETE FROM threat_intel_feeds WHERE id = $1 AND status = 'loading'`, [id]);
}

export async function purgeStaleLoadingFeeds(db: Queryable): Promise<void> {
  await db.query(`DELETE FROM threat_intel_feeds WHERE status = 'loading' AND created_at < now() - interval '${STALE_LOADING}'`);
}

export async function findActiveFeed(db: Queryable, id: string): Promise<FeedRow | undefined> {
  const [row] = await db.query<FeedRow>(`SELECT ${FEED_COLUMNS} FROM threat_intel_feeds WHERE id = $1 AND status = 'active'`, [id]);
  return row;
}

export async function readVersion(db: Queryable): Promise<number> {
  const [row] = await db.query<{ version: string | number }>('SELECT version FROM threat_intel_version');
  return Number(row?.version ?? 0);
}

export async function activeFeeds(db: Queryable): Promise<Pick<FeedRow, 'id' | 'name' | 'risk_score'>[]> {
  return db.query(`SELECT id, name, risk_score FROM threat_intel_feeds WHERE status = 'active'`);
}

export interface IndicatorKey {
  type: IndicatorType;
  value: string;
}

export interface IndicatorPage {
  types: IndicatorType[];
  values: string[];
  scores: (number | null)[];
}

/**
 * The next page of a feed's indicators after `after` (in key order), as three arrays: one row per page
 * instead of one per indicator is several times faster to read, above all on the embedded database.
 */
export async function indicatorPage(db: Queryable, feedId: string, after: IndicatorKey | undefined, limit: number): Promise<IndicatorPage> {
  const [row] = await db.query<{ types: IndicatorType[] | null; values: string[] | null; scores: (number | null)[] | null }>(
    `SELECT array_agg(type ORDER BY type, value) AS types, array_agg(value ORDER BY type, value) AS values, array_agg(score ORDER BY type, value) AS scores
     FROM (SELECT type, value, score FROM threat_intel_indicators
           WHERE feed_id = $1 AND (type, value) > ($2, $3) ORDER BY type, value LIMIT $4) AS page`,
    [feedId, after?.type ?? '', after?.value ?? '', limit],
  );
  return { types: row?.types ?? [], values: row?.values ?? [], scores: row?.scores ?? [] };
}

/** Refreshes the planner's statistics after a large feed is written, so paging reads it by its index
 * (the embedded database has no autovacuum to do it). */
export async function analyseIndicators(db: Queryable): Promise<void> {
  await db.query('ANALYZE threat_intel_indicators');
}

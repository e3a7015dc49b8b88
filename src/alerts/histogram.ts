// How many alerts the list's filters match per slice of event time (`event_time`, the events' own
// time): at most MAX_HISTOGRAM_BUCKETS slices of one round width (1 s … 1 day, then whole days),
// aligned on multiples of that width since the Unix epoch (so day slices start at UTC midnight). The
// range is the event_after/event_before bounds when given, else the matching alerts' first and last
// event. The work is bounded like the list's own total: one min/max read (only when a bound is missing)
// and one grouped count over the matching alerts; a search counts at most SEARCH_COUNT_LIMIT matches.
import type { Queryable } from '../db/database.js';
import { alertConditions, SEARCH_COUNT_LIMIT, type AlertListQuery } from './queries.js';

export const MAX_HISTOGRAM_BUCKETS = 200;
export const DEFAULT_HISTOGRAM_BUCKETS = 60;

/** Slice widths in seconds, smallest first; beyond the last, whole days. */
const WIDTHS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];

export interface Histogram {
  buckets: { start: string; count: number }[];
  /** The width of every bucket; 0 when there is no range (no bounds given and no alert matches). */
  interval_seconds: number;
  /** The range asked for or found (null with no range). */
  start: string | null;
  end: string | null;
  /** The sum of the counts. */
  total: number;
  /** False when a search matched more than SEARCH_COUNT_LIMIT alerts: only that many were counted. */
  total_exact: boolean;
}

/** The narrowest round width that covers [fromMs, toMs) in at most `buckets` aligned slices. */
export function bucketWidth(fromMs: number, toMs: number, buckets: number): number {
  const spanSeconds = Math.max(1, (toMs - fromMs) / 1000);
  const fits = (width: number) => Math.ceil(toMs / 1000 / width) - Math.floor(fromMs / 1000 / width) <= buckets;
  for (const width of WIDTHS) if (width * buckets >= spanSeconds && fits(width)) return width;
  // Widening by about 1% a step keeps the loop short for any span (a width twice the span always fits two slices).
  let days = Math.max(1, Math.ceil(spanSeconds / 86400 / buckets));
  while (!fits(days * 86400)) days += Math.max(1, Math.floor(days / 100));
  return days * 86400;
}

interface RangeRow {
  first: Date | null;
  last: Date | null;
  [column: string]: unknown;
}

/** The first and last event time of the matching alerts (both null when none match). */
async function eventRange(db: Queryable, q: AlertListQuery): Promise<RangeRow> {
  const where = alertConditions(q);
  const source = q.search ? `(SELECT event_time FROM alerts ${where.sql} LIMIT ${SEARCH_COUNT_LIMIT + 1}) m` : `alerts ${where.sql}`;
  const [row] = await db.query<RangeRow>(`SELECT min(event_time) AS first, max(event_time) AS last FROM ${source}`, where.params);
  return row;
}

export async function alertHistogram(db: Queryable, q: AlertListQuery, buckets: number): Promise<Histogram> {
  let fromMs = q.event_after ? Date.parse(q.event_after) + 1 : NaN;
  let toMs = q.event_before ? Date.parse(q.event_before) : NaN;
  if (Number.isNaN(fromMs) || Number.isNaN(toMs)) {
    const found = await eventRange(db, q);
    if (Number.isNaN(fromMs)) fromMs = found.first ? found.first.getTime() : NaN;
    // The last event must fall inside the range, which is exclusive at its end.
    if (Number.isNaN(toMs)) toMs = found.last ? found.last.getTime() + 1 : NaN;
  }
  if (Number.isNaN(fromMs) || Number.isNaN(toMs) || toMs <= fromMs) {
    const empty = Number.isNaN(fromMs) || Number.isNaN(toMs);
    return { buckets: [], interval_seconds: 0, start: empty ? null : new Date(fromMs).toISOString(), end: empty ? null : new Date(toMs).toISOString(), total: 0, total_exact: true };
  }

  const width = bucketWidth(fromMs, toMs, buckets);
  const firstSlice = Math.floor(fromMs / 1000 / width);
  const slices = Math.ceil(toMs / 1000 / width) - firstSlice;
  const where = alertConditions(q);
  // The slice of each alert, counted from the epoch in whole widths (an index on event_time serves the range).
  const slice = `floor(extract(epoch FROM event_time) / ${width})::bigint - ${firstSlice}`;
  const inRange = `event_time >= to_timestamp(${fromMs / 1000}) AND event_time < to_timestamp(${toMs / 1000})`;
  const whereSql = where.sql ? `${where.sql} AND ${inRange}` : `WHERE ${inRange}`;
  const source = q.search ? `(SELECT event_time FROM alerts ${whereSql} LIMIT ${SEARCH_COUNT_LIMIT + 1}) m` : `alerts ${whereSql}`;
  const rows = await db.query<{ slice: string; count: number }>(`SELECT ${slice} AS slice, count(*)::int AS count FROM ${source} GROUP BY 1`, where.params);

  const counts = new Array<number>(slices).fill(0);
  for (const row of rows) {
    const index = Number(row.slice);
    if (index >= 0 && index < slices) counts[index] += row.count;
  }
  const total = counts.reduce((a, n) => a + n, 0);
  return {
    buckets: counts.map((count, i) => ({ start: new Date((firstSlice + i) * width * 1000).toISOString(), count })),
    interval_seconds: width,
    start: new Date(fromMs).toISOString(),
    end: new Date(toMs).toISOString(),
    total: Math.min(total, q.search ? SEARCH_COUNT_LIMIT : total),
    total_exact: !q.search || total <= SEARCH_COUNT_LIMIT,
  };
}

// A page of a pattern's event history as the cluster answers a scan (the search answer, hits with
// their `_source` and `sort`), kept as bytes: the service's main thread only finds where the next page
// starts (the last hit's sort values, read from the end of the answer), and the page is decoded and
// parsed where its events are matched (a rule worker), with the numbers as stored (exact-json.ts) only
// when its events are answered.
import { parseJson } from '../../http/exact-json.js';

export interface PageEvent {
  /** The event's time, ISO 8601. */
  time: string;
  event: Record<string, unknown>;
}

interface PageAnswer {
  hits?: { hits?: Array<{ _source: { event_time: string; event: Record<string, unknown> }; sort?: unknown[] }> };
}

/** UTF-8 text of bytes (Buffer's decoding: faster than TextDecoder's on large input). */
const utf8 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');

/** The events of a page, in the cluster's order; `exact` keeps numbers a double would change as sent. */
export function eventsOfPage(page: Uint8Array, exact: boolean): PageEvent[] {
  const text = utf8(page);
  const answer = (exact ? parseJson(text) : JSON.parse(text)) as PageAnswer;
  return (answer.hits?.hits ?? []).map((h) => ({ time: h._source.event_time, event: h._source.event }));
}

/** What follows the last hit's sort values in a page: the ends of the hit, the hits array, `hits` and the answer. */
const PAGE_END = /^\}\s*\]\s*\}\s*\}\s*$/;
/** Bytes at the end of a page that hold the last hit's sort values (a time and a 64-character hash). */
const TAIL = 512;

/** The last hit's sort values (where the next page starts); undefined for a page without hits. */
export function lastSortOf(page: Uint8Array): unknown[] | undefined {
  // The sort values are a time and a hash, so the array holds no `]`: read them from the end when the
  // answer ends as a page does; otherwise parse it whole.
  const tail = utf8(page.subarray(Math.max(0, page.length - TAIL)));
  const at = tail.lastIndexOf('"sort":[');
  const end = at < 0 ? -1 : tail.indexOf(']', at);
  if (end > 0 && PAGE_END.test(tail.slice(end + 1))) return JSON.parse(tail.slice(at + 7, end + 1)) as unknown[];
  const hits = (JSON.parse(utf8(page)) as PageAnswer).hits?.hits ?? [];
  return hits.length > 0 ? hits[hits.length - 1].sort : undefined;
}

/**
 * The `k`-th of `parts` slices of a family's events (parts ≤ 16), by the first hex digit of their hash
 * (a sha256, so the slices are near equal): a range filter over the indexed `hash`.
 */
export function hashSlice(k: number, parts: number): object {
  const bound = (i: number) => Math.floor((16 * i) / parts).toString(16);
  return { range: { hash: { ...(k > 0 ? { gte: bound(k) } : {}), ...(k < parts - 1 ? { lt: bound(k + 1) } : {}) } } };
}

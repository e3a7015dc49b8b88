// Process starts of one host read from a pattern's event indices, for an alert's process tree: a term
// query on the indexed `host` entity within the window, read outward from the alert's time on both
// sides (the nearest first) in pages, keeping the events whose text marks a process start. Bounded as
// the database's reading is (process-tree-store.ts): at most MAX_SCANNED_EVENTS read, MAX_CANDIDATES kept.
import type { Client } from '@opensearch-project/opensearch';
import { MAX_CANDIDATES, MAX_SCANNED_EVENTS, START_MARKS } from '../../alerts/process-tree-store.js';
import type { ProcessStarts } from '../backend.js';
import { send } from './client.js';
import { familyFilter } from './event-days.js';

const PAGE = 5000;

interface Hits {
  hits: { hits: Array<{ _id: string; sort: unknown[]; _source: { event_time: string; event: Record<string, unknown> } }> };
}

export async function processStartsOnHost(client: Client, family: string, members: string[], around: Date, host: string, windowMs: number): Promise<ProcessStarts> {
  const at = around.getTime();
  const sides = [
    { range: { gte: new Date(at).toISOString(), lte: new Date(at + windowMs).toISOString() }, order: 'asc' },
    { range: { gte: new Date(at - windowMs).toISOString(), lt: new Date(at).toISOString() }, order: 'desc' },
  ];
  const found: ProcessStarts = { events: [], scanned: 0, truncated: false };
  for (const side of sides) {
    let read = 0;
    let after: unknown[] | undefined;
    for (;;) {
      const answer = await send<Hits>(client, {
        method: 'POST',
        path: `/${family}*/_search`,
        query: { ignore_unavailable: true, allow_no_indices: true },
        body: {
          query: { bool: { filter: [{ term: { host } }, { range: { event_time: side.range } }, familyFilter(members)] } },
          sort: [{ event_time: side.order }, { hash: 'asc' }],
          size: PAGE,
          track_total_hits: false,
          _source: ['event_time', 'event'],
          ...(after ? { search_after: after } : {}),
        },
      });
      const hits = answer.hits.hits;
      read += hits.length;
      for (const hit of hits) {
        const json = JSON.stringify(hit._source.event);
        if (START_MARKS.some((mark) => json.includes(mark))) found.events.push({ hash: hit._id, time: new Date(hit._source.event_time), json });
      }
      if (found.events.length > MAX_CANDIDATES) {
        found.events.length = MAX_CANDIDATES;
        found.truncated = true;
        break;
      }
      if (hits.length < PAGE) break;
      if (read >= MAX_SCANNED_EVENTS / 2) {
        found.truncated = true;
        break;
      }
      after = hits[hits.length - 1].sort;
    }
    found.scanned += read;
  }
  return found;
}

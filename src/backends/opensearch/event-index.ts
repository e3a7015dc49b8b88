// Event history on the cluster: one index per pattern (`svc-events-{pattern}`), each event a document
// whose id is its content hash (so a re-delivered event is kept once) holding the event as stored (not
// indexed field by field: no mapping explosion, no conflicts between events), its time and when it came.
// Scans go newest first in bounded pages (search_after); retention deletes by query.
import type { Client } from '@opensearch-project/opensearch';
import type { Database, Queryable } from '../../db/database.js';
import { BackendUnavailableError, type EventHistory, type HistoryEvent, type StoredEventInput } from '../backend.js';
import { ClusterError, send, statusOf } from './client.js';

export const eventIndexName = (patternName: string) => `svc-events-${patternName}`;

const PAGE = 500;

interface BulkAnswer {
  items: Array<Record<string, { _id: string; status: number; error?: { reason?: string } }>>;
}

interface SearchAnswer {
  hits: { hits: Array<{ _id: string; sort: unknown[]; _source: { event_time: string; event: Record<string, unknown> } }> };
}

export class OpenSearchEventHistory implements EventHistory {
  private readonly created = new Set<string>();

  constructor(
    private readonly db: Database,
    private readonly client: Client,
    /** Put before every index name on the cluster. */
    private readonly prefix = '',
  ) {}

  private async indexOf(q: Queryable, patternId: string): Promise<string | undefined> {
    const rows = await q.query<{ name: string }>('SELECT name FROM index_patterns WHERE id = $1', [patternId]);
    return rows[0] ? this.prefix + eventIndexName(rows[0].name) : undefined;
  }

  private async ensureIndex(index: string): Promise<void> {
    if (this.created.has(index)) return;
    try {
      await send(this.client, {
        method: 'PUT',
        path: `/${index}`,
        body: {
          settings: { 'index.auto_expand_replicas': '0-1' },
          mappings: {
            dynamic: false,
            properties: {
              event_time: { type: 'date' },
              received_at: { type: 'date' },
              hash: { type: 'keyword' },
              event: { type: 'object', enabled: false },
            },
          },
        },
      });
    } catch (error) {
      if (!(error instanceof ClusterError && error.type === 'resource_already_exists_exception')) throw error;
    }
    this.created.add(index);
  }

  async store(tx: Queryable, patternId: string, events: StoredEventInput[]): Promise<Set<string>> {
    const stored = new Set<string>();
    const index = await this.indexOf(tx, patternId);
    if (!index || events.length === 0) return stored;
    await this.ensureIndex(index);
    const receivedAt = new Date().toISOString();
    const lines: string[] = [];
    const seen = new Set<string>();
    for (const e of events) {
      if (seen.has(e.hash)) continue;
      seen.add(e.hash);
      lines.push(JSON.stringify({ create: { _index: index, _id: e.hash } }));
      // The event's own text, as the caller serialised (and hashed) it.
      lines.push(`{"event_time":${JSON.stringify(e.time.toISOString())},"received_at":"${receivedAt}","hash":${JSON.stringify(e.hash)},"event":${e.json}}`);
    }
    const answer = await send<BulkAnswer>(this.client, { method: 'POST', path: '/_bulk', ndjson: lines });
    for (const item of answer.items) {
      const result = item.create;
      if (result.status === 201) stored.add(result._id);
      else if (result.status === 429 || result.status >= 500) throw new BackendUnavailableError();
      else if (result.status !== 409) throw new Error(`OpenSearch refused event ${result._id}: ${result.error?.reason ?? `status ${result.status}`}`);
    }
    // The stats count stored events per hour of arrival in the database (with the events there, a
    // trigger does it): the same count, written with the caller's transaction.
    if (stored.size > 0) await tx.query(`INSERT INTO event_counts (hour, n) VALUES (date_trunc('hour', now(), 'UTC'), $1)`, [stored.size]);
    return stored;
  }

  async scan(patternId: string, since: Date, until: Date, visit: (batch: HistoryEvent[]) => Promise<boolean> | boolean): Promise<void> {
    const index = await this.indexOf(this.db, patternId);
    if (!index) return;
    try {
      // Events stored a moment ago are searched too.
      await send(this.client, { method: 'POST', path: `/${index}/_refresh` });
    } catch (error) {
      if (statusOf(error) === 404) return;
      throw error;
    }
    let after: unknown[] | undefined;
    for (;;) {
      const answer = await send<SearchAnswer>(this.client, {
        method: 'POST',
        path: `/${index}/_search`,
        body: {
          query: { range: { event_time: { gt: since.toISOString(), lte: until.toISOString() } } },
          sort: [{ event_time: 'desc' }, { hash: 'asc' }],
          size: PAGE,
          track_total_hits: false,
          _source: ['event_time', 'event'],
          ...(after ? { search_after: after } : {}),
        },
      });
      const hits = answer.hits.hits;
      if (hits.length === 0) return;
      const keepGoing = await visit(hits.map((h) => ({ id: h._id, eventTime: new Date(h._source.event_time), event: h._source.event })));
      if (keepGoing === false || hits.length < PAGE) return;
      after = hits[hits.length - 1].sort;
    }
  }

  /**
   * Deletes the pattern's events. The index itself stays (empty, with its mapping): every instance may
   * hold it as known, and an index recreated by a write would get OpenSearch's dynamic mapping.
   */
  async dropPattern(patternName: string): Promise<void> {
    try {
      // Deletion by query sees only what a refresh made searchable: events stored a moment ago too.
      await send(this.client, { method: 'POST', path: `/${this.prefix}${eventIndexName(patternName)}/_refresh` });
      await send(this.client, {
        method: 'POST',
        path: `/${this.prefix}${eventIndexName(patternName)}/_delete_by_query`,
        query: { conflicts: 'proceed', refresh: true },
        body: { query: { match_all: {} } },
      });
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
    }
  }

  async purge(patternId: string, retentionDays: number): Promise<number> {
    const index = await this.indexOf(this.db, patternId);
    if (!index) return 0;
    try {
      await send(this.client, { method: 'POST', path: `/${index}/_refresh` });
      const answer = await send<{ deleted?: number }>(this.client, {
        method: 'POST',
        path: `/${index}/_delete_by_query`,
        query: { conflicts: 'proceed' },
        body: { query: { range: { event_time: { lt: `now-${Math.max(0, Math.floor(retentionDays))}d` } } } },
      });
      const deleted = answer.deleted ?? 0;
      // Counted off at an hour before the retention window (the stats' last day is never touched).
      if (deleted > 0) {
        await this.db.query(`INSERT INTO event_counts (hour, n) VALUES (date_trunc('hour', now() - make_interval(days => $1), 'UTC'), $2)`, [Math.max(1, retentionDays) + 1, -deleted]);
      }
      return deleted;
    } catch (error) {
      if (statusOf(error) === 404) return 0;
      throw error;
    }
  }
}

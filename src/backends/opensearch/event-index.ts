// Event history on the cluster: the family of indices `svc-events-{pattern}` (event-days.ts), one index
// per UTC day of arrival. Each event is a document whose id is its content hash, holding the event as
// stored (not indexed), its time, its arrival and its entities (event-mapping.ts). A chunk is written
// with one `_bulk` and counts as stored only once the cluster acknowledged every document (each write
// is in the node's translog, fsynced, before it answers); a re-delivered event is kept once, in
// whichever day it first came. Scans go newest first in bounded pages (search_after) over the whole
// family; an alert's process tree reads its host's events by the indexed entity (host-events.ts); retention deletes whole days (DELETE index), and by query only events whose own time is past
// retention in days still kept.
import type { Client } from '@opensearch-project/opensearch';
import type { Database, Queryable } from '../../db/database.js';
import { eventEntities } from '../../ingest/detection.js';
import type { IndexPatternRow } from '../../index-patterns/store.js';
import { BackendUnavailableError, type EventHistory, type HistoryEvent, type ProcessStarts, type StoredEventInput } from '../backend.js';
import { ClusterError, send, sendForBytes, statusOf, type ClusterRequest } from './client.js';
import { DAY_MS, dailyIndexName, dayOfIndex, eventIndexName, familyFilter } from './event-days.js';
import { EVENT_INDEX_BODY, putEventProperties, putEventTemplate } from './event-mapping.js';
import { hashSlice, lastSortOf } from './history-page.js';
import { processStartsOnHost } from './host-events.js';

const PAGE = 500;
/** Events per page of a scan in pages of bytes (several megabytes). */
const TEXT_PAGE = 5000;
/** After midnight (UTC), how long writes may still land in the previous day's index (in-flight requests, clocks of other instances). */
const DAY_OVERLAP_MS = 5 * 60_000;
/** How long a pattern's list of indices is reused by ingest before it is read again. */
const MEMBERS_TTL_MS = 30_000;

type PatternOfEvents = Pick<IndexPatternRow, 'name' | 'preset' | 'entity_fields'>;

interface BulkItem {
  _id: string;
  status: number;
  error?: { type?: string; reason?: string };
}

interface SearchAnswer {
  hits: { hits: Array<{ _id: string; sort: unknown[]; _source: { event_time: string; event: Record<string, unknown> } }> };
}

/** Events the cluster did not acknowledge: the chunk is not stored (the ingest request answers 503). */
export class EventsNotStoredError extends BackendUnavailableError {
  constructor(failed: number, reason: string) {
    super(`OpenSearch did not store ${failed} event(s) of the chunk: ${reason}`);
  }
}

export class OpenSearchEventHistory implements EventHistory {
  private readonly created = new Set<string>();
  private templated = false;
  private readonly members = new Map<string, { at: number; names: string[] }>();
  /** The time of arrival (which day's index an event goes to) and of retention; replaceable in tests. */
  now: () => Date = () => new Date();
  /** Events per page of `scanPages`; replaceable in tests. */
  pageSize = TEXT_PAGE;

  constructor(
    private readonly db: Database,
    private readonly client: Client,
    /** Put before every index name on the cluster. */
    private readonly prefix = '',
  ) {}

  private familyOf(patternName: string): string {
    return this.prefix + eventIndexName(patternName);
  }

  private async patternOf(q: Queryable, patternId: string): Promise<PatternOfEvents | undefined> {
    const rows = await q.query<PatternOfEvents>('SELECT name, preset, entity_fields FROM index_patterns WHERE id = $1', [patternId]);
    return rows[0];
  }

  /** The family's indices on the cluster now, the undated one included. */
  private async listMembers(family: string): Promise<string[]> {
    const rows = await send<Array<{ index: string }>>(this.client, { method: 'GET', path: `/_cat/indices/${family}*`, query: { format: 'json', h: 'index', expand_wildcards: 'open' } });
    const names = rows.map((r) => r.index).filter((name) => dayOfIndex(family, name) !== undefined);
    this.members.set(family, { at: Date.now(), names });
    return names;
  }

  private async cachedMembers(family: string): Promise<string[]> {
    const cached = this.members.get(family);
    return cached && Date.now() - cached.at < MEMBERS_TTL_MS ? cached.names : this.listMembers(family);
  }

  private async ensureIndex(index: string): Promise<void> {
    if (this.created.has(index)) return;
    if (!this.templated) {
      await putEventTemplate(this.client, this.prefix);
      this.templated = true;
    }
    try {
      await send(this.client, { method: 'PUT', path: `/${index}`, body: EVENT_INDEX_BODY });
    } catch (error) {
      if (!(error instanceof ClusterError && error.type === 'resource_already_exists_exception')) throw error;
      // Made by another instance, or by an earlier version without the entity fields.
      await putEventProperties(this.client, index);
    }
    this.created.add(index);
  }

  /** Which of `hashes` another index of the family (not `today`) already holds. */
  private async keptElsewhere(family: string, today: string, at: Date, hashes: string[]): Promise<Set<string>> {
    const others = (await this.cachedMembers(family)).filter((name) => name !== today);
    const yesterday = dailyIndexName(family, new Date(at.getTime() - DAY_MS));
    if (at.getTime() % DAY_MS < DAY_OVERLAP_MS) {
      // Writes to yesterday's index may still be arriving: make them searchable first.
      await send(this.client, { method: 'POST', path: `/${yesterday}/_refresh`, query: { ignore_unavailable: true } });
      if (!others.includes(yesterday)) others.push(yesterday);
    }
    if (others.length === 0) return new Set();
    const answer = await send<SearchAnswer>(this.client, {
      method: 'POST',
      path: `/${family}*/_search`,
      query: { ignore_unavailable: true, allow_no_indices: true },
      body: { query: { bool: { filter: [{ ids: { values: hashes } }, familyFilter(others)] } }, size: hashes.length, _source: false, track_total_hits: false },
    });
    return new Set(answer.hits.hits.map((h) => h._id));
  }

  async store(tx: Queryable, patternId: string, events: StoredEventInput[]): Promise<Set<string>> {
    const stored = new Set<string>();
    const pattern = await this.patternOf(tx, patternId);
    if (!pattern || events.length === 0) return stored;
    const family = this.familyOf(pattern.name);
    const arrival = this.now();
    const index = dailyIndexName(family, arrival);
    await this.ensureIndex(index);
    const seen = new Set<string>();
    const unique = events.filter((e) => !seen.has(e.hash) && seen.add(e.hash));
    const elsewhere = await this.keptElsewhere(family, index, arrival, unique.map((e) => e.hash));
    const receivedAt = JSON.stringify(arrival.toISOString());
    const lines: string[] = [];
    for (const e of unique) {
      if (elsewhere.has(e.hash)) continue;
      const entities = eventEntities(pattern, e.event ?? (JSON.parse(e.json) as Record<string, unknown>));
      lines.push(JSON.stringify({ create: { _index: index, _id: e.hash } }));
      // The event's own text, as the caller serialised (and hashed) it.
      lines.push(`{"event_time":${JSON.stringify(e.time.toISOString())},"received_at":${receivedAt},"hash":${JSON.stringify(e.hash)},${Object.entries(entities).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)},`).join('')}"event":${e.json}}`);
    }
    if (lines.length === 0) return stored;
    // No refresh: the documents are durable once acknowledged; readers refresh before they search.
    const answer = await send<{ items: Array<{ create: BulkItem }> }>(this.client, { method: 'POST', path: '/_bulk', ndjson: lines });
    const failed: BulkItem[] = [];
    for (const { create: item } of answer.items) {
      if (item.status === 201) stored.add(item._id);
      else if (item.status !== 409) failed.push(item);
    }
    if (failed.length > 0) {
      // Nothing of the chunk counts as stored: take back what was written, so a retry stores it as new.
      await this.takeBack(index, [...stored]);
      const first = failed[0].error;
      throw new EventsNotStoredError(failed.length, `${first?.type ?? `status ${failed[0].status}`}: ${first?.reason ?? ''}`);
    }
    // The stats count stored events per hour of arrival in the database (with the events there, a
    // trigger does it): the same count, written with the caller's transaction.
    if (stored.size > 0) await tx.query(`INSERT INTO event_counts (hour, n) VALUES (date_trunc('hour', now(), 'UTC'), $1)`, [stored.size]);
    return stored;
  }

  /** Best effort: removes documents of a chunk that failed as a whole. */
  private async takeBack(index: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    try {
      await send(this.client, { method: 'POST', path: '/_bulk', ndjson: ids.map((id) => JSON.stringify({ delete: { _index: index, _id: id } })) });
    } catch {
      // The cluster is failing; a retry then finds these events kept and does not count them again.
    }
  }

  /** Makes the indices still written to searchable (today's, yesterday's, the undated one). */
  private async refreshRecent(family: string): Promise<void> {
    const now = this.now();
    const recent = [dailyIndexName(family, now), dailyIndexName(family, new Date(now.getTime() - DAY_MS)), family];
    await send(this.client, { method: 'POST', path: `/${recent.join(',')}/_refresh`, query: { ignore_unavailable: true, allow_no_indices: true } });
  }

  /** The family and its members to scan for a pattern (refreshed first); undefined when there is nothing to scan. */
  private async scanned(patternId: string): Promise<{ family: string; members: string[] } | undefined> {
    const pattern = await this.patternOf(this.db, patternId);
    if (!pattern) return undefined;
    const family = this.familyOf(pattern.name);
    const members = await this.listMembers(family);
    if (members.length === 0) return undefined;
    await this.refreshRecent(family);
    return { family, members };
  }

  /** The family's events with their time in (since, until]. */
  private inRange(target: { members: string[] }, since: Date, until: Date): object[] {
    return [{ range: { event_time: { gt: since.toISOString(), lte: until.toISOString() } } }, familyFilter(target.members)];
  }

  /** One page of a scan, newest first, starting after the sort values `after`; `only` narrows the events (a slice). */
  private pageRequest(target: { family: string; members: string[] }, since: Date, until: Date, size: number, after: unknown[] | undefined, only?: object): ClusterRequest {
    return {
      method: 'POST',
      path: `/${target.family}*/_search`,
      query: { ignore_unavailable: true, allow_no_indices: true },
      body: {
        query: { bool: { filter: [...this.inRange(target, since, until), ...(only ? [only] : [])] } },
        sort: [{ event_time: 'desc' }, { hash: 'asc' }],
        size,
        track_total_hits: false,
        // The whole source: the node sends it as stored, where a field list would make it parse each one.
        _source: true,
        ...(after ? { search_after: after } : {}),
      },
    };
  }

  async scan(patternId: string, since: Date, until: Date, visit: (batch: HistoryEvent[]) => Promise<boolean> | boolean): Promise<void> {
    const target = await this.scanned(patternId);
    if (!target) return;
    let after: unknown[] | undefined;
    for (;;) {
      const answer = await send<SearchAnswer>(this.client, this.pageRequest(target, since, until, PAGE, after));
      const hits = answer.hits.hits;
      if (hits.length === 0) return;
      const keepGoing = await visit(hits.map((h) => ({ id: h._id, eventTime: new Date(h._source.event_time), event: h._source.event })));
      if (keepGoing === false || hits.length < PAGE) return;
      after = hits[hits.length - 1].sort;
    }
  }

  async scanPages(patternId: string, since: Date, until: Date, visit: (page: Uint8Array, part: number) => Promise<boolean>, options: { slices: number; upTo: number }): Promise<void> {
    const target = await this.scanned(patternId);
    if (!target) return;
    const parts = options.slices > 1 && (await this.countBetween(target, since, until)) <= options.upTo ? Math.min(16, options.slices) : 1;
    let stopped = false;
    const part = async (k: number) => {
      let after: unknown[] | undefined;
      let visiting: Promise<boolean> | undefined;
      for (;;) {
        // Fetched while the previous page is being visited.
        const page = await sendForBytes(this.client, this.pageRequest(target, since, until, this.pageSize, after, parts > 1 ? hashSlice(k, parts) : undefined));
        if (visiting && !(await visiting)) stopped = true;
        const last = stopped ? undefined : lastSortOf(page);
        if (!last) return;
        visiting = visit(page, k);
        // Awaited above, or dropped with this scan when the next fetch fails.
        visiting.catch(() => undefined);
        after = last;
      }
    };
    try {
      await Promise.all(Array.from({ length: parts }, (_, k) => part(k)));
    } finally {
      stopped = true;
    }
  }

  private async countBetween(target: { family: string; members: string[] }, since: Date, until: Date): Promise<number> {
    const answer = await send<{ count: number }>(this.client, {
      method: 'POST',
      path: `/${target.family}*/_count`,
      query: { ignore_unavailable: true, allow_no_indices: true },
      body: { query: { bool: { filter: this.inRange(target, since, until) } } },
    });
    return answer.count;
  }

  async processStarts(patternId: string, around: Date, host: string, windowMs: number): Promise<ProcessStarts> {
    const pattern = await this.patternOf(this.db, patternId);
    const none: ProcessStarts = { events: [], scanned: 0, truncated: false };
    if (!pattern) return none;
    const family = this.familyOf(pattern.name);
    const members = await this.listMembers(family);
    if (members.length === 0) return none;
    await this.refreshRecent(family);
    return processStartsOnHost(this.client, family, members, around, host, windowMs);
  }

  /**
   * Deletes the pattern's events: its daily indices go (a write racing this recreates one through the
   * index template); the undated index of earlier versions is emptied by query and stays.
   */
  async dropPattern(patternName: string): Promise<void> {
    const family = this.familyOf(patternName);
    const members = await this.listMembers(family);
    for (const name of members) this.created.delete(name);
    const daily = members.filter((name) => name !== family);
    for (let i = 0; i < daily.length; i += 50) {
      await send(this.client, { method: 'DELETE', path: `/${daily.slice(i, i + 50).join(',')}`, query: { ignore_unavailable: true } });
    }
    if (members.includes(family)) await this.deleteByQuery(family, [family], { match_all: {} }, true);
    this.members.delete(family);
  }

  private async deleteByQuery(family: string, members: string[], query: object, refresh = false): Promise<number> {
    const answer = await send<{ deleted?: number }>(this.client, {
      method: 'POST',
      path: `/${family}*/_delete_by_query`,
      query: { conflicts: 'proceed', ignore_unavailable: true, allow_no_indices: true, ...(refresh ? { refresh: true } : {}) },
      body: { query: { bool: { filter: [query, familyFilter(members)] } } },
    });
    return answer.deleted ?? 0;
  }

  /** Takes events removed by retention off the stats, at an hour before the retention window (the stats' last day is never touched). */
  private async countOff(retentionDays: number, n: number): Promise<void> {
    if (n === 0) return;
    await this.db.query(`INSERT INTO event_counts (hour, n) VALUES (date_trunc('hour', now() - make_interval(days => $1), 'UTC'), $2)`, [Math.max(1, retentionDays) + 1, -n]);
  }

  /**
   * Deletes every daily index whose whole day of arrival is older than the retention (after counting its
   * events), then, in the days kept, the events whose own time is older than the retention (a backfill),
   * as the embedded backend does.
   */
  async purge(patternId: string, retentionDays: number): Promise<number> {
    const pattern = await this.patternOf(this.db, patternId);
    if (!pattern) return 0;
    const family = this.familyOf(pattern.name);
    const days = Math.max(0, Math.floor(retentionDays));
    const cutoff = this.now().getTime() - days * DAY_MS;
    try {
      const members = await this.listMembers(family);
      if (members.length === 0) return 0;
      let deleted = 0;
      const kept: string[] = [];
      for (const name of members) {
        const day = dayOfIndex(family, name);
        if (!day || day.getTime() + DAY_MS > cutoff) {
          kept.push(name);
          continue;
        }
        // A past day is no longer written to: its count is final once refreshed.
        await send(this.client, { method: 'POST', path: `/${name}/_refresh` });
        const { count } = await send<{ count: number }>(this.client, { method: 'GET', path: `/${name}/_count` });
        await send(this.client, { method: 'DELETE', path: `/${name}` });
        this.created.delete(name);
        await this.countOff(retentionDays, count);
        deleted += count;
      }
      if (kept.length > 0) {
        await this.refreshRecent(family);
        const backfilled = await this.deleteByQuery(family, kept, { range: { event_time: { lt: new Date(cutoff).toISOString() } } });
        await this.countOff(retentionDays, backfilled);
        deleted += backfilled;
      }
      this.members.delete(family);
      return deleted;
    } catch (error) {
      if (statusOf(error) === 404) return 0;
      throw error;
    }
  }
}

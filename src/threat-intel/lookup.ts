// The threat-intel lookup every instance keeps in memory: one FeedIndex per active feed, loaded at start
// and kept in step with the database by following the shared version number (polled every second, so
// changes made by other instances on a shared PostgreSQL arrive within about a second; the instance
// that changes a feed syncs at once).
// As the Enricher of new alerts it matches an event's observables against every feed.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/database.js';
import type { AlertEntities, Enricher, Enrichment } from './enricher.js';
import { FeedIndex, type IndicatorHit } from './feed-index.js';
import type { Indicator } from './indicators.js';
import { observablesOf, type Observable } from './observables.js';
import { riskLevel } from './scoring.js';
import { activeFeeds, indicatorPage, readVersion, type IndicatorKey } from './store.js';

export const POLL_INTERVAL_MS = 1000;
/** Indicators read per query when a feed is loaded from the database. */
const LOAD_PAGE = 50_000;
/** Indicators added to an index between two turns of the event loop. */
const INDEX_SLICE = 5000;
/** Most matched indicators listed in one alert's enrichment (the score counts them all). */
const MAX_LISTED = 50;

/** A feed just written by this process, handed over so it is not read back from the database. */
export interface FreshFeed {
  id: string;
  indicators: Indicator[];
}

export class ThreatIntelLookup implements Enricher {
  private feeds = new Map<string, FeedIndex>();
  private version = -1;
  private syncing: Promise<void> = Promise.resolve();
  private timer?: NodeJS.Timeout;

  private constructor(
    private readonly db: Database,
    private readonly log?: FastifyBaseLogger,
  ) {}

  /** Loads every active feed; with `follow` (the default) polls for changes made elsewhere. */
  static async open(db: Database, options: { follow?: boolean; log?: FastifyBaseLogger } = {}): Promise<ThreatIntelLookup> {
    const lookup = new ThreatIntelLookup(db, options.log);
    await lookup.sync();
    if (options.follow ?? true) {
      lookup.timer = setInterval(() => {
        void lookup.sync().catch((error: unknown) => lookup.log?.warn({ err: error }, 'threat-intel sync failed'));
      }, POLL_INTERVAL_MS);
      lookup.timer.unref();
    }
    return lookup;
  }

  /** Brings the in-memory feeds up to the database's (one sync at a time; `fresh` saves re-reading a feed). */
  sync(fresh?: FreshFeed): Promise<void> {
    const next = this.syncing.then(() => this.applyChanges(fresh));
    this.syncing = next.catch(() => {});
    return next;
  }

  private async applyChanges(fresh?: FreshFeed): Promise<void> {
    try {
      await this.applyChangesOnce(fresh);
    } catch (error) {
      // The next sync reads every feed list afresh, whatever the version then is.
      this.version = -1;
      throw error;
    }
  }

  private async applyChangesOnce(fresh?: FreshFeed): Promise<void> {
    const version = await readVersion(this.db);
    if (version === this.version && !fresh) return;
    const rows = await activeFeeds(this.db);
    const next = new Map<string, FeedIndex>();
    for (const row of rows) {
      const loaded = this.feeds.get(row.id);
      if (loaded) next.set(row.id, loaded);
      else if (fresh?.id === row.id) next.set(row.id, await indexOf(row, fresh.indicators));
      else next.set(row.id, await this.load(row));
    }
    this.feeds = next;
    this.version = version;
  }

  private async load(row: { id: string; name: string; risk_score: number }): Promise<FeedIndex> {
    const index = new FeedIndex(row.id, row.name, row.risk_score);
    let after: IndicatorKey | undefined;
    for (;;) {
      const { types, values, scores } = await indicatorPage(this.db, row.id, after, LOAD_PAGE);
      for (let i = 0; i < types.length; i++) {
        if (i > 0 && i % INDEX_SLICE === 0) await nextTurn();
        index.add({ type: types[i], value: values[i], score: scores[i] ?? undefined });
      }
      if (types.length < LOAD_PAGE) return index;
      after = { type: types[types.length - 1], value: values[values.length - 1] };
    }
  }

  /** How many feeds and indicators this instance holds. */
  get stats(): { feeds: number; indicators: number } {
    let indicators = 0;
    for (const feed of this.feeds.values()) indicators += feed.size;
    return { feeds: this.feeds.size, indicators };
  }

  enrich(event: Record<string, unknown>, entities: AlertEntities): Enrichment | undefined {
    if (this.feeds.size === 0) return undefined;
    const observables = observablesOf(event, entities);
    if (observables.length === 0) return undefined;
    const listed: Record<string, unknown>[] = [];
    let best = -1;
    for (const observable of observables) {
      for (const feed of this.feeds.values()) {
        for (const hit of matches(feed, observable)) {
          const score = hit.score ?? feed.riskScore;
          best = Math.max(best, score);
          if (listed.length < MAX_LISTED) {
            listed.push({ type: hit.type, value: hit.value, feed_id: feed.id, feed: feed.name, matched_field: observable.field, matched_value: observable.value, score });
          }
        }
      }
    }
    if (best < 0) return undefined;
    return { risk_level: riskLevel(best), risk_score: best, indicators: listed };
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.syncing;
  }
}

/** The index of a feed's indicators, built a slice at a time so other work runs in between. */
async function indexOf(row: { id: string; name: string; risk_score: number }, indicators: Indicator[]): Promise<FeedIndex> {
  const index = new FeedIndex(row.id, row.name, row.risk_score);
  for (let start = 0; start < indicators.length; start += INDEX_SLICE) {
    if (start > 0) await nextTurn();
    for (const indicator of indicators.slice(start, start + INDEX_SLICE)) index.add(indicator);
  }
  return index;
}

function matches(feed: FeedIndex, observable: Observable): IndicatorHit[] {
  switch (observable.kind) {
    case 'address':
      return feed.matchAddress(observable.address, observable.value);
    case 'domain': {
      const hit = feed.matchDomain(observable.value);
      return hit ? [hit] : [];
    }
    default: {
      const hit = feed.matchExact(observable.kind, observable.value);
      return hit ? [hit] : [];
    }
  }
}

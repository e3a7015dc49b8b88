// The search-backend seam: deploy/undeploy a stored query in an index named svc-percolator-{pattern},
// percolate a batch of events, and report health. Services never know which backend they talk to.
import type { Queryable } from '../db/database.js';
import type { CompiledRule, Explanation, PipelineSpec } from '../sigma/index.js';

export const percolatorIndexName = (patternName: string) => `svc-percolator-${patternName}`;

/** What a stored query holds: enough to rebuild the detection on any instance. */
export interface StoredQuery {
  /** Document id inside the percolator index; returned to clients as `percolator_id`. */
  id: string;
  ruleId: string;
  ruleVersion: number;
  yaml: string;
  pipeline: PipelineSpec;
  /**
   * The detection already compiled from exactly `yaml` and `pipeline`, when the caller has it: a hint
   * that lets the backend skip compiling it again in this process. Never stored.
   */
  compiled?: CompiledRule;
}

/** A stored query that matched an event, with each selection that held and the values that made it hold. */
export interface RuleMatch {
  id: string;
  matchedConditions: Explanation['matchedConditions'];
}

/**
 * Events to match: the JSON text each is stored as (text crosses to a matcher thread at the cost of a
 * copy), and the preset of their index pattern, which shapes them before the rules see them.
 */
export interface EventBatch {
  texts: string[];
  preset: string | null;
}

/**
 * What matching a batch found: for each event, the stored queries it matched whose rule has no enabled
 * exception matching it, with what held. An event whose matching would exceed the per-event work budget
 * (its text times the matching cost of the rules it may match, exceptions included) is not matched: it
 * is listed in `refused` with the reason, and its entry of `hits` is empty.
 */
export interface BatchMatches {
  hits: RuleMatch[][];
  /** Events not matched, by their position in the batch, with the reason. */
  refused: { index: number; reason: string }[];
  /** Matches an exception suppressed, counted by exception id (absent when none was). */
  excepted?: Record<string, number>;
}

export class BackendUnavailableError extends Error {
  constructor(message = 'Search backend connection failed') {
    super(message);
  }
}

export interface SearchBackend {
  readonly kind: 'embedded' | 'opensearch';
  health(): Promise<boolean>;
  /**
   * Creates or replaces a stored query. `tx` is the caller's open transaction: the embedded backend
   * writes through it, so the stored query commits or rolls back together with the rule.
   * Throws BackendUnavailableError when the backend cannot be reached.
   */
  deploy(tx: Queryable, index: string, query: StoredQuery): Promise<void>;
  /** deploy() for many stored queries of one index at once (bulk import). */
  deployMany(tx: Queryable, index: string, queries: StoredQuery[]): Promise<void>;
  /** Why this backend cannot hold a stored query (a 400 detail), when it cannot; checked before bulk writes. */
  refusal?(query: StoredQuery): string | undefined;
  /**
   * Sends the stored queries of a rule through the change log again inside `tx` (the caller holds the
   * rule's row lock): every instance reloads them with the rule's enabled exceptions as they are when
   * `tx` commits. Called when a rule's exceptions change.
   */
  reissue(tx: Queryable, ruleId: string): Promise<void>;
  /** Removes a stored query (absent is fine). */
  undeploy(tx: Queryable, index: string, id: string): Promise<void>;
  /** Makes committed changes live in this process now (other instances follow within a second). */
  sync(): Promise<void>;
  /**
   * Ids of the stored queries of `index` matching each event (same order as `events`). A stored
   * query's id is its rule's id.
   */
  percolate(index: string, events: object[]): Promise<string[][]>;
  /**
   * Detection for events as stored (their JSON text), shaped by their pattern's preset before the rules
   * see them: the stored queries each matched, less those whose rule has an enabled exception matching
   * the event as stored, with each selection that held and the field values that made it hold (as the
   * rule test endpoints report them); events past the per-event work budget refused (BatchMatches).
   * The work runs off the thread that answers requests.
   */
  match(index: string, batch: EventBatch): Promise<BatchMatches>;
  /** Whether a stored query exists (for checks and tests). */
  hasStoredQuery(index: string, id: string): Promise<boolean>;
  /**
   * The last change of the stored queries this instance has applied (a sequence shared by every
   * instance on one database): instances holding the same rule set answer the same number.
   */
  rulesRevision(): number;
  close(): Promise<void>;
}

/** A stored event as the history search returns it. */
export interface HistoryEvent {
  id: string;
  eventTime: Date;
  event: Record<string, unknown>;
}

export interface StoredEventInput {
  time: Date;
  hash: string;
  json: string;
  /** The event parsed, when the caller has it (a backend that reads fields of the event uses it rather than parse `json` again). */
  event?: Record<string, unknown>;
}

/** Stored events that may start a process on a host, for an alert's process tree (bounded, nearest its time first). */
export interface ProcessStarts {
  events: { hash: string; time: Date; json: string }[];
  /** Events read to find them. */
  scanned: number;
  /** A bound left events of the window unread. */
  truncated: boolean;
}

/** Event history kept per index pattern (the embedded backend keeps it in the database). */
export interface EventHistory {
  /**
   * Stores events idempotently (the same event twice is kept once); answers the hashes of the events
   * newly stored (an event already kept, or repeated in `events`, is stored once and answered once).
   * `json` is the event serialised once by the caller (it also hashed that text).
   */
  store(tx: Queryable, patternId: string, events: StoredEventInput[]): Promise<Set<string>>;
  /**
   * Visits the events of a pattern with eventTime in (since, until], newest first, in bounded batches;
   * `visit` returns false to stop early. Never holds more than one batch in memory.
   */
  scan(patternId: string, since: Date, until: Date, visit: (batch: HistoryEvent[]) => Promise<boolean> | boolean): Promise<void>;
  /**
   * The same events as `scan`, as pages of the backend's own unparsed answer (see
   * opensearch/history-page.ts), for a history kept outside the database: a caller that matches on
   * another thread sends the bytes there, and the next page is fetched while `visit` works on this
   * one. The range is read in `slices` parts at once (each newest first; `visit` is told which part),
   * or in one when it holds more than `upTo` events, so a scan stopped at `upTo` keeps the newest.
   * `visit` returns false to stop the whole scan.
   */
  scanPages?(patternId: string, since: Date, until: Date, visit: (page: Uint8Array, part: number) => Promise<boolean>, options: { slices: number; upTo: number }): Promise<void>;
  /** Drops events older than the pattern's retention. */
  purge(patternId: string, retentionDays: number): Promise<number>;
  /**
   * Removes the events kept outside the database for a pattern about to be deleted (the database's own
   * rows go with the pattern). Throws BackendUnavailableError when that cannot be done.
   */
  dropPattern?(patternName: string): Promise<void>;
  /**
   * The pattern's stored events whose host entity is `host`, with their time within `windowMs` of
   * `around`, that look like process starts: for a history kept outside the database (the embedded
   * backend's are read from it directly by the process tree).
   */
  processStarts?(patternId: string, around: Date, host: string, windowMs: number): Promise<ProcessStarts>;
}

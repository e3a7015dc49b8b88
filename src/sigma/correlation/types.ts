// Types of the correlation engine: what the caller feeds (base-rule matches), what comes out (firings),
// the compiled correlations (immutable, rebuilt from the rules) and the engine state (plain JSON, so a
// service can store it and restore it after a restart). Semantics are described in engine.ts and in
// docs/correlation.md.

export type CorrelationType =
  | 'event_count'
  | 'value_count'
  | 'temporal'
  | 'temporal_ordered'
  | 'value_sum'
  | 'value_avg'
  | 'value_percentile'
  | 'value_median';

export type ComparisonOp = 'gt' | 'gte' | 'lt' | 'lte' | 'eq' | 'neq';

export interface Comparison {
  op: ComparisonOp;
  value: number;
}

/** One match of a base rule (or any rule a correlation references), as the caller feeds it. */
export interface RuleMatch {
  /** The matched rule's id, its name, or both (a correlation may reference either). */
  ruleRef: string | readonly string[];
  /** The event's identifier, reported in firings (`eventIds`). */
  eventId: string;
  /** Event time in milliseconds since the epoch (the event's own timestamp, not its arrival). */
  time: number;
  /** The event's fields: flat names (`ComputerName`) or nested objects reached by dotted names. */
  fields: Readonly<Record<string, unknown>>;
}

export interface CorrelationRef {
  /** Position in the set (CorrelationSet.correlations). */
  index: number;
  id: string | null;
  name: string | null;
  title: string;
}

/** A correlation firing: the group's window satisfied the condition. */
export interface Firing {
  correlation: CorrelationRef;
  /** The group-by values (field or alias name → value; a missing field is null). */
  groupKey: Record<string, unknown>;
  /** Time of the earliest input in the window, and of the input that made it fire (ms). */
  windowStart: number;
  windowEnd: number;
  /** Count, distinct count, number of rules seen, sum, average or percentile, per type. */
  value: number;
  /** Contributing base events (inner firings contribute theirs), first `maxEventIds`, deduplicated. */
  eventIds: string[];
  /** Number of inputs in the window (base matches and inner firings). */
  inputCount: number;
}

export interface CompiledCorrelation extends CorrelationRef {
  /** Position of the rule in the list given to compileCorrelations. */
  input: number;
  level: string | null;
  type: CorrelationType;
  /** The referenced rules as written (ids or names). */
  rules: string[];
  groupBy: string[];
  /** alias → (lower-cased rule reference → field name). */
  aliases: Record<string, Record<string, string>>;
  timespanMs: number;
  /** Every comparison must hold (a range is two of them). */
  condition: Comparison[];
  /** value_* types: the field(s) whose values are aggregated. */
  fields: string[];
  /** value_percentile with a `percentile` key (and value_median: 50); null: the percentile-rank form. */
  percentile: number | null;
  /** Whether the referenced rules' own matches are alerts too (the caller decides what to do with it). */
  generate: boolean;
}

export interface EngineOptions {
  /** How far behind the newest event time of its own group an event may be and still count (ms); also
   * how long after its arrival (wall clock) a waiting input is evaluated at the latest. Default 0. */
  latenessMs: number;
  /** Live groups per correlation; past it new groups are refused (counted, warned once). Default 10,000. */
  maxGroups: number;
  /** Inputs kept per group window; past it the oldest are dropped (counted, warned once). Default 10,000. */
  maxInputsPerGroup: number;
  /** Event ids reported per firing. Default 100. */
  maxEventIds: number;
  /** Matches waiting for the lateness bound; past it the oldest are evaluated early. Default 100,000. */
  maxPending: number;
}

export const DEFAULT_OPTIONS: EngineOptions = {
  latenessMs: 0,
  maxGroups: 10_000,
  maxInputsPerGroup: 10_000,
  maxEventIds: 100,
  maxPending: 100_000,
};

/** Where an input goes: correlation index and the positions in its `rules` it matches. */
export interface Target {
  correlation: number;
  entries: number[];
}

export interface CorrelationSet {
  /** Referenced correlations come before those referencing them. */
  correlations: CompiledCorrelation[];
  /** Lower-cased rule reference → the correlations (and `rules` positions) it feeds. */
  targets: Map<string, Target[]>;
  options: EngineOptions;
  /** Identifies the compiled rules and options: a state restores only into the same set. */
  fingerprint: string;
}

// ---- state (plain JSON) ----

/** A match (or a chained firing) waiting for the lateness bound of one event clock: only the fields
 * the correlations need are kept. A match whose correlations group it into several clocks waits once
 * per clock. */
export interface PendingInput {
  t: number;
  s: number;
  refs: string[];
  id: string;
  f: Record<string, JsonValue>;
  /** The event clock it waits on (clockIdOf), and the correlations (positions) it feeds there. Absent
   * in states of version 1 (upgraded on restore). */
  k?: string;
  m?: number[];
  /** Arrival (wall clock, ms): it is evaluated at the latest `latenessMs` after it. */
  a?: number;
  /** A chained firing: the base events it stands for (`id` is then empty). */
  ids?: string[];
}

/** The event clock of one group: the newest event time it has seen and the time of its last input
 * evaluated (nothing older is accepted for it any more). */
export interface GroupClock {
  t: number;
  floor: number | null;
}

/** One input in a group's window. */
export interface WindowEntry {
  t: number;
  s: number;
  /** Positions in the correlation's `rules` this input matches. */
  r: number[];
  /** The aggregated value (value_* types), or null. */
  v: string | number | null;
  ids: string[];
}

export interface GroupState {
  key: Record<string, JsonValue>;
  /** The window is entries[head..]; the prefix before head is dead (cut off in batches). */
  entries: WindowEntry[];
  head: number;
}

export interface CorrelationState {
  /** The groups held here, by group identity (group-by values as text, see fields.ts). A service that
   * stores windows elsewhere holds only the groups a batch can reach (see reach.ts); `groupCount`
   * counts them all. */
  groups: Record<string, GroupState>;
  groupCount: number;
  refusedInputs: number;
  capWarned: boolean;
  overflowInputs: number;
  overflowWarned: boolean;
  firings: number;
}

export interface EngineState {
  version: 2;
  fingerprint: string;
  /** Newest event time seen overall (ms), null before the first input: only for bounds (groups whose
   * newest input is older than this minus timespan and lateness may be dropped at the group cap). */
  clock: number | null;
  /** The event clocks, one per group (clockIdOf: group-by names and values; correlations grouping by
   * the same fields share them, so a chain over one group-by keeps its order). A state held in parts
   * holds those a batch reaches. */
  clocks: Record<string, GroupClock>;
  /** Arrival counter (orders inputs of equal time). */
  seq: number;
  /** Sorted by (t, s); every one has `k`, `m` and `a`. After `feed` it may still hold inputs already
   * evaluated (dropped in batches); `settle`, `due`, `flush`, `serialize`, `headOf` and
   * `compactWaiting` leave only those waiting. */
  pending: PendingInput[];
  /** Waiting inputs stored elsewhere, every one after those of `pending` in (t, s) order (absent: 0). A
   * service holding only part of the waiting inputs holds every one a batch may evaluate (reach.ts). */
  pendingStored?: number;
  droppedLate: number;
  lateWarned: boolean;
  correlations: CorrelationState[];
}

export type JsonValue = string | number | boolean | null;

export interface FeedResult {
  firings: Firing[];
  /** Each reported once per state: late events dropped, group cap reached, window overflow. */
  warnings: string[];
}

// The compiled detections an instance matches events against, one rule set per percolator index, kept
// in step with the stored-query change log. Two homes: in this thread (LocalRules, here) or on a
// matcher thread of their own (ThreadRules, matcher-thread.ts), so matching never holds up the event
// loop. A stored query that does not compile (a rule over a work limit, stored by an older version) is
// left out and reported back, and the rest load. Each stored query comes with its rule's enabled
// exceptions, compiled beside it: matching applies them and the per-event work budget counts them.
import type { CompiledRule, EventShaper } from '../../sigma/index.js';
import type { BatchMatches, EventBatch, RuleMatch, StoredQuery } from '../backend.js';
import { shaperOfPattern } from '../../index-patterns/event-shape.js';
import { compileExceptions, type ExceptionSpec } from '../../rules/exceptions/matcher.js';
import { RuleSet } from './rule-set.js';
import { matchesOf, overWorkBudget, type ExceptionTally } from './event-matching.js';
import { compileStoredQuery, type StoredQueryDocument } from './stored-query-compiler.js';

/** One entry of the change log: a stored query written (`doc`, with its rule's enabled exceptions) or removed (`doc` null). */
export interface RuleChange {
  index: string;
  id: string;
  doc: StoredQueryDocument | null;
  exceptions?: ExceptionSpec[];
}

/** An event of a batch: matched (exceptions applied), or refused with the reason. */
export type EventMatches = RuleMatch[] | { refused: string };

/** A stored query that could not be compiled: left out of its rule set. */
export interface SetAside {
  index: string;
  id: string;
  ruleId: string;
  version: number;
  reason: string;
}

export interface LiveRules {
  /** Applies changes in log order; answers those left out because they do not compile. */
  apply(changes: RuleChange[]): Promise<SetAside[]>;
  /** The stored queries of `index` matching each event of the batch, in order (LiveRules's `match`). */
  match(index: string, batch: EventBatch): Promise<BatchMatches>;
  /**
   * For events another matcher (an OpenSearch cluster) found to match `hits`: the per-event work budget
   * and the rules' exceptions applied, and what held, as `match` answers.
   */
  explain(index: string, batch: EventBatch, hits: string[][]): Promise<BatchMatches>;
  /** Whether the stored query is compiled and live here. */
  isLive(index: string, id: string): boolean;
  /** Offers a detection the caller already compiled from a document about to be written. */
  remember(index: string, query: StoredQuery): void;
  close(): Promise<void>;
}

/** Longest stretch of compiling before other work gets a turn. */
const SLICE_MS = 20;
/** Bound on compiled detections waiting for their change (those of rolled-back deploys are dropped past it). */
const MAX_PRECOMPILED = 50_000;

const precompiledKey = (index: string, id: string) => `${index}\u0000${id}`;

/** JSON with object keys sorted, so a document compares equal after a round trip through jsonb. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The rule sets compiled in this thread. */
export class LocalRules implements LiveRules {
  private readonly sets = new Map<string, RuleSet>();
  private readonly precompiled = new Map<string, { yaml: string; pipeline: string; rule: CompiledRule }>();

  async apply(changes: RuleChange[]): Promise<SetAside[]> {
    const setAside: SetAside[] = [];
    let sliceStart = performance.now();
    for (const change of changes) {
      if (performance.now() - sliceStart > SLICE_MS) {
        // Thousands of rules take seconds to compile: other work gets a turn between slices.
        await new Promise((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
      let set = this.sets.get(change.index);
      if (!set) this.sets.set(change.index, (set = new RuleSet()));
      if (!change.doc) {
        set.remove(change.id);
        continue;
      }
      const compiled = this.compile(change.index, change.id, change.doc);
      if (compiled.ok) set.put(change.id, compiled.rule, compileExceptions(change.exceptions ?? []));
      else {
        set.remove(change.id);
        setAside.push({ index: change.index, id: change.id, ruleId: change.doc.ruleId, version: change.doc.ruleVersion, reason: compiled.reason });
      }
    }
    return setAside;
  }

  remember(index: string, query: StoredQuery): void {
    if (!query.compiled) return;
    if (this.precompiled.size >= MAX_PRECOMPILED) this.precompiled.clear();
    this.precompiled.set(precompiledKey(index, query.id), { yaml: query.yaml, pipeline: canonicalJson(query.pipeline), rule: query.compiled });
  }

  /** The caller's compiled detection for this exact document, if it left one; else compiles it. */
  private compile(index: string, id: string, doc: StoredQueryDocument): ReturnType<typeof compileStoredQuery> {
    const key = precompiledKey(index, id);
    const ready = this.precompiled.get(key);
    if (ready) {
      this.precompiled.delete(key);
      if (ready.yaml === doc.yaml && ready.pipeline === canonicalJson(doc.pipeline)) return { ok: true, rule: ready.rule };
    }
    return compileStoredQuery(doc);
  }

  async match(index: string, batch: EventBatch): Promise<BatchMatches> {
    const shape = shaperOfPattern(batch);
    const tally: ExceptionTally = new Map();
    return collect(batch.texts.map((text) => this.matchOne(index, text, shape, undefined, tally)), tally);
  }

  async explain(index: string, batch: EventBatch, hits: string[][]): Promise<BatchMatches> {
    const shape = shaperOfPattern(batch);
    const tally: ExceptionTally = new Map();
    return collect(batch.texts.map((text, i) => this.matchOne(index, text, shape, hits[i], tally)), tally);
  }

  /**
   * One event of a batch (its stored JSON text), under the per-event work budget: the rules that match
   * it, or only those of `hits` (found by another matcher) that do, exceptions applied (the matches they
   * suppress counted in `tally`).
   */
  matchOne(index: string, text: string, shape: EventShaper | null, hits?: string[], tally?: ExceptionTally): EventMatches {
    const set = this.sets.get(index);
    if (!set || set.size === 0) return [];
    const stored = JSON.parse(text) as Record<string, unknown>;
    const seen = shape ? shape(stored) : stored;
    const refused = overWorkBudget(set, stored, seen, text.length);
    if (refused !== undefined) return { refused };
    return matchesOf(set, stored, seen, hits?.filter((id) => set.has(id)), tally);
  }

  isLive(index: string, id: string): boolean {
    return this.sets.get(index)?.has(id) ?? false;
  }

  /** The live detections of a percolator index. */
  ruleSet(index: string): RuleSet | undefined {
    return this.sets.get(index);
  }

  async close(): Promise<void> {}
}

/** A batch's matches from its events' outcomes, in order, with the matches its exceptions suppressed. */
export function collect(outcomes: EventMatches[], tally?: ExceptionTally): BatchMatches {
  const result: BatchMatches = { hits: [], refused: [] };
  if (tally && tally.size > 0) result.excepted = Object.fromEntries(tally);
  outcomes.forEach((outcome, index) => {
    if (Array.isArray(outcome)) result.hits.push(outcome);
    else {
      result.hits.push([]);
      result.refused.push({ index, reason: outcome.refused });
    }
  });
  return result;
}

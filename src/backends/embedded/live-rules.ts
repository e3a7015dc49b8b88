// The compiled detections an instance matches events against, one rule set per percolator index, kept
// in step with the stored-query change log. Two homes: in this thread (LocalRules, here) or on a
// matcher thread of their own (ThreadRules, matcher-thread.ts), so matching never holds up the event
// loop. A stored query that does not compile (a rule over a work limit, stored by an older version) is
// left out and reported back, and the rest load.
import type { CompiledRule } from '../../sigma/index.js';
import type { EventBatch, RuleMatch, StoredQuery } from '../backend.js';
import { shapedEvents } from '../../index-patterns/event-shape.js';
import { RuleSet } from './rule-set.js';
import { compileStoredQuery, type StoredQueryDocument } from './stored-query-compiler.js';

/** One entry of the change log: a stored query written (`doc`) or removed (`doc` null). */
export interface RuleChange {
  index: string;
  id: string;
  doc: StoredQueryDocument | null;
}

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
  /** The stored queries of `index` matching each event of the batch, in order. */
  match(index: string, batch: EventBatch): Promise<RuleMatch[][]>;
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
      if (compiled.ok) set.put(change.id, compiled.rule);
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

  async match(index: string, batch: EventBatch): Promise<RuleMatch[][]> {
    return this.matchNow(index, batch);
  }

  matchNow(index: string, batch: EventBatch): RuleMatch[][] {
    const set = this.sets.get(index);
    if (!set || set.size === 0) return batch.texts.map(() => []);
    return shapedEvents(batch.texts, batch).map((event) => set.match(event).map((id) => ({ id, matchedConditions: set.matchedConditions(id, event) })));
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

// The open windows of deployed correlations, kept in correlation_states: read under a row lock in the
// ingest transaction (so instances sharing one PostgreSQL take turns and each continues where the other
// stopped), written back in the same transaction, so a restart or another instance loses no window.
// Each service keeps the states it last wrote; the row's revision says whether that copy is current,
// so the JSON is read back only after another instance wrote it.
import type { Queryable } from '../db/database.js';
import { newState, restore, serialize, type CorrelationSet, type EngineState } from '../sigma/index.js';

interface CachedState {
  revision: number;
  fingerprint: string;
  state: EngineState;
}

const cache = new WeakMap<object, Map<string, CachedState>>();

function cacheOf(owner: object): Map<string, CachedState> {
  let states = cache.get(owner);
  if (!states) cache.set(owner, (states = new Map()));
  return states;
}

export interface LockedStates {
  /** The state of each correlation (by rule id), restored or new. */
  states: Map<string, EngineState>;
  /** Writes back the states of the correlations fed (by rule id), inside the same transaction. */
  save(fed: Iterable<string>): Promise<void>;
}

/**
 * Locks and reads the states of these correlations (rule id → its set) inside `tx`. A state saved for
 * another version of a correlation (another fingerprint) starts over empty.
 */
export async function lockStates(owner: object, tx: Queryable, sets: Map<string, CorrelationSet>): Promise<LockedStates> {
  const ids = [...sets.keys()].sort();
  const rows = await tx.query<{ rule_id: string; fingerprint: string; revision: string | number }>(
    'SELECT rule_id, fingerprint, revision FROM correlation_states WHERE rule_id = ANY($1::uuid[]) ORDER BY rule_id FOR UPDATE',
    [ids],
  );
  const known = cacheOf(owner);
  const rowOf = new Map(rows.map((r) => [r.rule_id, { fingerprint: r.fingerprint, revision: Number(r.revision) }]));
  const states = new Map<string, EngineState>();
  const revisions = new Map<string, number>();
  const stale: string[] = [];
  for (const id of ids) {
    const set = sets.get(id)!;
    const row = rowOf.get(id);
    const cached = known.get(id);
    if (!row) {
      // Deployed before its state row was written: the row is created with the first save.
      states.set(id, newState(set));
      revisions.set(id, -1);
    } else if (cached && cached.revision === row.revision && cached.fingerprint === set.fingerprint) {
      states.set(id, cached.state);
      revisions.set(id, row.revision);
    } else {
      revisions.set(id, row.revision);
      if (row.fingerprint === set.fingerprint) stale.push(id);
      else states.set(id, newState(set));
    }
  }
  if (stale.length > 0) {
    const texts = await tx.query<{ rule_id: string; state: string }>('SELECT rule_id, state FROM correlation_states WHERE rule_id = ANY($1::uuid[])', [stale]);
    for (const { rule_id, state } of texts) {
      const set = sets.get(rule_id)!;
      try {
        states.set(rule_id, restore(set, state));
      } catch {
        states.set(rule_id, newState(set));
      }
    }
  }
  return {
    states,
    async save(fed) {
      const ids = [...new Set(fed)];
      if (ids.length === 0) return;
      const fingerprints = ids.map((id) => sets.get(id)!.fingerprint);
      const next = ids.map((id) => revisions.get(id)! + 1);
      const texts = ids.map((id) => serialize(states.get(id)!));
      // One statement for every state the chunk fed.
      await tx.query(
        `INSERT INTO correlation_states (rule_id, fingerprint, revision, state, updated_at)
         SELECT id, fingerprint, revision, state, now() FROM unnest($1::uuid[], $2::text[], $3::bigint[], $4::text[]) AS s (id, fingerprint, revision, state)
         ON CONFLICT (rule_id) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, revision = EXCLUDED.revision, state = EXCLUDED.state, updated_at = now()`,
        [ids, fingerprints, next, texts],
      );
      ids.forEach((id, i) => known.set(id, { revision: next[i], fingerprint: fingerprints[i], state: states.get(id)! }));
    },
  };
}

/** Forgets the states held in memory (after a transaction that fed them was rolled back). */
export function forgetStates(owner: object): void {
  cache.delete(owner);
}

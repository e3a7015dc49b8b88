// The state of the deployed correlations a chunk feeds, opened inside the chunk's ingest transaction and
// saved in it. Each correlation's head row is locked first (instances sharing one PostgreSQL take turns
// on a correlation, each continuing where the other stopped); then only the parts the chunk can reach
// are read (engine reach.ts: the windows of the groups its matches, and the firings they may cause,
// step into; the waiting inputs it may evaluate), and only those are written back, with the windows
// that expired deleted by index. So a chunk costs what it touches, not what the state holds, and a
// restart or another instance loses no window. A head of other rules or options (a new version
// deployed, another lateness) starts over empty; a whole state saved before migration 17 is split into
// parts the first time it is fed.
import { createHash } from 'node:crypto';
import type { Queryable } from '../db/database.js';
import {
  asWaiting, fromParts, headOf, headText, isHeadText, newState, newestOf, parseHead, parseWaiting, parseWindow, restore, waitingReached, waitingText, windowsReached, windowText,
  type CorrelationSet, type EngineState, type RuleMatch, type StateHead, type StoredWindow,
} from '../sigma/index.js';
import { clearParts, deleteWaiting, deleteWindows, expireWindows, lockHeads, readExpiring, readWaiting, readWindows, writeHead, writeWaiting, writeWindows, type HeadRow, type WindowKey, type WindowRow } from './state-store.js';

/** A correlation a chunk feeds: its engine set and its matches (in the order they will be fed). */
export interface Fed {
  id: string;
  set: CorrelationSet;
  matches: RuleMatch[];
}

export interface OpenedStates {
  /** The state of each correlation (by rule id), holding what its matches can reach. */
  states: Map<string, EngineState>;
  /** Writes back what the chunk changed, inside the same transaction. */
  save(): Promise<void>;
}

/** The key of a group's window: the SHA-256 of the group's identity (what partitions it). */
export function groupHash(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}

/** What was read of one correlation's state, to write back what changed. */
interface Opened {
  set: CorrelationSet;
  revision: number;
  state: EngineState;
  /** Nothing of it is stored in parts yet (new, reset, or a whole state of before migration 17): every part is written. */
  whole: boolean;
  /** Per member: the group identities the chunk can reach, and those read (existing). */
  reached: Set<string>[];
  read: Set<string>[];
  /** Sequence numbers of the waiting inputs read, and the first sequence number of this chunk. */
  waitingRead: Set<number>;
  seqBefore: number;
}

/** Locks and reads the states of these correlations inside `tx`. */
export async function openStates(tx: Queryable, fed: Fed[]): Promise<OpenedStates> {
  const heads = await lockHeads(tx, fed.map((f) => f.id));
  const opened = new Map<string, Opened>();
  for (const f of [...fed].sort((a, b) => (a.id < b.id ? -1 : 1))) opened.set(f.id, await openOne(tx, f, heads.get(f.id)!));
  return {
    states: new Map([...opened].map(([id, o]) => [id, o.state])),
    async save() {
      for (const [id, o] of opened) await saveOne(tx, id, o);
    },
  };
}

async function openOne(tx: Queryable, { id, set, matches }: Fed, row: HeadRow): Promise<Opened> {
  const whole = (state: EngineState): Opened => ({ set, revision: row.revision, state, whole: true, reached: [], read: [], waitingRead: new Set(), seqBefore: state.seq });
  if (row.state !== '' && !isHeadText(row.state)) {
    // A whole state saved before migration 17 (no parts stored): continued, then saved in parts.
    try {
      if (row.fingerprint === set.fingerprint) return whole(restore(set, row.state));
    } catch {
      // Not a state of these rules: they start over.
    }
    return whole(newState(set));
  }
  let head: StateHead | null = null;
  try {
    head = row.state === '' ? null : parseHead(row.state);
  } catch {
    head = null;
  }
  if (head === null || row.fingerprint !== set.fingerprint || head.fingerprint !== set.fingerprint || head.correlations.length !== set.correlations.length) {
    if (row.state !== '') await clearParts(tx, id);
    return whole(newState(set));
  }
  // Windows that can no longer fire: every input still to come is at or after the floor.
  if (head.floor !== null) {
    const floor = head.floor;
    const gone = await expireWindows(tx, id, set.correlations.map((c, member) => ({ member, before: floor - c.timespanMs })));
    for (const [member, n] of gone) head.correlations[member].groupCount -= n;
  }
  const batch = asWaiting(set, matches);
  const due = waitingReached(set, head.clock, head.waiting, batch);
  const waiting = head.waiting > 0 && (due.upTo !== null || due.oldest > 0) ? (await readWaiting(tx, id, due.upTo, due.oldest)).map(parseWaiting) : [];
  const reached = windowsReached(set, [...waiting, ...batch]);
  const keys: WindowKey[] = reached.flatMap((ids, member) => [...ids].map((g) => ({ member, hash: groupHash(g) })));
  const rows = await readWindows(tx, id, keys);
  // At the group cap a new group sweeps the windows that expired by then: those are read too.
  for (const [member, c] of set.correlations.entries()) {
    if (due.clock !== null && head.correlations[member].groupCount + reached[member].size > set.options.maxGroups) rows.push(...(await readExpiring(tx, id, member, due.clock - c.timespanMs)));
  }
  const read = set.correlations.map(() => new Set<string>());
  const windows: StoredWindow[] = [];
  for (const r of rows) {
    if (read[r.member].has(r.group_id)) continue;
    read[r.member].add(r.group_id);
    const window = windowOf(r);
    // An unreadable window is dropped (deleted on save, as if it had expired).
    if (window === null) head.correlations[r.member].groupCount--;
    else windows.push({ correlation: r.member, id: r.group_id, window });
  }
  const state = fromParts(set, head, windows, waiting);
  return { set, revision: row.revision, state, whole: false, reached, read, waitingRead: new Set(waiting.map((w) => w.s)), seqBefore: state.seq };
}

function windowOf(row: WindowRow): StoredWindow['window'] | null {
  try {
    return parseWindow(row.window_state);
  } catch {
    return null;
  }
}

async function saveOne(tx: Queryable, id: string, o: Opened): Promise<void> {
  const { state } = o;
  const writes: Parameters<typeof writeWindows>[2] = [];
  const deletes: WindowKey[] = [];
  state.correlations.forEach((cs, member) => {
    for (const [g, window] of Object.entries(cs.groups)) {
      if (!o.whole && !o.reached[member].has(g)) {
        // Read only for a sweep and kept: unchanged. Anything else was not read and would overwrite a stored window.
        if (o.read[member].has(g)) continue;
        throw new Error(`correlation state: a window outside the chunk's reach was stepped into (member ${member})`);
      }
      writes.push({ member, hash: groupHash(g), id: g, newest: newestOf(window), text: windowText(window) });
    }
    if (!o.whole) for (const g of o.read[member]) if (!Object.hasOwn(cs.groups, g)) deletes.push({ member, hash: groupHash(g) });
  });
  await deleteWindows(tx, id, deletes);
  await writeWindows(tx, id, writes);
  const waiting = new Set(state.pending.map((p) => p.s));
  await deleteWaiting(tx, id, [...o.waitingRead].filter((s) => !waiting.has(s)));
  await writeWaiting(tx, id, state.pending.filter((p) => o.whole || p.s >= o.seqBefore).map((p) => ({ seq: p.s, t: p.t, text: waitingText(p) })));
  await writeHead(tx, id, o.set.fingerprint, o.revision + 1, headText(headOf(state)));
}

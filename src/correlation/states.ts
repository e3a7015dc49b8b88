// The state of the deployed correlations a chunk feeds, opened inside the chunk's ingest transaction
// and saved in it. Each correlation's head row is locked first (instances sharing one PostgreSQL
// take turns on a correlation, each continuing where the other stopped); then only the parts the
// chunk can reach are read (engine reach.ts: the windows of the groups its matches, and the firings
// they may cause, step into; the event clocks of those groups and every input waiting on them; the
// waiting inputs due by arrival or too many), and only those are written back. At a correlation's group
// cap, the windows whose newest input is older than the newest time overall minus timespan and lateness
// are read (found by index) for the engine to sweep; clocks of groups that fell silent that long ago
// with nothing waiting are forgotten by index at each chunk (engine forgetStale). So a chunk costs what it touches, not what the
// state holds, and a restart or another instance loses no window. A head of other rules or options
// (a new version deployed, another lateness) starts over empty; a whole state saved before migration
// 20 is split into parts the first time it is fed, and a head of before migration 25 (one clock per
// correlation) is read whole once and upgraded to clocks per group. A window's inputs are rows of their own,
// numbered: a chunk appends the inputs it adds and deletes those cut off, so a touched window is not
// rewritten whole. Each service keeps the windows it last read or wrote in memory, with the head's
// revision: while no other instance wrote the correlation since, those are current and are not read
// again (after a rolled-back transaction, forgetStates drops them).
import { createHash } from 'node:crypto';
import type { Queryable } from '../db/database.js';
import {
  asWaiting, clockText, clocksReached, compactWaiting, entryText, fromParts, groupKeyText, headOf, headText, isHeadText, liveEntries, newState, newestOf, parseClock, parseEntry, parseHead, parseWaiting, restore, waitingReached, waitingText, windowFrom, windowsReached,
  staleBefore, type CorrelationSet, type EngineState, type GroupState, type PendingInput, type RuleMatch, type StateHead, type StoredClock, type StoredWindow, type WindowEntry,
} from '../sigma/index.js';
import {
  clearParts, deleteClocks, deleteWaiting, deleteWindows, dropInputs, forgetStaleClocks, readExpiring, lockHeads, readAllWaiting, readAllWindows, readClocks, readInputs, readWaiting, readWaitingOn, readWindows, writeClocks, writeHead, writeInputs, writeWaiting, writeWindows,
  type HeadRow, type InputWrite, type WindowKey, type WindowRow, type WindowWrite,
} from './state-store.js';

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

/** An arrival before any (no waiting input is due by arrival without a lateness: a settle evaluates them). */
const NO_ARRIVAL = -8.64e15;

/** The key of a group's window: the SHA-256 of the group's identity (what partitions it). */
export function groupHash(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}

/** A window as stored: its inputs are numbered from `first` (the first live one) to `next` (excluded). */
interface StoredNumbers {
  window: GroupState;
  first: number;
  next: number;
}

/** The windows a service holds of a correlation, as of a revision of its head. */
interface Held {
  revision: number;
  fingerprint: string;
  /** By member and group identity (windowKey). */
  windows: Map<string, StoredNumbers>;
}

/** The window inputs that are stored (rows of correlation_window_inputs); the others are new. */
const storedInputs = new WeakSet<WindowEntry>();

const held = new WeakMap<object, Map<string, Held>>();

function heldBy(owner: object): Map<string, Held> {
  let states = held.get(owner);
  if (!states) held.set(owner, (states = new Map()));
  return states;
}

const windowKey = (member: number, id: string) => `${member}\u0000${id}`;

/** Forgets the windows held in memory (after a transaction that fed them was rolled back). */
export function forgetStates(owner: object): void {
  held.delete(owner);
}

/** What was read of one correlation's state, to write back what changed. */
interface Opened {
  set: CorrelationSet;
  revision: number;
  state: EngineState;
  /** Nothing of it is stored in parts yet (new, reset, or a whole state of before migration 20): every part is written. */
  whole: boolean;
  /** Per member: the group identities the chunk can reach, and those read (existing). */
  reached: Set<string>[];
  read: Set<string>[];
  /** Sequence numbers of the waiting inputs read, and the first sequence number of this chunk. */
  waitingRead: Set<number>;
  /** The clock identities read (existing or not). */
  clocksRead: Set<string>;
  /** The stored text of each clock read that exists: a clock the chunk left as it was is not written again. */
  clockTexts: Map<string, string>;
  seqBefore: number;
  /** The windows held in memory, updated once saved. */
  held: Held;
  /** The stored numbering of the windows read or held, and how many live inputs they had. */
  numbers: Map<string, { first: number; next: number; live: number }>;
}

/** Locks and reads the states of these correlations inside `tx`; `owner` (a service) holds what it read.
 * `now` (wall clock, ms) is the arrival of the matches; the inputs that arrived the lateness before it
 * are read too (they are due). */
export async function openStates(owner: object, tx: Queryable, fed: Fed[], now: number = Date.now()): Promise<OpenedStates> {
  const heads = await lockHeads(tx, fed.map((f) => f.id));
  const opened = new Map<string, Opened>();
  const holding = heldBy(owner);
  for (const f of [...fed].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    const row = heads.get(f.id)!;
    let h = holding.get(f.id);
    if (!h || h.revision !== row.revision || h.fingerprint !== f.set.fingerprint) holding.set(f.id, (h = { revision: row.revision, fingerprint: f.set.fingerprint, windows: new Map() }));
    opened.set(f.id, await openOne(tx, f, row, h, now));
  }
  return {
    states: new Map([...opened].map(([id, o]) => [id, o.state])),
    async save() {
      for (const [id, o] of opened) await saveOne(tx, id, o);
    },
  };
}

async function openOne(tx: Queryable, { id, set, matches }: Fed, row: HeadRow, held: Held, now: number): Promise<Opened> {
  const whole = (state: EngineState): Opened => {
    held.windows.clear();
    return { set, revision: row.revision, state, whole: true, reached: [], read: [], waitingRead: new Set(), clocksRead: new Set(), clockTexts: new Map(), seqBefore: state.seq, held, numbers: new Map() };
  };
  if (row.state !== '' && !isHeadText(row.state)) {
    // A whole state saved before migration 20 (no parts stored): continued, then saved in parts.
    try {
      if (row.fingerprint === set.fingerprint) return whole(restore(set, row.state, now));
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
  if (head.version === 2) return whole(await upgradeParts(tx, id, set, head, now));
  const L = set.options.latenessMs;
  const batch = asWaiting(set, matches);
  const due = waitingReached(set, head.clock, head.waiting, batch);
  // Clocks of groups silent for longer than any window and the lateness, with nothing waiting: forgotten.
  // (engine forgetStale, as of the end of the last chunk).
  if (head.clock !== null) await forgetStaleClocks(tx, id, staleBefore(set, head.clock));
  // The waiting inputs due by arrival or too many, then every input waiting on a clock the batch (or those) reaches.
  const waitingBySeq = new Map<number, PendingInput>();
  const take = (texts: string[]) => {
    for (const t of texts) {
      const p = parseWaiting(t);
      waitingBySeq.set(p.s, p);
    }
  };
  if (head.waiting > 0) take(await readWaiting(tx, id, L > 0 ? now - L : NO_ARRIVAL, due.oldest));
  const clocksRead = new Set<string>();
  for (;;) {
    const ids = [...clocksReached(set, [...batch, ...waitingBySeq.values()])].filter((k) => !clocksRead.has(k));
    if (ids.length === 0) break;
    for (const k of ids) clocksRead.add(k);
    if (head.waiting > 0) take(await readWaitingOn(tx, id, ids.map(groupHash)));
  }
  const clocks: StoredClock[] = [];
  const clockTexts = new Map<string, string>();
  for (const r of await readClocks(tx, id, [...clocksRead].map(groupHash))) {
    try {
      clocks.push({ id: r.clock_id, clock: parseClock(r.clock) });
      clockTexts.set(r.clock_id, r.clock);
    } catch {
      // An unreadable clock is forgotten (its group's window still refuses older inputs).
    }
  }
  const waiting = [...waitingBySeq.values()];
  const reached = windowsReached(set, [...waiting, ...batch]);
  // What is held in memory is current (the revision is the one it was saved or read at): only the rest is read.
  const windows: StoredWindow[] = [];
  const read = set.correlations.map(() => new Set<string>());
  const numbers: Opened['numbers'] = new Map();
  const hold = (member: number, g: string, h: StoredNumbers) => {
    read[member].add(g);
    windows.push({ correlation: member, id: g, window: h.window });
    numbers.set(windowKey(member, g), { first: h.first, next: h.next, live: liveEntries(h.window).length });
  };
  const keys: WindowKey[] = [];
  reached.forEach((ids, member) => {
    for (const g of ids) {
      const h = held.windows.get(windowKey(member, g));
      if (h === undefined) keys.push({ member, hash: groupHash(g) });
      else hold(member, g, h);
    }
  });
  const rows = await readWindows(tx, id, keys);
  // At the group cap a new group sweeps the windows whose newest input is older than the newest time
  // overall minus the timespan and the lateness (only a group catching up could still feed them): read too.
  for (const [member, c] of set.correlations.entries()) {
    if (due.clock !== null && head.correlations[member].groupCount + reached[member].size > set.options.maxGroups) rows.push(...(await readExpiring(tx, id, member, due.clock - c.timespanMs - L)));
  }
  // Each window once: those held are current, the others' inputs are read.
  const unread: WindowRow[] = [];
  for (const r of rows) {
    if (read[r.member].has(r.group_id)) continue;
    const h = held.windows.get(windowKey(r.member, r.group_id));
    if (h !== undefined) hold(r.member, r.group_id, h);
    else {
      read[r.member].add(r.group_id);
      unread.push(r);
    }
  }
  const inputs = await readInputs(tx, id, unread.map((r) => ({ member: r.member, hash: r.group_hash, first: Number(r.first_input) })));
  const inputsOf = new Map<string, string[]>();
  for (const i of inputs) {
    const k = `${i.member}\u0000${i.group_hash}`;
    const list = inputsOf.get(k);
    if (list) list.push(i.input);
    else inputsOf.set(k, [i.input]);
  }
  for (const r of unread) {
    const window = windowOf(r, inputsOf.get(`${r.member}\u0000${r.group_hash}`) ?? []);
    if (window !== null) hold(r.member, r.group_id, { window, first: Number(r.first_input), next: Number(r.next_input) });
    else {
      // An unreadable window is dropped (deleted on save, as if it had expired).
      read[r.member].add(r.group_id);
      numbers.set(windowKey(r.member, r.group_id), { first: Number(r.first_input), next: Number(r.next_input), live: 0 });
      head.correlations[r.member].groupCount--;
    }
  }
  const state = fromParts(set, head, windows, waiting, clocks, now);
  return { set, revision: row.revision, state, whole: false, reached, read, waitingRead: new Set(waiting.map((w) => w.s)), clocksRead, clockTexts, seqBefore: state.seq, held, numbers };
}

/** A head of before migration 25 (one clock per correlation) with all its parts, upgraded to clocks per
 * group; its parts are then cleared (the caller writes the upgraded state whole). */
async function upgradeParts(tx: Queryable, id: string, set: CorrelationSet, head: StateHead, now: number): Promise<EngineState> {
  const rows = await readAllWindows(tx, id);
  const inputs = await readInputs(tx, id, rows.map((r) => ({ member: r.member, hash: r.group_hash, first: Number(r.first_input) })));
  const windows: StoredWindow[] = [];
  for (const r of rows) {
    const texts = inputs.filter((i) => i.member === r.member && i.group_hash === r.group_hash).map((i) => i.input);
    try {
      windows.push({ correlation: r.member, id: r.group_id, window: windowFrom(r.group_key, texts.map(parseEntry)) });
    } catch {
      head.correlations[r.member].groupCount--;
    }
  }
  const waiting = (await readAllWaiting(tx, id)).map(parseWaiting);
  await clearParts(tx, id);
  return fromParts(set, { ...head, waiting: waiting.length }, windows, waiting, [], now);
}

function windowOf(row: WindowRow, inputs: string[]): GroupState | null {
  try {
    const entries = inputs.map(parseEntry);
    if (entries.length !== Number(row.next_input) - Number(row.first_input)) return null;
    for (const e of entries) storedInputs.add(e);
    return windowFrom(row.group_key, entries);
  } catch {
    return null;
  }
}

async function saveOne(tx: Queryable, id: string, o: Opened): Promise<void> {
  const { state } = o;
  const writes: WindowWrite[] = [];
  const appended: InputWrite[] = [];
  const cut: { member: number; hash: string; first: number }[] = [];
  const deletes: WindowKey[] = [];
  state.correlations.forEach((cs, member) => {
    for (const [g, window] of Object.entries(cs.groups)) {
      if (!o.whole && !o.reached[member].has(g)) {
        // Read only for a sweep and kept: unchanged. Anything else was not read and would overwrite a stored window.
        if (o.read[member].has(g)) continue;
        throw new Error(`correlation state: a window outside the chunk's reach was stepped into (member ${member})`);
      }
      const key = windowKey(member, g);
      const hash = groupHash(g);
      const before = o.numbers.get(key) ?? { first: 0, next: 0, live: 0 };
      // The live inputs are those still stored (the first ones) followed by the new ones.
      const live = liveEntries(window);
      let kept = 0;
      while (kept < live.length && storedInputs.has(live[kept])) kept++;
      const first = before.first + (before.live - kept);
      live.slice(kept).forEach((e, i) => {
        appended.push({ member, hash, n: before.next + i, text: entryText(e) });
        storedInputs.add(e);
      });
      const next = before.next + live.length - kept;
      if (first > before.first) cut.push({ member, hash, first });
      writes.push({ member, hash, id: g, key: groupKeyText(window), newest: newestOf(window), first, next });
      o.held.windows.set(key, { window, first, next });
    }
    if (!o.whole) {
      for (const g of o.read[member]) {
        if (Object.hasOwn(cs.groups, g)) continue;
        deletes.push({ member, hash: groupHash(g) });
        o.held.windows.delete(windowKey(member, g));
      }
    }
  });
  await deleteWindows(tx, id, deletes);
  await dropInputs(tx, id, cut);
  await writeInputs(tx, id, appended);
  await writeWindows(tx, id, writes);
  compactWaiting(state);
  const waiting = new Set(state.pending.map((p) => p.s));
  await deleteWaiting(tx, id, [...o.waitingRead].filter((s) => !waiting.has(s)));
  await writeWaiting(tx, id, state.pending.filter((p) => o.whole || p.s >= o.seqBefore).map((p) => ({ seq: p.s, t: p.t, clock: groupHash(p.k!), arrival: p.a ?? 0, text: waitingText(p) })));
  // The clocks held are written back when they changed (they are few: those the chunk reached); those
  // the engine forgot are deleted.
  await deleteClocks(tx, id, [...o.clocksRead].filter((k) => !Object.hasOwn(state.clocks, k)).map(groupHash));
  const clockWrites = Object.entries(state.clocks).map(([k, c]) => ({ hash: groupHash(k), id: k, newest: c.t, text: clockText(c) }));
  await writeClocks(tx, id, clockWrites.filter((c) => o.clockTexts.get(c.id) !== c.text));
  await writeHead(tx, id, o.set.fingerprint, o.revision + 1, headText(headOf(state)));
  o.held.revision = o.revision + 1;
}

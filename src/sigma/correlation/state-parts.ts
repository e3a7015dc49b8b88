// The engine state in parts, for a service that stores it per group rather than whole: a head (the
// newest time overall, counters, how many groups and waiting inputs there are), one window per
// (correlation, group), one event clock per group and one entry per waiting input. Promises: `fromParts`
// of a state's head with all its windows, clocks and waiting inputs gives back an equal state; given
// only some of them, it gives a state holding those and counting the rest, which the engine feeds alike
// as long as it holds what reach.ts says a batch reaches. A head of version 2 (one clock per
// correlation, before per-group clocks) given all its parts gives the upgraded state (engine.ts
// upgradeState). Each part is JSON text; a part that is not one of these versions is refused
// (StateMismatchError).
import { StateMismatchError } from './state-io.js';
import { compactWaiting, upgradeState } from './engine.js';
import type { CorrelationSet, CorrelationState, EngineState, GroupClock, GroupState, JsonValue, PendingInput, WindowEntry } from './types.js';

/** A correlation's counters: its state without the groups. */
export type CorrelationCounters = Omit<CorrelationState, 'groups'>;

export interface StateHead {
  /** 3: per-group clocks (stored as parts); 2: one clock per correlation (`floor`), read to upgrade. */
  version: 2 | 3;
  fingerprint: string;
  clock: number | null;
  floor?: number | null;
  seq: number;
  /** Waiting inputs in all. */
  waiting: number;
  droppedLate: number;
  lateWarned: boolean;
  correlations: CorrelationCounters[];
}

/** One group's window of one correlation of the set (by its position), with the group's identity. */
export interface StoredWindow {
  correlation: number;
  id: string;
  window: GroupState;
}

/** One group's event clock, by its identity (engine.ts clockIdOf). */
export interface StoredClock {
  id: string;
  clock: GroupClock;
}

export function headOf(state: EngineState): StateHead {
  compactWaiting(state);
  return {
    version: 3,
    fingerprint: state.fingerprint,
    clock: state.clock,
    seq: state.seq,
    waiting: state.pending.length + (state.pendingStored ?? 0),
    droppedLate: state.droppedLate,
    lateWarned: state.lateWarned,
    correlations: state.correlations.map(({ groupCount, refusedInputs, capWarned, overflowInputs, overflowWarned, firings }) => ({ groupCount, refusedInputs, capWarned, overflowInputs, overflowWarned, firings })),
  };
}

/** Every window a state holds. */
export function windowsOf(state: EngineState): StoredWindow[] {
  return state.correlations.flatMap((cs, correlation) => Object.entries(cs.groups).map(([id, window]) => ({ correlation, id, window })));
}

/** Every clock a state holds. */
export function clocksOf(state: EngineState): StoredClock[] {
  return Object.entries(state.clocks).map(([id, clock]) => ({ id, clock }));
}

/** A state holding these windows, clocks and waiting inputs (any order), and counting the others of the
 * head. A head of version 2 must come with all its parts (it is upgraded; `now` is the arrival given to
 * its waiting inputs). */
export function fromParts(set: CorrelationSet, head: StateHead, windows: Iterable<StoredWindow>, waiting: PendingInput[], clocks: Iterable<StoredClock> = [], now: number = Date.now()): EngineState {
  if (head.fingerprint !== set.fingerprint || head.correlations.length !== set.correlations.length) throw new StateMismatchError('the state belongs to other correlation rules or options');
  const pending = [...waiting].sort((a, b) => a.t - b.t || a.s - b.s);
  if (pending.length > head.waiting) throw new StateMismatchError('more waiting inputs than the head counts');
  const correlations: CorrelationState[] = head.correlations.map((c) => ({ ...c, groups: {} }));
  for (const { correlation, id, window } of windows) {
    const cs = correlations[correlation];
    if (cs === undefined) throw new StateMismatchError(`no correlation ${correlation} in the set`);
    cs.groups[id] = window;
  }
  const held: Record<string, GroupClock> = {};
  for (const c of clocks) held[c.id] = c.clock;
  const state: EngineState = {
    version: 2,
    fingerprint: head.fingerprint,
    clock: head.clock,
    clocks: held,
    seq: head.seq,
    pending,
    pendingStored: head.waiting - pending.length,
    droppedLate: head.droppedLate,
    lateWarned: head.lateWarned,
    correlations,
  };
  if (head.version === 3) return state;
  if (pending.length !== head.waiting) throw new StateMismatchError('a head of version 2 is upgraded with all its waiting inputs');
  return upgradeState(set, { ...state, floor: head.floor ?? null }, now);
}

function parsed(text: string, what: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new StateMismatchError(`not a ${what}: ${(e as Error).message}`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new StateMismatchError(`not a ${what}`);
  return v as Record<string, unknown>;
}

export function headText(head: StateHead): string {
  return JSON.stringify(head);
}

/** Whether the text is a head (version 2 or 3) rather than a whole state (state-io.ts). */
export function isHeadText(text: string): boolean {
  return (text.startsWith('{"version":2,') || text.startsWith('{"version":3,')) && !text.includes('"pending":[');
}

export function parseHead(text: string): StateHead {
  const v = parsed(text, 'correlation state head');
  if ((v.version !== 2 && v.version !== 3) || typeof v.seq !== 'number' || typeof v.waiting !== 'number' || !Array.isArray(v.correlations)) throw new StateMismatchError('not a correlation state head of version 2 or 3');
  return v as unknown as StateHead;
}

export function clockText(c: GroupClock): string {
  return JSON.stringify(c);
}

export function parseClock(text: string): GroupClock {
  const v = parsed(text, 'correlation group clock');
  if (typeof v.t !== 'number' || (v.floor !== null && typeof v.floor !== 'number')) throw new StateMismatchError('not a correlation group clock');
  return { t: v.t, floor: v.floor as number | null };
}

/** A window's text: its key and live inputs (the dead prefix is left out). */
export function windowText(g: GroupState): string {
  return JSON.stringify({ key: g.key, entries: g.head === 0 ? g.entries : g.entries.slice(g.head) });
}

export function parseWindow(text: string): GroupState {
  const v = parsed(text, 'correlation window');
  if (typeof v.key !== 'object' || v.key === null || !Array.isArray(v.entries)) throw new StateMismatchError('not a correlation window');
  return { key: v.key as GroupState['key'], entries: v.entries as GroupState['entries'], head: 0 };
}

/** A window's inputs stored one by one: the text of one input, and of the group key. */
export function entryText(e: WindowEntry): string {
  return JSON.stringify(e);
}

export function parseEntry(text: string): WindowEntry {
  const v = parsed(text, 'correlation window input');
  if (typeof v.t !== 'number' || typeof v.s !== 'number' || !Array.isArray(v.r) || !Array.isArray(v.ids)) throw new StateMismatchError('not a correlation window input');
  return v as unknown as WindowEntry;
}

export function groupKeyText(g: GroupState): string {
  return JSON.stringify(g.key);
}

/** A window from its group key's text and its live inputs in order. */
export function windowFrom(keyText: string, entries: WindowEntry[]): GroupState {
  return { key: parsed(keyText, 'correlation group key') as Record<string, JsonValue>, entries, head: 0 };
}

/** The inputs of a window still in it (those before `head` are cut off). */
export function liveEntries(g: GroupState): WindowEntry[] {
  return g.head === 0 ? g.entries : g.entries.slice(g.head);
}

/** Time of a window's newest input: once every later input is more than the timespan past it, the
 * window can no longer fire (its inputs are all cut off at the next input of its group). */
export function newestOf(g: GroupState): number {
  return g.entries.length > g.head ? g.entries[g.entries.length - 1].t : -Infinity;
}

export function waitingText(p: PendingInput): string {
  return JSON.stringify(p);
}

export function parseWaiting(text: string): PendingInput {
  const v = parsed(text, 'waiting correlation input');
  if (typeof v.t !== 'number' || typeof v.s !== 'number' || !Array.isArray(v.refs) || typeof v.id !== 'string') throw new StateMismatchError('not a waiting correlation input');
  return v as unknown as PendingInput;
}

// The engine state in parts, for a service that stores it per group rather than whole: a head (clocks,
// counters, how many groups and waiting inputs there are), one window per (correlation, group) and one
// entry per waiting input. Promises: `fromParts` of a state's head with all its windows and waiting
// inputs gives back an equal state; given only some of them, it gives a state holding those and counting
// the rest, which the engine feeds alike as long as it holds what reach.ts says a batch reaches. Each
// part is JSON text; a part that is not one of this version is refused (StateMismatchError).
import { StateMismatchError } from './state-io.js';
import type { CorrelationSet, CorrelationState, EngineState, GroupState, JsonValue, PendingInput, WindowEntry } from './types.js';

/** A correlation's counters: its state without the groups. */
export type CorrelationCounters = Omit<CorrelationState, 'groups'>;

export interface StateHead {
  version: 2;
  fingerprint: string;
  clock: number | null;
  floor: number | null;
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

export function headOf(state: EngineState): StateHead {
  return {
    version: 2,
    fingerprint: state.fingerprint,
    clock: state.clock,
    floor: state.floor,
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

/** A state holding these windows and waiting inputs (any order), and counting the others of the head. */
export function fromParts(set: CorrelationSet, head: StateHead, windows: Iterable<StoredWindow>, waiting: PendingInput[]): EngineState {
  if (head.fingerprint !== set.fingerprint || head.correlations.length !== set.correlations.length) throw new StateMismatchError('the state belongs to other correlation rules or options');
  const pending = [...waiting].sort((a, b) => a.t - b.t || a.s - b.s);
  if (pending.length > head.waiting) throw new StateMismatchError('more waiting inputs than the head counts');
  const correlations: CorrelationState[] = head.correlations.map((c) => ({ ...c, groups: {} }));
  for (const { correlation, id, window } of windows) {
    const cs = correlations[correlation];
    if (cs === undefined) throw new StateMismatchError(`no correlation ${correlation} in the set`);
    cs.groups[id] = window;
  }
  return {
    version: 1,
    fingerprint: head.fingerprint,
    clock: head.clock,
    floor: head.floor,
    seq: head.seq,
    pending,
    pendingStored: head.waiting - pending.length,
    droppedLate: head.droppedLate,
    lateWarned: head.lateWarned,
    correlations,
  };
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

/** Whether the text is a head (version 2) rather than a whole state (version 1, state-io.ts). */
export function isHeadText(text: string): boolean {
  return text.startsWith('{"version":2,');
}

export function parseHead(text: string): StateHead {
  const v = parsed(text, 'correlation state head');
  if (v.version !== 2 || typeof v.seq !== 'number' || typeof v.waiting !== 'number' || !Array.isArray(v.correlations)) throw new StateMismatchError('not a correlation state head of version 2');
  return v as unknown as StateHead;
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

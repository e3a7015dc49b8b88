// Saving and restoring an engine state (a service keeps it in its database across restarts). Promises:
// `serialize` gives JSON text; `restore` gives back an equal state, so evaluation continues as if never
// interrupted, or refuses (StateMismatchError) text that is not a state, or a state of another set of
// correlations or options (the caller then starts afresh with newState). A state of version 1 (one event
// clock per correlation) is upgraded to per-group clocks (engine.ts upgradeState).
import { compactWaiting, upgradeState } from './engine.js';
import type { CorrelationSet, EngineState } from './types.js';

export class StateMismatchError extends Error {}

export function serialize(state: EngineState): string {
  compactWaiting(state);
  return JSON.stringify(state);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function restore(set: CorrelationSet, text: string, now: number = Date.now()): EngineState {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new StateMismatchError(`not a correlation state: ${(e as Error).message}`);
  }
  if (!isObject(v) || (v.version !== 1 && v.version !== 2) || !Array.isArray(v.pending) || !Array.isArray(v.correlations) || typeof v.seq !== 'number') {
    throw new StateMismatchError('not a correlation state of version 1 or 2');
  }
  if (v.version === 2 && !isObject(v.clocks)) throw new StateMismatchError('not a correlation state of version 2');
  if (v.fingerprint !== set.fingerprint || v.correlations.length !== set.correlations.length) {
    throw new StateMismatchError('the state belongs to other correlation rules or options');
  }
  for (const c of v.correlations) if (!isObject(c) || !isObject(c.groups)) throw new StateMismatchError('not a correlation state');
  return v.version === 1 ? upgradeState(set, v as unknown as EngineState, now) : (v as unknown as EngineState);
}

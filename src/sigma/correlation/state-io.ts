// Saving and restoring an engine state (a service keeps it in its database across restarts). Promises:
// `serialize` gives JSON text; `restore` gives back an equal state, so evaluation continues as if never
// interrupted, or refuses (StateMismatchError) text that is not a state of this version, or a state of
// another set of correlations or options (the caller then starts afresh with newState).
import type { CorrelationSet, EngineState } from './types.js';

export class StateMismatchError extends Error {}

export function serialize(state: EngineState): string {
  return JSON.stringify(state);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function restore(set: CorrelationSet, text: string): EngineState {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new StateMismatchError(`not a correlation state: ${(e as Error).message}`);
  }
  if (!isObject(v) || v.version !== 1 || !Array.isArray(v.pending) || !Array.isArray(v.correlations) || typeof v.seq !== 'number') {
    throw new StateMismatchError('not a correlation state of version 1');
  }
  if (v.fingerprint !== set.fingerprint || v.correlations.length !== set.correlations.length) {
    throw new StateMismatchError('the state belongs to other correlation rules or options');
  }
  for (const c of v.correlations) if (!isObject(c) || !isObject(c.groups)) throw new StateMismatchError('not a correlation state of version 1');
  return v as unknown as EngineState;
}

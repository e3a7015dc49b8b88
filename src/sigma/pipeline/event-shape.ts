// How a pipeline reshapes an event before any rule sees it: one function per pipeline, applied once
// per event (not per rule) by every matcher of the project — ingest, rule tests, history, `vigil scan` —
// so they all see the same fields. Null when the pipeline reads events as they come (the common case
// costs nothing). Pure: the event given is never changed; a reshaped event is a new object.
import { flattenWindowsEvent, isEvtxDump } from '../windows-event.js';
import type { Pipeline } from './pipeline.js';

export type EventShaper = (event: Record<string, unknown>) => Record<string, unknown>;

const flattenEvtx: EventShaper = (event) => (isEvtxDump(event) ? flattenWindowsEvent(event) : event);

export function eventShaperOf(pipeline: Pick<Pipeline, 'flattenEvtxDump'>): EventShaper | null {
  return pipeline.flattenEvtxDump ? flattenEvtx : null;
}

// How a pipeline reshapes an event before any rule sees it: one function per pipeline, applied once
// per event (not per rule) by every matcher of the project — ingest, rule tests, history, `vigil scan` —
// so they all see the same fields. Null when the pipeline reads events as they come (the common case
// costs nothing). Pure: the event given is never changed; a reshaped event is a new object.
import { flattenWindowsEvent, isEvtxDump } from '../windows-event.js';
import { shapeNxlogEvent } from '../event-shapes/nxlog.js';
import { shapeSentinelWindowsEvent } from '../event-shapes/sentinel.js';
import type { EventShapeName, Pipeline } from './pipeline.js';

export type EventShaper = (event: Record<string, unknown>) => Record<string, unknown>;

const flattenEvtx: EventShaper = (event) => (isEvtxDump(event) ? flattenWindowsEvent(event) : event);

/** Other shippers' shapes, by the name a preset gives them (event-shapes/). */
const SHAPES: Record<EventShapeName, EventShaper> = {
  nxlog: shapeNxlogEvent,
  'sentinel-windows-event': shapeSentinelWindowsEvent,
};

export function eventShaperOf(pipeline: Pick<Pipeline, 'flattenEvtxDump' | 'eventShape'>): EventShaper | null {
  if (pipeline.eventShape) return SHAPES[pipeline.eventShape];
  return pipeline.flattenEvtxDump ? flattenEvtx : null;
}

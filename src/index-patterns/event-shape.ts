// The event shaper of an index pattern: how its preset reshapes events before rules see them (for
// example evtx_dump's nested Windows events flattened to Sigma's names), or null when events are read
// as they come. Used by ingest and by rule tests, so a test sees what detection sees.
import { eventShaperOf, getPreset, type EventShaper } from '../sigma/index.js';
import type { IndexPatternRow } from './store.js';

export function shaperOfPattern(pattern: Pick<IndexPatternRow, 'preset'> | undefined): EventShaper | null {
  const preset = pattern?.preset ? getPreset(pattern.preset) : undefined;
  return preset ? eventShaperOf(preset) : null;
}

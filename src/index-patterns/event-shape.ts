// The event shaper of an index pattern: how its preset reshapes events before rules see them (for
// example evtx_dump's nested Windows events flattened to Sigma's names), or null when events are read
// as they come. Used by ingest and by rule tests, so a test sees what detection sees.
import { eventShaperOf, getPreset, type EventShaper } from '../sigma/index.js';
import type { IndexPatternRow } from './store.js';

/** Events stored as JSON text, as the preset of their pattern shapes them for the rules. */
export function shapedEvents(texts: string[], pattern: Pick<IndexPatternRow, 'preset'>): Record<string, unknown>[] {
  const shape = shaperOfPattern(pattern);
  return texts.map((text) => {
    const stored = JSON.parse(text) as Record<string, unknown>;
    return shape ? shape(stored) : stored;
  });
}

export function shaperOfPattern(pattern: Pick<IndexPatternRow, 'preset'> | undefined): EventShaper | null {
  const preset = pattern?.preset ? getPreset(pattern.preset) : undefined;
  return preset ? eventShaperOf(preset) : null;
}

// Where an event's own time is read: the index pattern's timestamp field first, then the fields its
// preset declares (an EVTX-shaped event's TimeCreated, NXLog's EventTime, Sentinel's TimeGenerated, a
// Beats event's @timestamp), so an alert's event_time is the event's own time whenever the event carries
// one; the arrival time only when it carries none. A pattern without a preset reads its timestamp field
// and the Windows event times (evtx_dump JSON or flattened).
import { getPreset, makeAccessor, type Accessor } from '../sigma/index.js';
import type { IndexPatternRow } from '../index-patterns/store.js';

/** The Windows event times read for a pattern without a preset. */
const WITHOUT_PRESET = getPreset('sigma-native')?.timeFields ?? [];

const cache = new Map<string, Accessor>();

/** Reads the first of the pattern's time fields the event has a value in (an empty value does not count). */
export function eventTimeAccessor(pattern: Pick<IndexPatternRow, 'timestamp_field' | 'preset'>): Accessor {
  const key = `${pattern.timestamp_field}\n${pattern.preset ?? ''}`;
  let accessor = cache.get(key);
  if (accessor) return accessor;
  const preset = pattern.preset ? getPreset(pattern.preset) : undefined;
  const names = [...new Set([pattern.timestamp_field, ...(preset ? (preset.timeFields ?? []) : WITHOUT_PRESET)])];
  const fields = names.map(makeAccessor);
  accessor = {
    each(event, visit) {
      for (const field of fields) {
        let held = false;
        const answer = field.each(event, (value) => {
          if (value === null || value === undefined || value === '') return false;
          held = true;
          return visit(value);
        });
        if (held) return answer;
      }
      return false;
    },
    present: (event) => fields.some((field) => field.present(event)),
  };
  if (cache.size > 1000) cache.clear();
  cache.set(key, accessor);
  return accessor;
}

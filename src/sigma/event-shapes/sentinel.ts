// Rows of Microsoft Sentinel's `WindowsEvent` table (as exported: `EventData` a JSON-encoded string)
// reshaped to the flat names Sigma's Windows rules use. Promises: the row's columns are kept as they are
// (`EventID`, `Channel`, `Computer`, `Provider`, ...); `Provider_Name` is added from `Provider`;
// `EventData`, when a JSON object or the text of one, is decoded into an object that replaces the text,
// and each of its entries also becomes a top-level field named as in the event log with spaces removed
// (`ServiceName`, `ImagePath`, `ThreatName`), unless a column already has that name. Text that is not a
// JSON object, or that nests deeper than events may, stays as it is. Pure: the row given is never
// changed.
import { nestedTooDeep } from '../event-depth.js';
import { isObject, putField, type EventObject } from './fields.js';

/** The decoded EventData of a row, or undefined when it holds none. */
function eventDataOf(value: unknown): EventObject | undefined {
  if (isObject(value)) return value;
  if (typeof value !== 'string' || !value.trimStart().startsWith('{')) return undefined;
  let decoded: unknown;
  try {
    decoded = JSON.parse(value);
  } catch {
    return undefined;
  }
  // Decoded, it sits one level below the row: it must fit the event depth bound there.
  return isObject(decoded) && !nestedTooDeep({ EventData: decoded }) ? decoded : undefined;
}

export function shapeSentinelWindowsEvent(event: EventObject): EventObject {
  const data = eventDataOf(event.EventData);
  const out: EventObject = {};
  for (const [k, v] of Object.entries(event)) putField(out, k, k === 'EventData' && data ? data : v);
  if (event.Provider !== undefined) putField(out, 'Provider_Name', event.Provider);
  if (data) for (const [k, v] of Object.entries(data)) putField(out, k.replace(/ /g, ''), v);
  return out;
}

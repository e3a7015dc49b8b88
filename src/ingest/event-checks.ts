// What an event must satisfy before it is stored: a readable time within years 1–9999 and only text
// the database can hold (no NUL character, no lone UTF-16 surrogate, in keys or values). Each bad event
// is rejected alone with its reason; the rest of its batch goes on.
import type { Accessor } from '../sigma/index.js';

const NO_OFFSET = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;

/** The event's time from the pattern's time fields (event-time-fields.ts; now when absent or unreadable); null when out of range. */
export function eventTime(timestampField: Accessor, event: Record<string, unknown>, now: Date): Date | null {
  let found: unknown;
  timestampField.each(event, (value) => {
    found = value;
    return true;
  });
  let ms: number | undefined;
  if (typeof found === 'number' && Number.isFinite(found)) ms = Math.abs(found) < 1e12 ? found * 1000 : found;
  else if (typeof found === 'string') {
    // A date and time without an offset (NXLog's "2026-11-02 10:00:00") is read as UTC, whatever the server's zone.
    const parsed = Date.parse(NO_OFFSET.test(found) ? `${found.replace(' ', 'T')}Z` : found);
    if (!Number.isNaN(parsed)) ms = parsed;
  }
  if (ms === undefined) return now;
  const date = new Date(ms);
  if (Number.isNaN(date.getTime()) || date.getUTCFullYear() < 1 || date.getUTCFullYear() > 9999) return null;
  return date;
}

/**
 * An escape JSON.stringify writes only for text the database cannot hold: `\u0000` (NUL) and `\udXXX`
 * with XXX from 800 (a lone UTF-16 surrogate; a valid pair is written as its characters). An escape
 * counts only after an even number of backslashes (`\\u0000` is a backslash followed by "u0000").
 */
const UNSTORABLE_ESCAPE = /(?<!\\)(?:\\\\)*\\u(0000|d[89a-f][0-9a-f]{2})/;

/** Why the database cannot hold an event, from `json`, its JSON.stringify text (keys included); null when it can. */
export function unstorableJson(json: string): string | null {
  if (!json.includes('\\u')) return null;
  const found = UNSTORABLE_ESCAPE.exec(json);
  if (!found) return null;
  return found[1] === '0000' ? 'the event contains NUL characters, which cannot be stored' : 'the event contains a lone UTF-16 surrogate (invalid Unicode), which cannot be stored';
}

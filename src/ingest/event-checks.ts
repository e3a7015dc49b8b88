// What an event must satisfy before it is stored: a readable time within years 1–9999 and only text
// the database can hold (no NUL character, no lone UTF-16 surrogate, in keys or values). Each bad event
// is rejected alone with its reason; the rest of its batch goes on.
import type { Accessor } from '../sigma/index.js';

/** The event's time from the pattern's timestamp field (now when absent or unreadable); null when out of range. */
export function eventTime(timestampField: Accessor, event: Record<string, unknown>, now: Date): Date | null {
  let found: unknown;
  timestampField.each(event, (value) => {
    found = value;
    return true;
  });
  let ms: number | undefined;
  if (typeof found === 'number' && Number.isFinite(found)) ms = Math.abs(found) < 1e12 ? found * 1000 : found;
  else if (typeof found === 'string') {
    const parsed = Date.parse(found);
    if (!Number.isNaN(parsed)) ms = parsed;
  }
  if (ms === undefined) return now;
  const date = new Date(ms);
  if (Number.isNaN(date.getTime()) || date.getUTCFullYear() < 1 || date.getUTCFullYear() > 9999) return null;
  return date;
}

const unstorable = (text: string): string | null =>
  text.includes('\u0000') ? 'the event contains NUL characters, which cannot be stored'
  : !text.isWellFormed() ? 'the event contains a lone UTF-16 surrogate (invalid Unicode), which cannot be stored'
  : null;

/** Why the database cannot hold the event's text, or null when it can. */
export function unstorableText(event: unknown): string | null {
  const stack: unknown[] = [event];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') {
      const problem = unstorable(value);
      if (problem) return problem;
    } else if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
    } else if (value !== null && typeof value === 'object') {
      for (const key in value) {
        const problem = unstorable(key);
        if (problem) return problem;
        stack.push((value as Record<string, unknown>)[key]);
      }
    }
  }
  return null;
}

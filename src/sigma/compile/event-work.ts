// The work of matching one event, in the units of a rule's matching cost (rule-budget.ts): the characters
// of text a matcher may read in the event times the matching cost of the rules that read it. Promises:
// `eventText` never counts less than a matcher can read (every string, number and boolean as text, and
// every object key; array positions are not text a rule reads), never more than the event's JSON text
// has characters, and stops counting once past `stop`, so measuring a huge event is cheap.

/** Work one event may cost: its characters of text × the matching cost of the rules it meets. */
export const MAX_EVENT_WORK = 1_000_000_000;

/** Characters of text a matcher may read in `value` (strings, numbers and booleans as text, object keys), bounded by `stop`. */
export function eventText(value: unknown, stop = Number.MAX_SAFE_INTEGER): number {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && total <= stop) {
    const v = stack.pop();
    if (typeof v === 'string') total += v.length;
    else if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') total += String(v).length;
    else if (Array.isArray(v)) for (const child of v) stack.push(child);
    else if (v !== null && typeof v === 'object') {
      for (const key in v) {
        if (!Object.hasOwn(v, key)) continue;
        total += key.length;
        stack.push((v as Record<string, unknown>)[key]);
      }
    }
  }
  return total;
}

/**
 * The characters of text of `event` when matching it at `cost` per character could exceed `budget`
 * (MAX_EVENT_WORK unless given); else undefined. Counting stops just past the budget.
 */
export function overEventWork(cost: number, event: unknown, budget = MAX_EVENT_WORK): number | undefined {
  if (cost <= 0) return undefined;
  const chars = eventText(event, Math.floor(budget / cost) + 1);
  return chars * cost > budget ? chars : undefined;
}

// The idempotency key of an ingested event: the SHA-256 of its canonical JSON text, so the same event
// re-delivered with its keys in another order is recognised as a repeat. Canonical: every object's
// keys in code-point order, at every level; arrays in their own order; no white space; values as
// JSON.stringify writes them. Migration 012 computes the same text in SQL for events stored before:
// the two definitions must stay identical.
import { createHash } from 'node:crypto';

/** Orders keys by Unicode code point, which is the byte order of their UTF-8 (PostgreSQL's "C"
 * collation); plain `<` compares UTF-16 units and puts U+10000 and above before U+E000–U+FFFF. */
export function compareKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

const isObject = (value: unknown): value is object => value !== null && typeof value === 'object';

/** Whether every object in `value` already lists its keys in canonical order (then its JSON.stringify
 * text is its canonical text). Stops at the first key out of order. */
function inCanonicalOrder(value: object): boolean {
  if (Array.isArray(value)) {
    for (const item of value) if (isObject(item) && !inCanonicalOrder(item)) return false;
    return true;
  }
  let previous: string | undefined;
  for (const key in value) {
    if (previous !== undefined && compareKeys(previous, key) >= 0) return false;
    const item = (value as Record<string, unknown>)[key];
    if (isObject(item) && !inCanonicalOrder(item)) return false;
    previous = key;
  }
  return true;
}

function collectKeys(value: object, into: string[]): void {
  if (Array.isArray(value)) {
    for (const item of value) if (isObject(item)) collectKeys(item, into);
    return;
  }
  for (const key in value) {
    into.push(key);
    const item = (value as Record<string, unknown>)[key];
    if (isObject(item)) collectKeys(item, into);
  }
}

/**
 * The canonical JSON text of a value parsed from JSON. A key list given to JSON.stringify decides the
 * order of every object's keys (integer-like keys included), so the sorted list of all keys at any level
 * gives the canonical text from the native serialiser, about twice as fast as writing it by hand.
 */
export function canonicalJson(value: unknown): string {
  if (!isObject(value)) return JSON.stringify(value);
  const keys: string[] = [];
  collectKeys(value, keys);
  keys.sort();
  for (let i = 1; i < keys.length; i++) {
    if (compareKeys(keys[i - 1], keys[i]) > 0) {
      keys.sort(compareKeys);
      break;
    }
  }
  return JSON.stringify(value, keys);
}

/** The event's idempotency key; `json` is JSON.stringify(event), reused when its keys are in order. */
export function eventHash(event: Record<string, unknown>, json: string): string {
  return createHash('sha256').update(inCanonicalOrder(event) ? json : canonicalJson(event)).digest('hex');
}

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

/** How an object of one list of keys is written canonically: its keys in order, each with what goes before its value. */
interface Plan {
  /** The object's own keys, in its own order (to tell a plan is the object's). */
  own: string[];
  sorted: string[];
  /** `{"key":` for the first key, `,"key":` for the others. */
  heads: string[];
}

/** Plans by the object's keys joined; events of one source share a few lists of keys. */
const plans = new Map<string, Plan>();
const MAX_PLANS = 4096;

function planOf(own: string[]): Plan {
  const shape = own.join('\u0000');
  const cached = plans.get(shape);
  if (cached && cached.own.length === own.length && cached.own.every((key, i) => key === own[i])) return cached;
  const sorted = [...own].sort(compareKeys);
  const plan = { own, sorted, heads: sorted.map((key, i) => (i === 0 ? '{' : ',') + JSON.stringify(key) + ':') };
  if (plans.size >= MAX_PLANS) plans.clear();
  plans.set(shape, plan);
  return plan;
}

/**
 * The canonical JSON text of a value parsed from JSON: each object's keys sorted once per list of keys
 * (plans), its values written by the native serialiser, nested objects and arrays in turn.
 */
export function canonicalJson(value: unknown): string {
  if (!isObject(value)) return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + canonicalJson(value[i]);
    return out + ']';
  }
  const own = Object.keys(value);
  if (own.length === 0) return '{}';
  const { sorted, heads } = planOf(own);
  const record = value as Record<string, unknown>;
  let out = '';
  for (let i = 0; i < sorted.length; i++) {
    const item = record[sorted[i]];
    out += heads[i] + (isObject(item) ? canonicalJson(item) : JSON.stringify(item));
  }
  return out + '}';
}

/** The event's idempotency key; `json` is JSON.stringify(event), reused when its keys are in order. */
export function eventHash(event: Record<string, unknown>, json: string): string {
  return createHash('sha256').update(inCanonicalOrder(event) ? json : canonicalJson(event)).digest('hex');
}

// Numbers exactly as they were sent. JSON.parse reads a number into a double, so an integer past 2^53
// (a Windows event's Keywords, -9214364837600034816) or a long decimal fraction would be written back
// with other digits. Text holding a run of 16 or more digits (the only numbers a double may not give
// back as written) is read here with such numbers remembered beside the value: the value is exactly
// what JSON.parse answers (matching and every other reader see the same numbers as before), and
// `stringifyJson` writes the remembered numbers with their original digits.
//
// Cost: text without such a number costs a look at every 16th character more than JSON.parse (under
// 1 µs for a 1.5 KB Windows event). Text with one is read with those numbers turned into marked strings
// (found where a value may stand; one found inside a string makes the marked text invalid, and the text
// is then read token by token), parsed natively, and walked once to turn the marks back into numbers.
//
// Through Fastify's serialiser the value goes as `wireValue`: the remembered numbers become marked
// strings (random per process, never seen outside) that `restoreNumbers` turns back into the digits in
// the serialised text (an onSend hook does it for every JSON answer holding the mark).
import { randomBytes } from 'node:crypto';

/** A run of digits a double may not give back as written. */
const LONG_DIGITS = /\d{16}/;
/** JSON strings, and numbers holding a run of 16 or more digits (the strings are skipped whole). */
const TOKENS = /"[^"\\]*(?:\\.[^"\\]*)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
const NONCE = randomBytes(12).toString('hex');
/** The start of a marked string, as a parsed value: U+0000, the nonce and a colon. */
const MARK = `\u0000${NONCE}:`;
/** The same mark inside JSON text (as a string literal's escaped form). */
const MARK_IN_TEXT = `\\u0000${NONCE}:`;
const MARKED_IN_OUTPUT = new RegExp(`"\\\\u0000${NONCE}:(-?[0-9][0-9.eE+-]*)"`, 'g');

/** holder (object or array) → key → the number's digits as sent. */
const exact = new WeakMap<object, Map<string, string>>();
/** Objects and arrays with a remembered number somewhere inside. */
const holdsExact = new WeakSet<object>();
/** holder → the keys of its objects and arrays that hold a remembered number inside. */
const exactInside = new WeakMap<object, string[]>();

const isObject = (value: unknown): value is object => value !== null && typeof value === 'object';

/** Whether a number token would be written back with other digits. */
const changesWhenRead = (token: string) => LONG_DIGITS.test(token) && String(Number(token)) !== token;

function remember(holder: object, key: string, digits: string): void {
  let keys = exact.get(holder);
  if (!keys) exact.set(holder, (keys = new Map()));
  keys.set(key, digits);
}

const isDigit = (code: number) => code - 0x30 >>> 0 < 10;
const table = (chars: string) => {
  const t = new Uint8Array(128);
  for (const c of chars) t[c.charCodeAt(0)] = 1;
  return t;
};
/** What may stand before the digits of a JSON number (besides the start of the text). */
const NUMBER_BEFORE = table(':,[ \t\n\r-.+');
/** What may follow them (besides the end of the text). */
const NUMBER_AFTER = table(',]} \t\n\r.eE');

/**
 * Whether the text may hold a number of 16 or more digits in a run: a run of digits that long which
 * stands where a number's digits may (not inside a word such as "0x8000000000000000"). Such a run covers
 * one of every 16 consecutive positions, and with it the position 8 before or 8 after, so only every
 * 16th character is looked at, and the run around it measured when both tell of one (a native regex
 * reads every character, and costs most of what parsing the text does). A run inside a string that
 * looks like a number is a false alarm, which parseJson settles by its exact reading.
 */
export function mayHoldLongNumber(text: string): boolean {
  const length = text.length;
  for (let at = 15; at < length; at += 16) {
    if (!isDigit(text.charCodeAt(at)) || !(isDigit(text.charCodeAt(at - 8)) || (at + 8 < length && isDigit(text.charCodeAt(at + 8))))) continue;
    let start = at;
    while (start > 0 && isDigit(text.charCodeAt(start - 1))) start--;
    if (start > 0 && NUMBER_BEFORE[text.charCodeAt(start - 1)] !== 1) continue;
    let end = at + 1;
    while (end < length && isDigit(text.charCodeAt(end))) end++;
    if (end - start >= 16 && (end === length || NUMBER_AFTER[text.charCodeAt(end)] === 1)) return true;
  }
  return false;
}

/**
 * Numbers holding a run of 16 or more digits where a value may stand (after `:`, `,`, `[` or white
 * space, before `,`, `]`, `}` or white space). Text that looks so inside a string matches too: marking
 * it there cuts the string in two around a backslash, which no JSON text may hold outside a string, so
 * the marked text then fails to parse and the text is read token by token instead.
 */
const CANDIDATES = /([:,[\s])(-?(?:\d{16,}(?:\.\d+)?|\d+\.\d{16,})(?:[eE][+-]?\d+)?)(?=[,\]}\s])/g;

/** JSON.parse, with the numbers a double would change remembered (throws as JSON.parse does). */
export function parseJson(text: string): unknown {
  if (!mayHoldLongNumber(text)) return JSON.parse(text);
  let marked = false;
  const withMarks = text.replace(CANDIDATES, (whole: string, before: string, token: string) => {
    if (!changesWhenRead(token)) return whole;
    marked = true;
    return `${before}"${MARK_IN_TEXT}${token}"`;
  });
  if (!marked) return JSON.parse(text);
  let value: unknown;
  try {
    value = JSON.parse(withMarks);
  } catch {
    return parseTokenised(text);
  }
  if (isObject(value)) readMarks(value);
  return value;
}

/**
 * The slower reading: every string and number token of the text visited, the long numbers outside
 * strings marked. Malformed text fails with the error JSON.parse gives for it (no mark in it).
 */
function parseTokenised(text: string): unknown {
  const withMarks = text.replace(TOKENS, (token) => {
    if (token.charCodeAt(0) === 0x22 || !changesWhenRead(token)) return token;
    return `"${MARK_IN_TEXT}${token}"`;
  });
  let value: unknown;
  try {
    value = JSON.parse(withMarks);
  } catch {
    return JSON.parse(text);
  }
  if (isObject(value)) readMarks(value);
  return value;
}

/** Turns the marked strings inside `holder` back into their numbers, remembered; answers whether it held one. */
function readMarks(holder: object): boolean {
  let holds = false;
  const record = holder as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const item = record[key];
    if (typeof item === 'string') {
      if (item.charCodeAt(0) !== 0 || !item.startsWith(MARK)) continue;
      const digits = item.slice(MARK.length);
      record[key] = Number(digits);
      remember(holder, key, digits);
      holds = true;
    } else if (item !== null && typeof item === 'object' && readMarks(item)) {
      holds = true;
      const keys = exactInside.get(holder);
      if (keys) keys.push(key);
      else exactInside.set(holder, [key]);
    }
  }
  if (holds) holdsExact.add(holder);
  return holds;
}

/** Whether a value holds a number remembered by parseJson. */
export const hasExactNumbers = (value: unknown): boolean => isObject(value) && holdsExact.has(value);

/** JSON.stringify, with the numbers parseJson remembered written as they were sent. */
export function stringifyJson(value: unknown): string {
  if (!hasExactNumbers(value)) return JSON.stringify(value);
  // The native serialiser on a copy of the objects on the way to the numbers, then the marks replaced.
  return restoreNumbers(JSON.stringify(wireValue(value)));
}

/**
 * A copy of `value` for a serialiser that knows nothing of remembered numbers: each becomes a marked
 * string, which restoreNumbers turns back into the number in the serialised text. Only the objects on
 * the way to a remembered number are copied; a value without one is answered as it is.
 */
export function wireValue<T>(value: T): T {
  if (!hasExactNumbers(value)) return value;
  const source = value as unknown as Record<string, unknown>;
  // A native copy (same keys, same order), then only the remembered numbers and the ways to them replaced.
  const copy = (Array.isArray(value) ? [...value] : { ...source }) as Record<string, unknown>;
  for (const [key, digits] of exact.get(source) ?? []) {
    const item = source[key];
    if (typeof item === 'number' && Number(digits) === item) copy[key] = MARK + digits;
  }
  for (const key of exactInside.get(source) ?? []) copy[key] = wireValue(source[key]);
  return copy as unknown as T;
}

/**
 * The remembered numbers anywhere inside `value`, by the double they read as: their digits, or null when
 * two different numbers read as the same double (then neither can be told from the other).
 */
export function exactNumbersIn(value: unknown, into = new Map<number, string | null>()): Map<number, string | null> {
  if (!hasExactNumbers(value)) return into;
  const source = value as Record<string, unknown>;
  for (const [key, digits] of exact.get(source) ?? []) {
    const item = source[key];
    if (typeof item !== 'number' || Number(digits) !== item) continue;
    const known = into.get(item);
    into.set(item, known === undefined || known === digits ? digits : null);
  }
  for (const key of exactInside.get(source) ?? []) exactNumbersIn(source[key], into);
  return into;
}

/**
 * A copy of plain JSON data (such as the values a rule matched, read from an event) for a serialiser,
 * each number among `numbers` marked as wireValue marks it, so it leaves with the event's digits.
 */
export function withNumbersOf<T>(data: T, numbers: Map<number, string | null>): T {
  if (numbers.size === 0) return data;
  const mark = (item: unknown): unknown => {
    if (typeof item === 'number') {
      const digits = numbers.get(item);
      return digits ? MARK + digits : item;
    }
    if (Array.isArray(item)) return item.map(mark);
    if (item !== null && typeof item === 'object') return Object.fromEntries(Object.entries(item).map(([k, v]) => [k, mark(v)]));
    return item;
  };
  return mark(data) as T;
}

/** Serialised JSON text with the marked strings of wireValue written back as the numbers they stand for. */
export function restoreNumbers(text: string): string {
  return text.includes(MARK_IN_TEXT) ? text.replace(MARKED_IN_OUTPUT, '$1') : text;
}

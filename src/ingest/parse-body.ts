// Reads an ingest body into events: one JSON object, a JSON array of objects, or NDJSON (one object
// per line), optionally gzip-compressed. Bad lines or non-object items are reported, not fatal. Numbers
// are read by parseJson, which remembers those a double would change, so they are stored as sent.
// Limits (a request past one is refused whole with 413, before anything is stored): 10 MiB sent, 10 MiB
// after gunzip (inflating stops as soon as it passes), MAX_INGEST_EVENTS events (or _bulk actions).
// The body is inflated off the event loop with its lines counted as they come (inflate-body.ts), so a
// body of far too many lines is refused before it is split or parsed.
import { HttpError, badRequest } from '../http/errors.js';
import { MAX_INGEST_BYTES, inflateBody, type LineLimit } from './inflate-body.js';
import { parseJson } from '../http/exact-json.js';
import { utf8Text } from '../http/storable-text.js';

export { MAX_INGEST_BYTES };

/** Most events (lines, array items, _bulk actions) one ingest request may carry: far above what
 * shippers send by default (Filebeat 1,600 events, Logstash 125 per worker), low enough that a body of
 * tiny events cannot keep the pipeline busy for long. */
export const MAX_INGEST_EVENTS = 100_000;

export function tooManyEvents(what: 'events' | 'actions' = 'events'): HttpError {
  return new HttpError(413, `The request holds more than ${MAX_INGEST_EVENTS.toLocaleString('en-US')} ${what}, the most one ingest request may carry: send them in smaller batches`);
}

export interface ParsedBatch {
  events: { index: number; event: Record<string, unknown> }[];
  errors: { index: number; error: string }[];
  received: number;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);


/** The lines of `data` (split at LF), each decoded on its own: null for a line that is not valid UTF-8. */
function strictLines(data: Buffer): (string | null)[] {
  const lines: (string | null)[] = [];
  let start = 0;
  for (;;) {
    const end = data.indexOf(0x0a, start);
    lines.push(utf8Text(data.subarray(start, end < 0 ? data.length : end)));
    if (end < 0) return lines;
    start = end + 1;
  }
}

/** A _bulk action takes one line or two: past twice the most actions, the request holds too many. */
const bulkLimit: LineLimit = (count) => (count.lines > 2 * MAX_INGEST_EVENTS ? tooManyEvents('actions') : undefined);

/**
 * Events are non-blank lines unless the body is a JSON array or one JSON document spread over lines.
 * Past MAX_INGEST_EVENTS lines it is neither when it does not open with '[' and its first line is a
 * JSON value on its own (one document followed by more lines is no document): too many events.
 */
function ndjsonLimit(): LineLimit {
  let firstLineAlone: boolean | undefined;
  return (count) => {
    if (count.lines <= MAX_INGEST_EVENTS || count.firstByte === 0x5b || count.firstLine === undefined) return undefined;
    firstLineAlone ??= parsesAlone(count.firstLine);
    return firstLineAlone ? tooManyEvents() : undefined;
  };
}

function parsesAlone(line: Buffer): boolean {
  try {
    JSON.parse(line.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

/** The body's lines (the Elasticsearch _bulk receiver), never altered: a line that is not valid UTF-8
 * is null, for the caller to refuse alone. */
export async function decodeLines(raw: Buffer, encoding: string | undefined): Promise<(string | null)[]> {
  const data = await inflateBody(raw, encoding, bulkLimit, 2 * MAX_INGEST_EVENTS);
  const text = utf8Text(data);
  return text !== null ? text.split('\n') : strictLines(data);
}

/**
 * Reads an ingest body into events. Text that is not valid UTF-8 is refused, never silently altered:
 * an NDJSON line holding such bytes is rejected alone (the other lines are read); a single JSON
 * document (an object or an array) holding them is a 400.
 */
export async function readEvents(raw: Buffer, encoding: string | undefined): Promise<ParsedBatch> {
  const data = await inflateBody(raw, encoding, ndjsonLimit(), MAX_INGEST_EVENTS);
  const text = utf8Text(data);
  if (text !== null) return parseEvents(text);
  const lines = strictLines(data);
  const first = lines.find((l) => l === null || l.trim() !== '');
  const lenient = data.toString('utf8').trim();
  if (first === undefined || lenient.startsWith('[') || isSingleDocument(lenient)) {
    throw badRequest('The body is not valid UTF-8');
  }
  return parseLines(lines);
}

function isSingleDocument(text: string): boolean {
  try {
    return isObject(JSON.parse(text));
  } catch {
    return false;
  }
}

export function parseEvents(text: string): ParsedBatch {
  const trimmed = text.trim();
  if (trimmed === '') throw badRequest('The body holds no events');
  if (trimmed.startsWith('[')) {
    // Counted before parsing: a 10 MiB array of empty objects takes seconds to parse.
    if (arrayItemsMoreThan(trimmed, MAX_INGEST_EVENTS)) throw tooManyEvents();
    let items: unknown;
    try {
      items = parseJson(trimmed);
    } catch {
      throw badRequest('Malformed JSON body');
    }
    if ((items as unknown[]).length > MAX_INGEST_EVENTS) throw tooManyEvents();
    const batch: ParsedBatch = { events: [], errors: [], received: (items as unknown[]).length };
    (items as unknown[]).forEach((item, index) => {
      if (isObject(item)) batch.events.push({ index, event: item });
      else batch.errors.push({ index, error: 'an event must be a JSON object' });
    });
    return batch;
  }
  try {
    const single: unknown = parseJson(trimmed);
    if (isObject(single)) return { events: [{ index: 0, event: single }], errors: [], received: 1 };
  } catch {
    // not a single document: read it as NDJSON below
  }
  return parseLines(trimmed.split('\n'));
}

/** Whether the JSON array `text` (starting with '[') has more than `limit` items, by counting the
 * commas at its top level (strings skipped); a malformed text is left to the parser. */
function arrayItemsMoreThan(text: string, limit: number): boolean {
  let depth = 0;
  let items = 0;
  let empty = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip the string, escapes included.
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
      if (depth === 1) empty = false;
    } else if (c === 0x5b || c === 0x7b) {
      if (depth === 1) empty = false;
      depth++;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
      if (depth === 0) break;
    } else if (depth === 1) {
      if (c === 0x2c) {
        if (++items >= limit) return true;
      } else if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) empty = false;
    }
  }
  return !empty && items + 1 > limit;
}

/** NDJSON: one object per non-blank line, numbered from 0; `null` stands for a line that is not UTF-8. */
function parseLines(lines: (string | null)[]): ParsedBatch {
  const batch: ParsedBatch = { events: [], errors: [], received: 0 };
  let index = 0;
  for (const raw of lines) {
    if (batch.received >= MAX_INGEST_EVENTS && (raw === null || raw.trim() !== '')) throw tooManyEvents();
    if (raw === null) {
      batch.received++;
      batch.errors.push({ index, error: 'the line is not valid UTF-8' });
      index++;
      continue;
    }
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') continue;
    batch.received++;
    try {
      const value: unknown = parseJson(line);
      if (isObject(value)) batch.events.push({ index, event: value });
      else batch.errors.push({ index, error: 'an event must be a JSON object' });
    } catch {
      batch.errors.push({ index, error: 'invalid JSON' });
    }
    index++;
  }
  return batch;
}

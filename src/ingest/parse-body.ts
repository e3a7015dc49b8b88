// Reads an ingest body into events: one JSON object, a JSON array of objects, or NDJSON (one object
// per line), optionally gzip-compressed. Bad lines or non-object items are reported, not fatal.
// Limits (a request past one is refused whole with 413, before anything is stored): 10 MiB sent, 10 MiB
// after gunzip (inflating stops as soon as it passes), MAX_INGEST_EVENTS events (or _bulk actions).
import { gunzipSync } from 'node:zlib';
import { HttpError, badRequest } from '../http/errors.js';

export const MAX_INGEST_BYTES = 10 * 1024 * 1024;

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

/** Whether a Content-Encoding header asks for gunzip (`gzip`, `x-gzip`) or nothing (absent, `identity`);
 * any other coding (or gzip twice) is refused with 415 rather than read as garbage. */
function gzipped(encoding: string | undefined): boolean {
  const codings = (encoding ?? '').split(',').map((c) => c.trim().toLowerCase()).filter((c) => c !== '' && c !== 'identity');
  const gzip = codings.filter((c) => c === 'gzip' || c === 'x-gzip').length;
  if (gzip !== codings.length || gzip > 1) {
    throw new HttpError(415, `Unsupported Content-Encoding '${String(encoding).slice(0, 100)}': send the body uncompressed or gzip-compressed`);
  }
  return gzip === 1;
}

/** The body's bytes, gunzipped when the Content-Encoding says so (bounded to MAX_INGEST_BYTES). */
function inflate(raw: Buffer, encoding: string | undefined): Buffer {
  let data = raw;
  if (gzipped(encoding)) {
    try {
      data = gunzipSync(raw, { maxOutputLength: MAX_INGEST_BYTES });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
        throw new HttpError(413, `The body unzips to more than ${MAX_INGEST_BYTES / 1024 / 1024} MiB, the most one ingest request may carry: send smaller batches`);
      }
      throw badRequest('Body is not valid gzip');
    }
  }
  return data;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function strictText(bytes: Uint8Array): string | null {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

/** The lines of `data` (split at LF), each decoded on its own: null for a line that is not valid UTF-8. */
function strictLines(data: Buffer): (string | null)[] {
  const lines: (string | null)[] = [];
  let start = 0;
  for (let i = 0; i <= data.length; i++) {
    if (i < data.length && data[i] !== 0x0a) continue;
    lines.push(strictText(data.subarray(start, i)));
    start = i + 1;
  }
  return lines;
}

/** The body's lines (the Elasticsearch _bulk receiver), never altered: a line that is not valid UTF-8
 * is null, for the caller to refuse alone. */
export function decodeLines(raw: Buffer, encoding: string | undefined): (string | null)[] {
  const data = inflate(raw, encoding);
  const text = strictText(data);
  return text !== null ? text.split('\n') : strictLines(data);
}

/**
 * Reads an ingest body into events. Text that is not valid UTF-8 is refused, never silently altered:
 * an NDJSON line holding such bytes is rejected alone (the other lines are read); a single JSON
 * document (an object or an array) holding them is a 400.
 */
export function readEvents(raw: Buffer, encoding: string | undefined): ParsedBatch {
  const data = inflate(raw, encoding);
  const text = strictText(data);
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
      items = JSON.parse(trimmed);
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
    const single: unknown = JSON.parse(trimmed);
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
      const value: unknown = JSON.parse(line);
      if (isObject(value)) batch.events.push({ index, event: value });
      else batch.errors.push({ index, error: 'an event must be a JSON object' });
    } catch {
      batch.errors.push({ index, error: 'invalid JSON' });
    }
    index++;
  }
  return batch;
}

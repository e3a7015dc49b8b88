// Reads an ingest body into events: one JSON object, a JSON array of objects, or NDJSON (one object
// per line), optionally gzip-compressed. Bad lines or non-object items are reported, not fatal.
import { gunzipSync } from 'node:zlib';
import { HttpError, badRequest } from '../http/errors.js';

export const MAX_INGEST_BYTES = 10 * 1024 * 1024;

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

export function decodeBody(raw: Buffer, encoding: string | undefined): string {
  let data = raw;
  if (gzipped(encoding)) {
    try {
      data = gunzipSync(raw, { maxOutputLength: MAX_INGEST_BYTES });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new HttpError(413, 'Request body too large');
      throw badRequest('Body is not valid gzip');
    }
  }
  return data.toString('utf8');
}

export function parseEvents(text: string): ParsedBatch {
  const trimmed = text.trim();
  if (trimmed === '') throw badRequest('The body holds no events');
  if (trimmed.startsWith('[')) {
    let items: unknown;
    try {
      items = JSON.parse(trimmed);
    } catch {
      throw badRequest('Malformed JSON body');
    }
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
  const batch: ParsedBatch = { events: [], errors: [], received: 0 };
  const lines = trimmed.split(/\r?\n/);
  let index = 0;
  for (const line of lines) {
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

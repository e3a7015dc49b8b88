// Brings an ingest body to its plain bytes without holding the event loop: a gzip body is inflated on
// zlib's thread pool as a stream, and the lines are counted as the bytes arrive, so a body holding far
// more events than one request may carry (a million tiny lines compress to a few KiB) is refused with
// 413 as soon as the count passes the caller's limit, before it is split or parsed. Inflating stops
// once the bytes pass MAX_INGEST_BYTES. The count only ever errs low (a line is counted when it holds
// a printable ASCII character), so a body the exact reading would accept is never refused here.
import { createGunzip } from 'node:zlib';
import { HttpError, badRequest } from '../http/errors.js';

export const MAX_INGEST_BYTES = 10 * 1024 * 1024;

/** What the counter has seen so far. */
export interface LineCount {
  /** Lines holding at least one printable ASCII character (each is an event, an action or a document). */
  lines: number;
  /** The first byte that is not ASCII white space, once seen. */
  firstByte?: number;
  /** The bytes of the first line that is not only ASCII white space, once its end is seen. */
  firstLine?: Buffer;
}

/** Answers the refusal once the count passes what the caller allows, or undefined to read on. */
export type LineLimit = (count: LineCount) => HttpError | undefined;

/** Bytes of a plain body counted between two turns of the event loop. */
const SLICE_BYTES = 1024 * 1024;

const isSpace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d || b === 0x0b || b === 0x0c;

/** Counts lines across the chunks of one body. */
class LineCounter {
  readonly count: LineCount = { lines: 0 };
  private printable = false;
  private firstLineParts: Buffer[] | undefined;

  feed(chunk: Buffer): void {
    const count = this.count;
    let lineStart = 0;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i];
      if (b === 0x0a) {
        if (this.printable) count.lines++;
        this.printable = false;
        if (this.firstLineParts) this.endFirstLine(chunk.subarray(lineStart, i));
        lineStart = i + 1;
      } else if (!isSpace(b)) {
        if (b > 0x20 && b < 0x7f) this.printable = true;
        if (count.firstByte === undefined) {
          count.firstByte = b;
          this.firstLineParts = [];
          lineStart = i;
        }
      }
    }
    if (this.firstLineParts) this.keep(chunk.subarray(lineStart));
  }

  /** Called after the last chunk: a last line without its newline counts too. */
  end(): void {
    if (this.printable) this.count.lines++;
    this.printable = false;
    if (this.firstLineParts) this.endFirstLine(Buffer.alloc(0));
  }

  private keep(part: Buffer): void {
    // Gunzipped chunks are fresh buffers and a plain body is not changed: a view is enough.
    this.firstLineParts!.push(part);
  }

  private endFirstLine(part: Buffer): void {
    this.keep(part);
    this.count.firstLine = Buffer.concat(this.firstLineParts!);
    this.firstLineParts = undefined;
  }
}

const tooBig = () => new HttpError(413, `The body unzips to more than ${MAX_INGEST_BYTES / 1024 / 1024} MiB, the most one ingest request may carry: send smaller batches`);

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

/** Inflates `raw` on zlib's threads, counting its lines as they come; stops at the first refusal. */
function gunzipCounting(raw: Buffer, counter: LineCounter, limit: LineLimit): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const gunzip = createGunzip({ chunkSize: 64 * 1024 });
    const parts: Buffer[] = [];
    let size = 0;
    let failed = false;
    const fail = (error: HttpError) => {
      if (failed) return;
      failed = true;
      gunzip.destroy();
      reject(error);
    };
    gunzip.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > MAX_INGEST_BYTES) return fail(tooBig());
      counter.feed(chunk);
      const refusal = limit(counter.count);
      if (refusal) return fail(refusal);
      parts.push(chunk);
    });
    gunzip.on('error', () => fail(badRequest('Body is not valid gzip')));
    gunzip.on('end', () => {
      if (failed) return;
      counter.end();
      const refusal = limit(counter.count);
      if (refusal) return fail(refusal);
      resolve(Buffer.concat(parts, size));
    });
    gunzip.end(raw);
  });
}

/** Whether the body has at most `most` lines, counting its newlines natively (a line with no printable
 * character counts here too, so this errs high, never low). */
function fewLines(raw: Buffer, most: number): boolean {
  let lines = 1;
  for (let at = raw.indexOf(0x0a); at !== -1; at = raw.indexOf(0x0a, at + 1)) if (++lines > most) return false;
  return true;
}

/** Counts the lines of a plain body a slice at a time, letting other requests run between slices; a body
 * with no more lines than the limit allows is let through at once. */
async function countPlain(raw: Buffer, counter: LineCounter, limit: LineLimit, allowedLines: number): Promise<Buffer> {
  if (fewLines(raw, allowedLines)) return raw;
  for (let start = 0; start < raw.length; start += SLICE_BYTES) {
    if (start > 0) await new Promise((resolve) => setImmediate(resolve));
    counter.feed(raw.subarray(start, start + SLICE_BYTES));
    const refusal = limit(counter.count);
    if (refusal) throw refusal;
  }
  counter.end();
  const refusal = limit(counter.count);
  if (refusal) throw refusal;
  return raw;
}

/** The body's plain bytes (gunzipped when the Content-Encoding says so), refused with 413 past
 * MAX_INGEST_BYTES or as soon as `limit` answers a refusal for the lines counted so far; `limit` never
 * refuses a body of `allowedLines` lines or fewer. */
export function inflateBody(raw: Buffer, encoding: string | undefined, limit: LineLimit, allowedLines: number): Promise<Buffer> {
  const counter = new LineCounter();
  return gzipped(encoding) ? gunzipCounting(raw, counter, limit) : countPlain(raw, counter, limit, allowedLines);
}

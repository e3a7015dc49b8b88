// Lines of a newline-delimited stream, for NDJSON events, handed out in batches (the lines completed by one
// chunk of input) so that a reader processes them without a promise per line. Lines are cut from the bytes
// and each is decoded on its own: a line of ASCII stays a one-byte string whatever its neighbours hold,
// which JSON.parse reads about twice as fast as a slice of a decoded chunk. Promises: lines end at '\n'
// only (a CR inside a line is kept, one CR before the '\n' is dropped), so line numbers are physical line
// numbers; a UTF-8 byte order mark at the start of the stream is dropped; UTF-8 sequences split across
// chunks decode whole (a '\n' byte never occurs inside a UTF-8 sequence, so decoding line by line equals
// decoding the stream); a line longer than `maxChars` characters is given as `null` once its end is
// reached, and no more than 3 × `maxChars` of its bytes are ever kept, so memory stays bounded whatever
// the input. The last line needs no '\n'. Batches are never empty. A line that is not valid UTF-8 is
// decoded with U+FFFD for its invalid bytes and its 0-based number given to `onInvalidUtf8`.
import { isUtf8 } from 'node:buffer';
import type { Readable } from 'node:stream';

/** Default longest line kept: 64 Mi characters. */
export const MAX_LINE_CHARS = 64 * 1024 * 1024;

/** The lines of `input` (without their line ends), a batch per chunk; null for a line longer than
 * `maxChars`. */
export async function* ndjsonBatches(
  input: Readable,
  maxChars = MAX_LINE_CHARS,
  onInvalidUtf8: (line: number) => void = () => undefined,
): AsyncGenerator<Array<string | null>> {
  // A UTF-8 sequence of n bytes is at least n/3 UTF-16 characters: beyond this many bytes a line is too long.
  const maxBytes = 3 * (maxChars + 1);
  // The bytes of the current line that came in earlier chunks.
  let carry: Buffer[] = [];
  let carried = 0;
  let tooLong = false;
  let first = true;
  let lineNo = 0;
  const line = (bytes: Buffer, start: number, end: number): string | null => {
    let text: string | null;
    const whole = tooLong ? null : carried === 0 ? bytes.subarray(start, end) : Buffer.concat([...carry, bytes.subarray(start, end)]);
    if (whole === null) text = null;
    else {
      if (!isUtf8(whole)) onInvalidUtf8(lineNo);
      text = whole.toString('utf8');
    }
    lineNo++;
    carry = [];
    carried = 0;
    tooLong = false;
    if (text !== null) {
      if (text.charCodeAt(text.length - 1) === 13) text = text.slice(0, -1);
      if (first && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      if (text.length > maxChars) text = null;
    }
    first = false;
    return text;
  };
  const keep = (bytes: Buffer): void => {
    if (tooLong || bytes.length === 0) return;
    if (carried + bytes.length > maxBytes) {
      tooLong = true;
      carry = [];
      carried = 0;
      return;
    }
    carry.push(bytes);
    carried += bytes.length;
  };
  for await (const chunk of input) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    const batch: Array<string | null> = [];
    let start = 0;
    for (let nl = bytes.indexOf(10); nl !== -1; nl = bytes.indexOf(10, start)) {
      batch.push(line(bytes, start, nl));
      start = nl + 1;
    }
    // The rest of the chunk starts the next line (copied: a stream may reuse its buffers).
    if (start < bytes.length) keep(Buffer.from(bytes.subarray(start)));
    if (batch.length) yield batch;
  }
  if (carried > 0 || tooLong) yield [line(Buffer.alloc(0), 0, 0)];
}

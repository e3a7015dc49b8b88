// Lines of a newline-delimited stream, for NDJSON events. Promises: lines end at '\n' only (a CR inside a
// line is kept, one CR before the '\n' is dropped), so line numbers are physical line numbers; a UTF-8
// byte order mark at the start of the stream is dropped; UTF-8 sequences split across chunks decode
// whole; a line longer than `maxChars` is not kept in memory: it is yielded as `null` (too long) once its
// end is reached, so memory stays bounded by `maxChars` whatever the input. The last line needs no '\n'.
import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';

/** Default longest line kept: 64 Mi characters. */
export const MAX_LINE_CHARS = 64 * 1024 * 1024;

/** Each line of `input` (without its line end), or null for a line longer than `maxChars`. */
export async function* ndjsonLines(input: Readable, maxChars = MAX_LINE_CHARS): AsyncGenerator<string | null> {
  const decoder = new StringDecoder('utf8');
  let parts: string[] = [];
  let length = 0;
  let tooLong = false;
  let first = true;
  const finish = (): string | null => {
    let line = tooLong ? null : parts.join('');
    parts = [];
    length = 0;
    tooLong = false;
    if (line !== null && line.endsWith('\r')) line = line.slice(0, -1);
    return line !== null && line.length > maxChars ? null : line;
  };
  const append = (piece: string): void => {
    if (tooLong) return;
    // One character more than allowed: the CR of a CRLF line end may be the last.
    if (length + piece.length > maxChars + 1) {
      tooLong = true;
      parts = [];
      length = 0;
      return;
    }
    parts.push(piece);
    length += piece.length;
  };
  for await (const chunk of input) {
    let text = typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer);
    if (first && text.length > 0) {
      first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      append(text.slice(start, nl));
      yield finish();
      start = nl + 1;
    }
    if (start < text.length) append(text.slice(start));
  }
  append(decoder.end());
  if (length > 0 || tooLong) yield finish();
}

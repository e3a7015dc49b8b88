// JSON answers read with event numbers exactly as the server sent them. JSON.parse turns an integer
// past 2^53 (a Windows event's Keywords, -9214364837600034816) into a double with other digits; here a
// number whose digits a double would change becomes an ExactNumber holding them, which the event tree
// shows as a number with every digit. Text without a run of 16 digits is read by JSON.parse alone.
export class ExactNumber {
  constructor(readonly digits: string) {}
  toString(): string {
    return this.digits;
  }
  /** Sent back as the nearest double, as before (JSON has no way to write it otherwise from here). */
  toJSON(): number {
    return Number(this.digits);
  }
}

const LONG_DIGITS = /\d{16}/;
/** JSON strings (skipped whole) and numbers. */
const TOKENS = /"[^"\\]*(?:\\.[^"\\]*)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
const MARK = `\u0000${Array.from(crypto.getRandomValues(new Uint8Array(9)), (b) => b.toString(16).padStart(2, '0')).join('')}:`;
const MARK_IN_TEXT = MARK.replace('\u0000', '\\u0000');

export function parseExactJson(text: string): unknown {
  if (!LONG_DIGITS.test(text)) return JSON.parse(text);
  let marked = false;
  const withMarks = text.replace(TOKENS, (token) => {
    if (token.charCodeAt(0) === 0x22 || !LONG_DIGITS.test(token) || String(Number(token)) === token) return token;
    marked = true;
    return `"${MARK_IN_TEXT}${token}"`;
  });
  if (!marked) return JSON.parse(text);
  return JSON.parse(withMarks, (_key, value: unknown) => (typeof value === 'string' && value.startsWith(MARK) ? new ExactNumber(value.slice(MARK.length)) : value));
}

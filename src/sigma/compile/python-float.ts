// Reading an event's text as a number the way the reference semantics do (Python's `float`), for the
// comparison modifiers. Promises: `pythonFloat(text)` is the number Python's float(text) gives, or undefined
// where float raises. Surrounding whitespace is ASCII's (space, tab, line ends, vertical tab, form feed) or
// a Unicode space (U+0085, U+00A0, U+2028, U+3000…; not U+FEFF, and not the separators U+001C–U+001F that
// str.isspace() accepts but float does not strip); digits are any Unicode decimal digits (`٤٢`, `１２`,
// `𝟏𝟏`), with single underscores between them; a sign, a fraction and an exponent are ASCII; `inf`,
// `infinity` and `nan` in any case; no hexadecimal, octal or binary (JavaScript's Number would read `0x10`
// as 16).
import { DIGIT } from '../regex/re2-source.js';

const SPACE = '\\t\\n\\x0b\\f\\r\\x85\\p{Z}';
const S = `[${SPACE}]*`;
const RUN = `${DIGIT}(?:_?${DIGIT})*`;
const DECIMAL = new RegExp(`^${S}[+-]?(?:${RUN}(?:\\.(?:${RUN})?)?|\\.${RUN})(?:[eE][+-]?${RUN})?${S}$`, 'u');
const SPECIAL = new RegExp(`^${S}([+-]?)(?:(inf(?:inity)?)|nan)${S}$`, 'iu');
/** A plain ASCII decimal without spaces or underscores: Number reads it as float does. */
const PLAIN = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;
const IS_DIGIT = new RegExp(`^${DIGIT}$`, 'u');
const IS_SPACE = new RegExp(`^[${SPACE}]$`, 'u');

/** The value of a Unicode decimal digit: digits come in runs of ten, 0 to 9, one run after another. */
function digitValue(cp: number): number {
  let zero = cp;
  while (IS_DIGIT.test(String.fromCodePoint(zero - 1))) zero--;
  return (cp - zero) % 10;
}

export function pythonFloat(text: string): number | undefined {
  if (PLAIN.test(text)) return Number(text);
  if (DECIMAL.test(text)) {
    let ascii = '';
    for (const ch of text) {
      const cp = ch.codePointAt(0) as number;
      if (ch === '_' || IS_SPACE.test(ch)) continue;
      ascii += cp < 128 ? ch : String(digitValue(cp));
    }
    return Number(ascii);
  }
  const m = SPECIAL.exec(text);
  if (m === null) return undefined;
  return m[2] === undefined ? NaN : m[1] === '-' ? -Infinity : Infinity;
}

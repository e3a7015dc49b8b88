// Python's reading of a brace in a regular expression: a repetition `{m}`, `{m,}`, `{m,n}`, or, without a
// minimum, `{,n}` and `{,}` (from zero); any other brace is text. Used by the index's required literals and
// the Lucene translation on canonical patterns (python-syntax.ts writes every repetition with its minimum
// and escapes literal braces), so that they read a repetition as the matcher does.
const BRACES = /\{(\d*)(,\d*)?\}/y;

export interface Repetition {
  /** The minimum as written, '0' when omitted. */
  min: string;
  /** ',' and the maximum as written (',' alone: no bound), or '' for an exact count. */
  rest: string;
  /** Characters of the braces in the pattern. */
  length: number;
}

/** The repetition whose `{` is source[i], or null when that brace is text. */
export function repetitionAt(source: string, i: number): Repetition | null {
  BRACES.lastIndex = i;
  const m = BRACES.exec(source);
  if (m === null || (m[1] === '' && m[2] === undefined)) return null;
  return { min: m[1] || '0', rest: m[2] ?? '', length: m[0].length };
}

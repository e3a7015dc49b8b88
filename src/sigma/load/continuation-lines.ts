// Quoted values and flow collections continued on lines indented no deeper than their key, read as PyYAML
// reads them. PyYAML ignores indentation inside a quoted scalar and inside a flow collection
// (`description: 'two⏎lines'` with `lines'` at column 1 is "two lines" to it), where the general YAML 1.2
// parser requires such lines to be indented past their block and misreads them otherwise. Such lines are
// re-indented before the parser reads the text again: the white space that starts a continuation line
// means nothing inside a quoted scalar or a flow collection, so no value changes.
// Promises: `reindentContinuations` only inserts spaces at the start of lines, and only inside quoted
// scalars and flow collections whose extent follows PyYAML's scanner (a construct PyYAML could not read to
// its end is never touched). Where such a construct starts is read line by line with a light reading of
// block context; the caller keeps the result only if the parser then reads every re-indented construct
// from the same start to the same end. Linear in the text.

/** A text with some lines re-indented, and how many spaces each changed line (1-based number) gained. */
export interface Reindented {
  text: string;
  added: Map<number, number>;
  /** The re-indented constructs, placed in the new text. */
  constructs: Construct[];
}

const NEWLINE = 10;
const SPACE = 32;
const TAB = 9;

/** Whether a document marker (`---` or `...` followed by white space or the end) starts at `at`, which
 * begins a line: PyYAML ends a quoted scalar there with an error and a flow collection with a document. */
function documentMarkerAt(text: string, at: number): boolean {
  const three = text.slice(at, at + 3);
  if (three !== '---' && three !== '...') return false;
  return blankAt(text, at + 3);
}

/** End (exclusive) of the quoted scalar whose opening quote is at `at`, or -1 when PyYAML would not read
 * it. Single quotes escape themselves (`''`); in double quotes a backslash escapes the next character. */
function quotedEnd(text: string, at: number): number {
  const quote = text.charCodeAt(at);
  for (let i = at + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === NEWLINE) {
      if (documentMarkerAt(text, i + 1)) return -1;
    } else if (c === quote) {
      if (quote === 0x27 && text.charCodeAt(i + 1) === 0x27) i++;
      else return i + 1;
    } else if (c === 0x5c && quote === 0x22 && text.charCodeAt(i + 1) !== NEWLINE) i++;
  }
  return -1;
}

/** End (exclusive) of the flow collection whose opening bracket is at `at`, or -1 when PyYAML would not
 * read it to its closing bracket. Tokens as PyYAML's scanner reads them in flow context: a comment starts at
 * `#` where a token could start or after white space; a quote starts a quoted scalar only where a token
 * starts (`it's` is plain); `,`, `?`, brackets, and `:` where a token starts or before white space or a
 * bracket separate tokens. */
function flowEnd(text: string, at: number): number {
  let depth = 0;
  let tokenStart = true;
  let afterSpace = false;
  for (let i = at; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const ch = text[i];
    if (c === NEWLINE || c === SPACE || c === TAB) {
      if (c === NEWLINE && documentMarkerAt(text, i + 1)) return -1;
      afterSpace = true;
      continue;
    }
    if (ch === '#' && (tokenStart || afterSpace)) {
      const eol = text.indexOf('\n', i);
      if (eol < 0) return -1;
      i = eol - 1;
      continue;
    }
    afterSpace = false;
    if (tokenStart && (ch === "'" || ch === '"')) {
      const end = quotedEnd(text, i);
      if (end < 0) return -1;
      i = end - 1;
      // The next token starts right after it: a `:` there is a value indicator (`{"a":'b'}`).
      tokenStart = true;
    } else if (ch === '[' || ch === '{') {
      depth++;
      tokenStart = true;
    } else if (ch === ']' || ch === '}') {
      if (--depth === 0) return i + 1;
      tokenStart = false;
    } else if (ch === ',' || ch === '?') {
      tokenStart = true;
    } else if (tokenStart && (ch === '&' || ch === '!')) {
      // An anchor or a tag: the node it belongs to starts after it.
      while (i + 1 < text.length && !/[\s,[\]{}]/.test(text[i + 1])) i++;
    } else if (ch === ':' && (tokenStart || /^[\s,[\]{}]?$/.test(text.charAt(i + 1)))) {
      tokenStart = true;
    } else {
      tokenStart = false;
    }
  }
  return -1;
}

/** Whether the character at `i` ends a token in block context (white space or the end of the line). */
function blankAt(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return Number.isNaN(c) || c === SPACE || c === TAB || c === NEWLINE;
}

/** Index of the line break ending the line that holds `i` (the text's length on the last line). */
function endOfLine(text: string, i: number): number {
  const eol = text.indexOf('\n', i);
  return eol < 0 ? text.length : eol;
}

/** Spaces at the start of the line beginning at `start`. */
function leadingSpaces(text: string, start: number): number {
  let i = start;
  while (text.charCodeAt(i) === SPACE) i++;
  return i - start;
}

/** Index of the first character at or after `i` that is neither a space nor a tab. */
function skipSpaces(text: string, i: number): number {
  let j = i;
  while (text.charCodeAt(j) === SPACE || text.charCodeAt(j) === TAB) j++;
  return j;
}

/** Spaces at the start of the line beginning at `start`, or -1 when the line is blank (spaces and tabs). */
function indentation(text: string, start: number): number {
  const c = text.charCodeAt(skipSpaces(text, start));
  return Number.isNaN(c) || c === NEWLINE ? -1 : leadingSpaces(text, start);
}

/** Start of the first line after `i`'s line that is not blank and is indented no deeper than `parent`, or
 * starts with a document marker (the text's length when there is none): the lines a plain or block scalar
 * may continue on are skipped. */
function skipDeeperLines(text: string, i: number, parent: number): number {
  let start = endOfLine(text, i) + 1;
  while (start < text.length) {
    const indent = indentation(text, start);
    if ((indent >= 0 && indent <= parent) || documentMarkerAt(text, start)) return start;
    start = endOfLine(text, start) + 1;
  }
  return text.length;
}

/** Where the `:` ending the plain key that starts at `i` is (followed by white space or the end of the
 * line, before any comment), or -1 when the plain scalar is no key. */
function plainKeyEnd(text: string, i: number): number {
  for (let j = i; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === NEWLINE) return -1;
    if (c === 0x3a && blankAt(text, j + 1)) return j;
    if (c === 0x23 && j > i && (text.charCodeAt(j - 1) === SPACE || text.charCodeAt(j - 1) === TAB)) return -1;
  }
  return -1;
}

/** A quoted scalar or a flow collection and the end PyYAML's scanner gives it. */
export interface Construct {
  at: number;
  end: number;
}

/** Multi-line quoted scalars and flow collections of a text in block context, read line by line with
 * PyYAML's token rules: sequence entries, explicit keys and values, anchors, tags and aliases are passed,
 * keys followed, comments, plain scalars and block scalars skipped with the lines they may continue on.
 * Whatever is not recognised ends the reading of its line; the reading stops at a construct PyYAML could not
 * read to its end. Positions are only candidates: the caller checks each against the parser. */
function multiLineConstructs(text: string): Construct[] {
  const found: Construct[] = [];
  let start = 0;
  lines: while (start < text.length) {
    const indent = indentation(text, start);
    let i = start + Math.max(indent, 0);
    let next = endOfLine(text, start) + 1;
    let parent = indent - 1;
    if (indent < 0 || text[i] === '#' || (indent === 0 && text[i] === '%')) {
      start = next;
      continue;
    }
    if (indent === 0 && documentMarkerAt(text, i)) i += 3;
    for (;;) {
      i = skipSpaces(text, i);
      const ch = text[i];
      if (i >= text.length || ch === '\n' || ch === '#') break;
      const column = i - start;
      if ((ch === '-' || ch === '?' || ch === ':') && blankAt(text, i + 1)) {
        parent = column;
        i++;
      } else if (ch === '&' || ch === '!' || ch === '*') {
        while (!blankAt(text, i)) i++;
      } else if (ch === '|' || ch === '>') {
        next = skipDeeperLines(text, i, parent);
        break;
      } else if (ch === "'" || ch === '"' || ch === '[' || ch === '{') {
        const end = ch === "'" || ch === '"' ? quotedEnd(text, i) : flowEnd(text, i);
        if (end < 0) break lines;
        const eol = endOfLine(text, i);
        if (end > eol) {
          found.push({ at: i, end });
          next = endOfLine(text, end) + 1;
          start = text.lastIndexOf('\n', end - 1) + 1;
        }
        i = end;
        i = skipSpaces(text, i);
        if (text[i] !== ':' || !blankAt(text, i + 1)) break;
        parent = column;
        i++;
      } else {
        // A plain scalar: a key when `: ` follows it on this line before a comment, else a value that may
        // continue on deeper lines. (Read up to the indicator only: a line of many keys stays linear.)
        const key = plainKeyEnd(text, i);
        if (key < 0) {
          next = skipDeeperLines(text, i, parent);
          break;
        }
        parent = column;
        i = key + 1;
      }
    }
    start = next;
  }
  return found;
}

/** Re-indent, to the column of its opening character, every line of a multi-line quoted scalar or flow
 * collection (in block context) that is indented less; lines of spaces only stay as they are. Null when no line
 * needs it. */
export function reindentContinuations(text: string): Reindented | null {
  const pieces: string[] = [];
  const added = new Map<number, number>();
  const constructs: Construct[] = [];
  let copied = 0;
  let gained = 0;
  let line = 1;
  let counted = 0;
  for (const { at, end } of multiLineConstructs(text)) {
    const column = at - (text.lastIndexOf('\n', at - 1) + 1);
    const before = gained;
    for (let nl = text.indexOf('\n', at); nl >= 0 && nl < end; nl = text.indexOf('\n', nl + 1)) {
      const indent = leadingSpaces(text, nl + 1);
      const first = text.charCodeAt(nl + 1 + indent);
      // Lines of spaces only are empty lines to both readers; a tab needs the line indented.
      if (indent >= column || first === NEWLINE || Number.isNaN(first)) continue;
      for (let i = text.indexOf('\n', counted); i >= 0 && i <= nl; i = text.indexOf('\n', i + 1)) line++;
      counted = nl + 1;
      pieces.push(text.slice(copied, nl + 1), ' '.repeat(column - indent));
      copied = nl + 1;
      added.set(line, column - indent);
      gained += column - indent;
    }
    if (gained !== before) constructs.push({ at: at + before, end: end + gained });
  }
  if (constructs.length === 0) return null;
  pieces.push(text.slice(copied));
  return { text: pieces.join(''), added, constructs };
}

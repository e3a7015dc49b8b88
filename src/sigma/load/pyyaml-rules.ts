// Where PyYAML, the reference YAML reader, and the general YAML 1.2 parser part ways, checked on a parsed
// document so that a rule loads only as PyYAML would load it: an error of the parser that PyYAML does not
// raise (a comment right after a quote, a bracket or a comma), anchors PyYAML refuses (a name it cannot read,
// one defined twice), and U+2028/U+2029, which PyYAML takes for line breaks where the parser keeps them as
// characters, and a double-quoted value whose escaped line break is followed by empty lines, which the
// parser folds into a space. Every check is linear in the document.
import { isScalar, parseDocument, Scalar, visit } from 'yaml';
import type { Document, Node as YamlNode, YAMLError } from 'yaml';

/** " (line L, column C)" of a source offset, or '' when unknown. */
export type Where = (offset: number | undefined) => string;

/** Whether a node is a quoted (single or double) scalar. */
export function isQuotedScalar(node: unknown): node is Scalar {
  return isScalar(node) && (node.type === Scalar.QUOTE_DOUBLE || node.type === Scalar.QUOTE_SINGLE);
}

/** Whether the parser's error `e` is about something PyYAML reads without complaint: a comment right after
 * a quote, a bracket or a comma (`'x'#note`, `[a]#note`, `[#note`, `[a,#note`), which PyYAML takes as a
 * comment as the parser does, only the parser also objects to the missing space. */
export function pyyamlReads(e: Pick<YAMLError, 'code' | 'message'> & { pos: readonly number[] }, source: string): boolean {
  const at = e.pos[0];
  return e.code === 'MISSING_CHAR' && source.charCodeAt(at) === 0x23 && /['"[\]{},]/.test(source.charAt(at - 1)) && e.message.startsWith('Comments must be separated');
}

/** PyYAML's anchor names: ASCII letters, digits, `-` and `_`. */
const ANCHOR_NAME = /^[0-9A-Za-z_-]+$/;

/** What PyYAML refuses in a document's anchors (a name it cannot read, an anchor defined twice), or null. */
export function anchorProblem(doc: Document, source: string, where: Where): string | null {
  if (!source.includes('&')) return null;
  const first = new Map<string, number | undefined>();
  let message: string | null = null;
  visit(doc, (_key, node) => {
    const anchor = (node as { anchor?: string } | null)?.anchor;
    if (!anchor) return undefined;
    // The node's range starts after its properties: the anchor is the last `&name` before it.
    const start = (node as YamlNode).range?.[0];
    const at = start === undefined ? undefined : source.lastIndexOf(`&${anchor}`, start);
    if (!ANCHOR_NAME.test(anchor)) {
      message = `YAML syntax error${where(at)}: the anchor name '${anchor}' may hold only ASCII letters, digits, '-' and '_'`;
    } else if (first.has(anchor)) {
      const was = where(first.get(anchor)).replace(/^ \(|\)$/g, '');
      message = `YAML syntax error${where(at)}: found duplicate anchor '${anchor}'${was ? ` (first defined at ${was})` : ''}`;
    } else {
      first.set(anchor, at);
      return undefined;
    }
    return visit.BREAK;
  });
  return message;
}

/** U+2028 LINE SEPARATOR and U+2029 PARAGRAPH SEPARATOR: line breaks to PyYAML, characters to the parser. */
const LINE_SEPARATOR = /[\u2028\u2029]/;

const SEPARATOR_NAMES: Record<string, string> = { '\u2028': 'U+2028 (line separator)', '\u2029': 'U+2029 (paragraph separator)' };

/** A U+2028/U+2029 the two readers would read differently in a stream of parsed documents, or null. Inside a
 * quoted string, with no space or tab beside it, PyYAML keeps the line break as that character, which is
 * what the parser reads; anywhere else (a plain value, a block scalar, a comment, between tokens or
 * documents) PyYAML breaks the line there, so the text is refused rather than read otherwise. */
export function lineSeparatorProblem(docs: readonly Document[], source: string, where: Where): string | null {
  if (!LINE_SEPARATOR.test(source)) return null;
  // The quoted scalars of the documents as [start, value end) ranges, which do not overlap, in source order.
  const quoted: Array<[number, number]> = [];
  for (const doc of docs) {
    visit(doc, {
      Scalar(_key, node) {
        if (isQuotedScalar(node) && node.range) quoted.push([node.range[0], node.range[1]]);
      },
    });
  }
  quoted.sort((a, b) => a[0] - b[0]);
  const separators = new RegExp(LINE_SEPARATOR.source, 'g');
  let q = 0;
  for (let m = separators.exec(source); m !== null; m = separators.exec(source)) {
    const at = m.index;
    // Separators come in source order: skip the strings that end before this one.
    while (q < quoted.length && quoted[q][1] <= at) q++;
    const inside = q < quoted.length && at > quoted[q][0] && at < quoted[q][1] - 1;
    const spaced = /[ \t]/.test(source.charAt(at - 1)) || /[ \t]/.test(source.charAt(at + 1));
    if (!inside || spaced) {
      const escape = m[0] === '\u2028' ? '\\u2028' : '\\u2029';
      return `YAML syntax error${where(at)}: ${SEPARATOR_NAMES[m[0]]} is a line break to the reference YAML reader; it may stand only inside a quoted string with no space or tab beside it (or write ${escape} in a double-quoted string)`;
    }
  }
  return null;
}

/** Whether the text of a double-quoted scalar may hold an escaped line break followed by an empty line. */
export function mayHaveEscapedBreakBeforeEmptyLine(raw: string): boolean {
  return /\\\n[ \t]*\n/.test(raw);
}

/** The value of a double-quoted scalar written `raw` (quotes included), as PyYAML reads it, for texts where
 * an escaped line break is followed by empty lines: each of those lines is a line feed to PyYAML (and to
 * YAML 1.2), where the parser folds them into one space. The lines are written as `\n` escapes before the
 * escaped break, the continuation lines indented by one space (white space that starts a continuation
 * line means nothing), and the scalar read alone. */
export function doubleQuotedAsPyyaml(raw: string): string {
  const emptyLine = /[ \t]*\n/y;
  const pieces: string[] = [];
  let copied = 0;
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] !== '\\') continue;
    if (raw[i + 1] !== '\n') {
      i++; // an escaped character
      continue;
    }
    let empty = 0;
    let after = i + 2;
    emptyLine.lastIndex = after;
    while (emptyLine.exec(raw) !== null) {
      empty++;
      after = emptyLine.lastIndex;
    }
    if (empty === 0) continue;
    pieces.push(raw.slice(copied, i), '\\n'.repeat(empty), '\\\n');
    copied = after;
    i = after - 1;
  }
  pieces.push(raw.slice(copied));
  const value = parseDocument(pieces.join('').replace(/\n/g, '\n '), { schema: 'failsafe' }).contents;
  return isScalar(value) && typeof value.value === 'string' ? value.value : raw;
}

/** A syntax error found in a parsed document: where, and what. */
export interface SyntaxProblem {
  offset: number;
  message: string;
}

/** What follows a key given a value (`:`, perhaps after white space). */
const VALUE_INDICATOR_NEXT = /^\s*:/;

/** What precedes an explicit key (`? `, then perhaps an anchor and a tag). */
const EXPLICIT_KEY_BEFORE = /\?(?:\s+[&!][^\s]*)*\s*$/;

/** The first syntax error of a document that PyYAML would raise too: the parser's own errors, except those
 * PyYAML reads past; quoted scalars the parser closed on a quote that their text escapes (`"a\"`, `'a''`),
 * which PyYAML reads on to a later line; implicit keys over several lines in flow mappings (`{a⏎ b: v}`),
 * which PyYAML refuses as it refuses them in block mappings. */
export function syntaxProblem(doc: Document, text: string): SyntaxProblem | undefined {
  const err = doc.errors.find((e) => !pyyamlReads(e, text));
  if (err) return { offset: err.pos[0], message: err.message };
  let problem: SyntaxProblem | undefined;
  visit(doc, {
    Scalar(_key, node) {
      if (!isQuotedScalar(node) || !node.range) return undefined;
      if (closedQuote(text, node.range[0], node.range[1])) return undefined;
      const quote = text[node.range[0]];
      problem = { offset: node.range[1], message: `Missing closing ${quote}quote` };
      return visit.BREAK;
    },
    Map(_key, node) {
      if (!node.flow) return undefined;
      for (const pair of node.items) {
        const range = isScalar(pair.key) ? pair.key.range : undefined;
        if (!range || !text.slice(range[0], range[1]).includes('\n')) continue;
        // A key without a value indicator (`{a⏎ b}`) and an explicit key (`{? a⏎ b: v}`) may span lines.
        if (!VALUE_INDICATOR_NEXT.test(text.slice(range[1], range[1] + 256)) || EXPLICIT_KEY_BEFORE.test(text.slice(Math.max(0, range[0] - 256), range[0]))) continue;
        problem = { offset: range[0], message: 'Implicit keys of flow mapping pairs need to be on a single line' };
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return problem;
}

/** Whether the quoted scalar written in text[start, end) ends with a closing quote that is not escaped: an
 * even number of backslashes before a double quote; an odd number of quotes ending a single-quoted one. */
function closedQuote(text: string, start: number, end: number): boolean {
  const quote = text.charCodeAt(start);
  if (end - start < 2 || text.charCodeAt(end - 1) !== quote) return false;
  let run = 0;
  if (quote === 0x22) {
    for (let i = end - 2; i > start && text.charCodeAt(i) === 0x5c; i--) run++;
    return run % 2 === 0;
  }
  for (let i = end - 1; i > start && text.charCodeAt(i) === quote; i--) run++;
  return run % 2 === 1;
}

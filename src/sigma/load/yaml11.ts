// YAML loading with PyYAML 1.1 scalar semantics (sigma-notes §13.1).
// Promises: every document is parsed with the failsafe schema and duplicate keys refused (keys compared as
// the text they become); quoted and block scalars stay strings; PLAIN scalars go through PyYAML's implicit
// resolvers (null, bool, int, float; timestamps stay as their text), so `00000429` stays a string; the
// standard scalar tags (`!!str`, `!!int`, …) build what PyYAML builds and other tags are refused
// (yaml11-scalars.ts). Line breaks are PyYAML's: CR LF, a lone CR and NEL (U+0085) are each one line feed.
// Anchors are PyYAML's (a name of ASCII letters, digits, `-`, `_`, defined once per document), keys are
// scalars (a list or mapping key is refused, as PyYAML cannot hash it), a comment may follow a quote or a
// bracket without a space, U+2028/U+2029 (line breaks to PyYAML) stand only inside quoted strings, and
// empty lines after an escaped line break are line feeds (pyyaml-rules.ts). Quoted scalars and flow
// collections continued on lines indented no deeper than their key are read as PyYAML reads them
// (continuation-lines.ts); a quoted scalar whose last quote is escaped is not closed there. Aliases are
// expanded under a strict budget (alias bombs are refused);
// inputs over 1 MiB, streams of more than MAX_DOCUMENTS documents and characters PyYAML's reader refuses
// (controls, lone surrogates) are refused, and the general parser stops at nesting, error floods and
// documents past 1 MiB (bounded-parse.ts). Never throws; work is linear in the input. Texts in the plain
// Sigma subset take a fast single-pass reader (fast-yaml.ts) that yields exactly the same value; anything
// else goes through the general parser (`loadYamlFull`).
import { LineCounter, isAlias, isMap, isScalar, isSeq, Scalar, visit } from 'yaml';
import type { Document, Node as YamlNode } from 'yaml';
import { fastYaml } from './fast-yaml.js';
import { reindentContinuations } from './continuation-lines.js';
import { parseBounded } from './bounded-parse.js';
import type { BoundedParse } from './bounded-parse.js';
import { anchorProblem, doubleQuotedAsPyyaml, isQuotedScalar, lineSeparatorProblem, mayHaveEscapedBreakBeforeEmptyLine, syntaxProblem } from './pyyaml-rules.js';
import type { SyntaxProblem } from './pyyaml-rules.js';
import { resolvePlainScalar, taggedScalar, YamlValueError } from './yaml11-scalars.js';

export const MAX_DOCUMENT_BYTES = 1024 * 1024;
/** Limit for a whole multi-document text (bulk import); each document still has MAX_DOCUMENT_BYTES. */
export const MAX_STREAM_BYTES = 16 * 1024 * 1024;
/** Documents in one text (a rule collection); more is not a rule file. */
export const MAX_DOCUMENTS = 10_000;
const MAX_ALIASES = 50;
/** Nodes a document may gain through its aliases (what it holds as written is bounded by its size). */
const MAX_ALIAS_NODES = 100_000;

export type YamlValue = null | boolean | number | string | YamlValue[] | { [key: string]: YamlValue };

export type YamlLoadResult =
  | { ok: true; documents: YamlValue[] }
  | { ok: false; kind: 'yaml' | 'size'; message: string };

/** What converting one document needs: its alias budget, and where things are in the source. */
class Conversion {
  aliases = 0;
  /** Nodes built inside alias expansions. */
  aliasNodes = 0;
  /** The source's length when its last line has no line break (a block scalar ending there has no final
   * break to keep, as PyYAML reads it), else -1. */
  readonly unbrokenEnd: number;
  constructor(
    /** " (line L, column C)" of a source offset, '' when it is unknown. */
    readonly where: (offset: number | undefined) => string,
    readonly source: string,
  ) {
    this.unbrokenEnd = source.endsWith('\n') ? -1 : source.length;
  }
}

/** Spaces re-indentation added to the lines of [start, end). */
function spacesAdded(added: ReadonlyMap<number, number>, lines: LineCounter, start: number, end: number): number {
  if (added.size === 0) return 0;
  const first = lines.linePos(start).line;
  const last = lines.linePos(end).line;
  let n = 0;
  for (const [line, spaces] of added) if (line >= first && line <= last) n += spaces;
  return n;
}

class LoadError extends Error {}

function convert(node: unknown, doc: Document, conversion: Conversion, viaAlias: boolean): YamlValue {
  if (viaAlias && ++conversion.aliasNodes > MAX_ALIAS_NODES) throw new LoadError('YAML aliases expand to too many nodes (alias bomb?)');
  if (node === null || node === undefined) return null;
  if (isAlias(node)) {
    if (++conversion.aliases > MAX_ALIASES) throw new LoadError(`too many YAML aliases (limit ${MAX_ALIASES})`);
    const target = node.resolve(doc);
    if (!target) throw new LoadError(`unresolved alias *${node.source}`);
    return convert(target, doc, conversion, true);
  }
  if (isScalar(node)) {
    try {
      if (node.tag) return taggedScalar(node.tag, typeof node.source === 'string' ? node.source : String(node.value));
      const value = node.value;
      if (typeof value !== 'string') return value === null || value === undefined ? null : String(value);
      if (node.type === Scalar.PLAIN) return resolvePlainScalar(value);
      if (node.type === Scalar.QUOTE_DOUBLE && node.range) {
        const raw = conversion.source.slice(node.range[0], node.range[1]);
        if (mayHaveEscapedBreakBeforeEmptyLine(raw)) return doubleQuotedAsPyyaml(raw);
      }
      const block = node.type === Scalar.BLOCK_LITERAL || node.type === Scalar.BLOCK_FOLDED;
      return block && node.range?.[1] === conversion.unbrokenEnd && value.endsWith('\n') ? value.slice(0, -1) : value;
    } catch (e) {
      if (e instanceof YamlValueError) throw new LoadError(`YAML value error${conversion.where(node.range?.[0])}: ${e.message}`);
      throw e;
    }
  }
  const tag = (node as { tag?: string }).tag;
  if (tag && tag !== '!' && tag !== 'tag:yaml.org,2002:map' && tag !== 'tag:yaml.org,2002:seq') {
    throw new LoadError(`YAML value error${conversion.where((node as YamlNode).range?.[0])}: the YAML tag ${tag.replace('tag:yaml.org,2002:', '!!')} is not supported`);
  }
  if (isMap(node)) {
    const out: Record<string, YamlValue> = {};
    for (const pair of node.items) {
      const key = convert(pair.key as YamlNode, doc, conversion, viaAlias);
      // As in PyYAML, a key is a scalar: a list or a mapping cannot be a key of a Python dict.
      if (key !== null && typeof key === 'object') {
        throw new LoadError(`YAML value error${conversion.where((pair.key as YamlNode | null)?.range?.[0])}: found unhashable key (a list or a mapping cannot be a mapping key)`);
      }
      const keyText = key === null ? '' : String(key);
      if (Object.prototype.hasOwnProperty.call(out, keyText)) {
        throw new LoadError(`YAML syntax error${conversion.where((pair.key as YamlNode | null)?.range?.[0])}: Map keys must be unique ("${keyText}" is repeated)`);
      }
      // defineProperty: a key such as `__proto__` stays an ordinary own property (no prototype change).
      Object.defineProperty(out, keyText, { value: convert(pair.value as YamlNode, doc, conversion, viaAlias), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  if (isSeq(node)) return node.items.map((item) => convert(item as YamlNode, doc, conversion, viaAlias));
  return null;
}

/** The text as PyYAML's scanner sees it: without a byte order mark at its start, and with CR LF, a lone CR
 * and NEL each a line feed. */
function normaliseBreaks(text: string): string {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return /[\r\x85]/.test(source) ? source.replace(/\r\n?|\x85/g, '\n') : source;
}

/** Whether a YAML text holds more than `limit` documents, counted by their `---` markers (an upper bound
 * of the documents a parser would find, computed without parsing). */
export function moreDocumentsThan(source: string, limit: number): boolean {
  let n = 0;
  for (let at = source.indexOf('---'); at >= 0; at = source.indexOf('---', at + 3)) {
    if ((at === 0 || source.charCodeAt(at - 1) === 10 || source.charCodeAt(at - 1) === 13) && ++n > limit) return true;
  }
  return false;
}

const NESTED_TOO_DEEPLY = 'the document is nested too deeply';
export const DOCUMENT_TOO_LARGE_MESSAGE = `document is larger than ${MAX_DOCUMENT_BYTES} bytes (1 MiB)`;
const DOCUMENT_TOO_LARGE: YamlLoadResult = { ok: false, kind: 'size', message: DOCUMENT_TOO_LARGE_MESSAGE };

function firstLine(message: string): string {
  return message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
}

function tooLarge(source: string, maxBytes: number): YamlLoadResult | null {
  // A UTF-8 byte count is at most 3 per UTF-16 code unit: short texts need no count.
  if (source.length * 3 <= maxBytes || Buffer.byteLength(source, 'utf8') <= maxBytes) return null;
  const what = maxBytes === MAX_DOCUMENT_BYTES ? 'document' : 'text';
  return { ok: false, kind: 'size', message: `${what} is larger than ${maxBytes} bytes (${maxBytes / 1024 / 1024} MiB)` };
}

/** Characters PyYAML's reader refuses anywhere in a text: controls other than tab and line breaks, DEL,
 * C1 controls other than NEL, U+FFFE, U+FFFF and lone surrogates. */
const NON_PRINTABLE = /[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u;

/** The text refused as PyYAML's reader refuses it, or null when every character is acceptable. */
function unacceptable(source: string): YamlLoadResult | null {
  const m = NON_PRINTABLE.exec(source);
  if (m === null) return null;
  const before = source.slice(0, m.index).split('\n');
  const where = `line ${before.length}, column ${before[before.length - 1].length + 1}`;
  const code = (m[0].codePointAt(0) as number).toString(16).padStart(4, '0');
  return { ok: false, kind: 'yaml', message: `YAML syntax error (${where}): unacceptable character #x${code}: special characters are not allowed` };
}

/** Parse every document of a YAML text (the fast reader when the text allows it, else the full parser). */
export function loadYaml(text: string, maxBytes = MAX_DOCUMENT_BYTES): YamlLoadResult {
  const big = tooLarge(text, maxBytes) ?? unacceptable(text);
  if (big) return big;
  const source = normaliseBreaks(text);
  // One document of at most MAX_DOCUMENT_BYTES (the fast reader only accepts a single document).
  if (source.length * 3 <= MAX_DOCUMENT_BYTES || Buffer.byteLength(source, 'utf8') <= MAX_DOCUMENT_BYTES) {
    const fast = fastYaml(source);
    if (fast !== null) return { ok: true, documents: [fast] };
  }
  return parseStream(source);
}

/** Parse every document of a YAML text with the general parser. */
export function loadYamlFull(text: string, maxBytes = MAX_DOCUMENT_BYTES): YamlLoadResult {
  const big = tooLarge(text, maxBytes) ?? unacceptable(text);
  return big ?? parseStream(normaliseBreaks(text));
}

/** Where each quoted scalar and flow collection the parser read ends, by where it starts. */
function constructEnds(docs: readonly Document[]): Map<number, number> {
  const ends = new Map<number, number>();
  for (const doc of docs) {
    visit(doc, (_key, node) => {
      const range = (node as YamlNode | null)?.range;
      if (!range) return;
      if (isQuotedScalar(node) || ((isMap(node) || isSeq(node)) && node.flow)) ends.set(range[0], range[1]);
    });
  }
  return ends;
}

interface Parsed {
  docs: Document.Parsed[];
  /** Each document's first syntax error PyYAML would raise too (pyyaml-rules.ts). */
  problems: Array<SyntaxProblem | undefined>;
  /** Why the parser stopped before the end (bounded-parse.ts); `docs` then holds the documents before. */
  cutOff?: BoundedParse['cutOff'];
  lines: LineCounter;
}

/** `maxChars`: a document longer than this is refused while it is read (it is over MAX_DOCUMENT_BYTES). */
function parseText(text: string, maxChars: number): Parsed {
  const lines = new LineCounter();
  // Keys are checked for uniqueness in convert (as the text they become, in linear time). Errors are not
  // made pretty: that quotes context for each of them (quadratic on a long line of broken flow items);
  // the first one's place comes from the line counter.
  const { docs, cutOff } = parseBounded(text, lines, { maxDocumentChars: maxChars });
  return { docs, problems: docs.map((doc) => syntaxProblem(doc, text)), cutOff, lines };
}

/** The text parsed as PyYAML reads it: when the parser finds an error, the continuation lines of quoted
 * scalars and flow collections are re-indented (continuation-lines.ts) and the text parsed again, kept only
 * if the parser then reads each re-indented construct exactly to the end PyYAML's scanner gives it. `added`
 * holds the spaces each line gained. */
function parseAsPyyaml(source: string): Parsed & { text: string; added: ReadonlyMap<number, number> } {
  const parsed = parseText(source, MAX_DOCUMENT_BYTES);
  const unchanged = { ...parsed, text: source, added: new Map<number, number>() };
  if (parsed.cutOff?.size || (!parsed.cutOff && parsed.problems.every((p) => p === undefined))) return unchanged;
  const fix = reindentContinuations(source);
  if (fix === null) return unchanged;
  // Re-indenting only inserts spaces: a document may grow by as many characters as were added.
  const again = parseText(fix.text, MAX_DOCUMENT_BYTES + fix.text.length - source.length);
  const ends = constructEnds(again.docs);
  return !again.cutOff && fix.constructs.every(({ at, end }) => ends.get(at) === end) ? { ...again, text: fix.text, added: fix.added } : unchanged;
}

/** The general parser on a text whose size and characters were checked and whose line breaks are
 * normalised. */
function parseStream(source: string): YamlLoadResult {
  if (moreDocumentsThan(source, MAX_DOCUMENTS)) return { ok: false, kind: 'size', message: `the text holds more than ${MAX_DOCUMENTS} YAML documents` };
  try {
    const { docs, problems, cutOff, lines, text, added } = parseAsPyyaml(source);
    // Places in the source: a re-indented line's columns are shifted back.
    const where = (offset: number | undefined): string => {
      if (offset === undefined) return '';
      const { line, col } = lines.linePos(offset);
      const gained = added.get(line) ?? 0;
      return ` (line ${line}, column ${col > gained ? col - gained : 1})`;
    };
    // First, as PyYAML would read the whole text otherwise (its errors included).
    const separators = lineSeparatorProblem(docs, text, where);
    if (separators) return { ok: false, kind: 'yaml', message: separators };
    const out: YamlValue[] = [];
    for (const [d, doc] of docs.entries()) {
      const [start, , end] = doc.range;
      if (end - start > MAX_DOCUMENT_BYTES && Buffer.byteLength(text.slice(start, end), 'utf8') - spacesAdded(added, lines, start, end) > MAX_DOCUMENT_BYTES) {
        return DOCUMENT_TOO_LARGE;
      }
      const err = problems[d];
      if (err) {
        const place = where(err.offset);
        // The parser reports its own stack overflow (deeply nested flow collections) as a syntax error.
        const what = /Maximum call stack size exceeded/.test(err.message) ? NESTED_TOO_DEEPLY : firstLine(err.message);
        return { ok: false, kind: 'yaml', message: `YAML syntax error${place}: ${what}` };
      }
      const anchors = anchorProblem(doc, text, where);
      if (anchors) return { ok: false, kind: 'yaml', message: anchors };
      out.push(convert(doc.contents, doc, new Conversion(where, text), false));
    }
    if (cutOff?.size) return DOCUMENT_TOO_LARGE;
    if (cutOff) return { ok: false, kind: 'yaml', message: `YAML syntax error${where(cutOff.offset)}: ${firstLine(cutOff.message)}` };
    return { ok: true, documents: out };
  } catch (e) {
    if (e instanceof RangeError) return { ok: false, kind: 'yaml', message: `YAML syntax error: ${NESTED_TOO_DEEPLY}` };
    return { ok: false, kind: 'yaml', message: e instanceof Error ? e.message : String(e) };
  }
}

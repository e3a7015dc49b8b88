// The general YAML parser run with bounds on its work, so that a hostile text of at most 1 MiB is refused in
// about a second and a few hundred MiB instead of tens of seconds and gigabytes: the lexer, parser and
// composer are driven token by token, and parsing stops
// - when more than MAX_NESTING collections are open at once (block or flow, one inside the other): a
//   megabyte of `[` or `- - -` used to build a syntax tree of a gigabyte before the composer overflowed the
//   stack at a depth that depended on the machine; the refusal now names a fixed depth and the place of
//   the collection one too deep;
// - at the MAX_SYNTAX_ERRORS-th syntax error that PyYAML would raise too (the text is refused anyway; the
//   first of them is reported): a megabyte of `]` used to make a million error objects;
// - when a document runs longer than the caller allows (`maxDocumentChars`): a document over the size
//   limit is refused anyway, and a 16 MiB one used to cost gigabytes before its size was checked.
// Errors are made without stack traces (the parser's error objects are Error subclasses, and capturing a
// stack for each of a hundred thousand errors dominated the cost).
// Promises: when no bound is met, the same documents as the parser's parseAllDocuments (documents are
// yielded by the composer as the parser completes them); otherwise the documents completed before the
// problem (the last of them may hold errors of the text after it) and a `cutOff` problem at a place in the
// text. Never throws on account of the text (a stack overflow in the parser itself would still surface as
// RangeError, which the loader reports).
import { Composer, Lexer, Parser } from 'yaml';
import type { CST, Document, ErrorCode, LineCounter } from 'yaml';
import type { SyntaxProblem } from './pyyaml-rules.js';
import { pyyamlReads } from './pyyaml-rules.js';

/** Collections that may be open at once: deeper texts are refused. Sigma rules nest a few levels. */
export const MAX_NESTING = 256;
/** Syntax errors after which parsing stops. */
const MAX_SYNTAX_ERRORS = 100;

const NESTED = `the document is nested more than ${MAX_NESTING} levels deep`;

export interface BoundedParse {
  /** The documents (none when `onDocument` took them). */
  docs: Document.Parsed[];
  /** Why parsing stopped before the end of the text, and where; `size` when a document was too long. */
  cutOff?: SyntaxProblem & { size?: true };
}

type ErrorSource = number | readonly number[] | { offset: number; source?: string };
type OnError = (source: ErrorSource, code: ErrorCode, message: string, warning?: boolean) => void;

/** Where an error of the composer starts (as the composer itself places it). */
function errorOffset(source: ErrorSource): number {
  if (typeof source === 'number') return source;
  if (Array.isArray(source)) return source[0] as number;
  return (source as { offset: number }).offset;
}

const COLLECTIONS = new Set(['block-map', 'block-seq', 'flow-collection']);

function collectionsOpen(stack: readonly CST.Token[]): number {
  let n = 0;
  for (const token of stack) if (COLLECTIONS.has(token.type)) n++;
  return n;
}

class Stop extends Error {
  constructor(readonly problem: NonNullable<BoundedParse['cutOff']>) {
    super(problem.message);
  }
}

export interface BoundOptions {
  /** Documents longer than this many characters (from their start to where the parser is) are refused. */
  maxDocumentChars?: number;
  /** Receives each document as it is completed, instead of collecting them (memory stays that of one). */
  onDocument?: (doc: Document.Parsed) => void;
}

/** Every document of `text` with the failsafe schema (duplicate keys are checked by the caller), within the
 * bounds above; `lines` learns where lines start. */
export function parseBounded(text: string, lines: LineCounter, options: BoundOptions = {}): BoundedParse {
  const stackLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  const docs: Document.Parsed[] = [];
  const take = options.onDocument ?? ((doc: Document.Parsed) => docs.push(doc));
  const maxChars = options.maxDocumentChars ?? Infinity;
  const composer = new Composer({ schema: 'failsafe', uniqueKeys: false });
  try {
    const parser = new Parser(lines.addNewLine);
    // The composer reports every error through its `onError` property, which it passes on to the code
    // composing each document: counting there sees them all, as they are made.
    const counted = composer as unknown as { onError: OnError };
    const report = counted.onError;
    let first: SyntaxProblem | undefined;
    let errors = 0;
    const count = (offset: number, message: string): void => {
      first ??= { offset, message };
      if (++errors >= MAX_SYNTAX_ERRORS) throw new Stop(first);
    };
    counted.onError = (source, code, message, warning) => {
      report(source, code, message, warning);
      const offset = errorOffset(source);
      if (!warning && !pyyamlReads({ pos: [offset], code, message }, text)) count(offset, message);
    };
    // The composer takes the parser's error tokens in without its onError.
    const compose = (token: CST.Token): void => {
      if (token.type === 'error') count(token.offset, token.source ? `${token.message}: ${JSON.stringify(token.source)}` : token.message);
      for (const doc of composer.next(token)) take(doc);
    };
    lines.addNewLine(0);
    for (const lexeme of new Lexer().lex(text, false)) {
      const at = parser.offset;
      for (const token of parser.next(lexeme)) compose(token);
      const stack = parser.stack;
      // The stack also holds the document and perhaps a scalar being read.
      if (stack.length > MAX_NESTING + 1 && collectionsOpen(stack) > MAX_NESTING) throw new Stop({ offset: at, message: NESTED });
      if (stack.length > 0 && stack[0].type === 'document' && parser.offset - stack[0].offset > maxChars) {
        throw new Stop({ offset: stack[0].offset, message: `document is longer than ${maxChars} characters`, size: true });
      }
    }
    for (const token of parser.end()) compose(token);
    for (const doc of composer.end()) take(doc);
    return { docs };
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
    // The composer holds the last document it completed until it sees the next one: it is whole.
    try {
      for (const doc of composer.end()) take(doc);
    } catch (late) {
      if (!(late instanceof Stop)) throw late;
    }
    return { docs, cutOff: e.problem };
  } finally {
    Error.stackTraceLimit = stackLimit;
  }
}

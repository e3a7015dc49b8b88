// Problems of the YAML in the editor, each placed at a line: syntax errors from a local parse (instant, with
// line and column), the server's syntax error (its "(line L, column C)"), and the server's validation errors,
// whose field path (`detection.selection.Image`, `tags[0]`) is looked up in the parsed document; a path
// that is not there (a missing `condition`) is placed at the deepest part that is (`detection:`).
import { isMap, isPair, isScalar, isSeq, LineCounter, parseAllDocuments, type Document, type YAMLError } from 'yaml';

export interface Problem {
  /** 1-based line, or null when the problem has no place in the text. */
  line: number | null;
  column: number | null;
  message: string;
  /** The rule field the server named, for validation errors. */
  field?: string;
  source: 'syntax' | 'check';
}

export interface LocalParse {
  docs: Document.Parsed[];
  lines: LineCounter;
  problems: Problem[];
}

/** The parser objects to a comment right after a quote, bracket or comma, which PyYAML (and so the server) reads. */
function pyyamlReads(error: YAMLError, text: string): boolean {
  const at = error.pos[0];
  return error.code === 'MISSING_CHAR' && text.charCodeAt(at) === 0x23 && /['"[\]{},]/.test(text.charAt(at - 1)) && error.message.startsWith('Comments must be separated');
}

/** The first line of a parser message, without its " at line L, column C" (the place is shown apart). */
function shortMessage(message: string): string {
  return message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
}

export function parseLocally(text: string): LocalParse {
  const lines = new LineCounter();
  let docs: Document.Parsed[] = [];
  const problems: Problem[] = [];
  try {
    docs = parseAllDocuments(text, { lineCounter: lines, prettyErrors: false, version: '1.1', uniqueKeys: true }) as Document.Parsed[];
    if (!Array.isArray(docs)) docs = [];
  } catch (e) {
    problems.push({ line: null, column: null, message: e instanceof Error ? e.message : String(e), source: 'syntax' });
  }
  for (const doc of docs) {
    for (const error of doc.errors) {
      if (pyyamlReads(error, text)) continue;
      const { line, col } = lines.linePos(error.pos[0]);
      problems.push({ line, column: col, message: shortMessage(error.message), source: 'syntax' });
    }
  }
  return { docs, lines, problems };
}

type Step = { key: string } | { index: number };

function steps(field: string): Step[] {
  const out: Step[] = [];
  for (const match of field.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) out.push(match[2] !== undefined ? { index: Number(match[2]) } : { key: match[1] });
  return out;
}

/**
 * The line of a field path in the parsed rule: the key (or list item) of the deepest part found. Keys may
 * hold dots (`process.name`), so several path steps are tried as one key, the longest first. A Sigma
 * collection (an `action: global` document and the rules it completes) is one rule of several documents:
 * the document where the path goes deepest has the line (the first of them on a tie).
 */
export function lineOfField(parsed: LocalParse, field: string): number | null {
  const path = steps(field);
  let best: { depth: number; line: number | null } = { depth: -1, line: null };
  for (const doc of parsed.docs) {
    const found = placeIn(doc, parsed.lines, path);
    if (found.line !== null && found.depth > best.depth) best = found;
  }
  return best.line;
}

/** How many steps of the path one document holds, and the line of the deepest. */
function placeIn(doc: Document.Parsed, lines: LineCounter, path: Step[]): { depth: number; line: number | null } {
  let node: unknown = doc.contents;
  let line: number | null = null;
  let i = 0;
  while (i < path.length) {
    const step = path[i];
    if ('index' in step) {
      if (!isSeq(node)) break;
      const item = node.items[step.index] as { range?: [number, number, number] } | undefined;
      if (!item?.range) break;
      line = lines.linePos(item.range[0]).line;
      node = item;
      i++;
      continue;
    }
    if (!isMap(node)) break;
    const map = node;
    let found = false;
    for (let n = path.length - i; n >= 1 && !found; n--) {
      const run = path.slice(i, i + n);
      if (run.some((s) => 'index' in s)) continue;
      const name = run.map((s) => (s as { key: string }).key).join('.');
      for (const pair of map.items) {
        if (!isPair(pair) || !isScalar(pair.key) || String(pair.key.value) !== name || !pair.key.range) continue;
        line = lines.linePos(pair.key.range[0]).line;
        node = pair.value;
        i += n;
        found = true;
        break;
      }
    }
    if (!found) break;
  }
  return { depth: i, line };
}

/** "(line L, column C)" in a server message, as the server's YAML reader writes it. */
export function placeInMessage(message: string): { line: number; column: number } | null {
  const match = /\(line (\d+), column (\d+)\)/.exec(message);
  return match ? { line: Number(match[1]), column: Number(match[2]) } : null;
}

// Splitting a multi-document YAML text (a bulk upload of rules) into the text of each document, with the
// bounded parser (bounded-parse.ts): memory stays that of one document, a document longer than
// MAX_DOCUMENT_BYTES characters or a flood of syntax errors stops the split, and what follows is named by
// the problem instead (each document's own errors are left to the rule loader, which reports them).
// Promises: `texts` are the documents as written, without their `---` line and a final `...` line, empty
// documents left out; `rest` is set when splitting stopped, with a message placing the problem in `text`.
import { LineCounter } from 'yaml';
import { parseBounded } from './bounded-parse.js';
import { DOCUMENT_TOO_LARGE_MESSAGE, MAX_DOCUMENT_BYTES } from './yaml11.js';

export interface DocumentSplit {
  texts: string[];
  /** Why the text after the last document could not be split, in the loader's words. */
  rest?: string;
}

export function splitDocuments(text: string): DocumentSplit {
  const texts: string[] = [];
  const lines = new LineCounter();
  const { cutOff } = parseBounded(text, lines, {
    maxDocumentChars: MAX_DOCUMENT_BYTES,
    onDocument: (doc) => {
      const [start, , end] = doc.range;
      const written = text.slice(start, end).replace(/^---[^\n]*\n?/, '').replace(/\n\.\.\.\s*$/, '\n');
      if (written.trim() !== '' || doc.contents !== null) texts.push(written);
    },
  });
  if (!cutOff) return { texts };
  if (cutOff.size) return { texts, rest: DOCUMENT_TOO_LARGE_MESSAGE };
  const { line, col } = lines.linePos(cutOff.offset);
  return { texts, rest: `YAML syntax error (line ${line}, column ${col}): ${cutOff.message}` };
}

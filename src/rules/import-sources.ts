// Splits an import upload into rule documents: a multi-document YAML text (split on document
// boundaries, each document kept as written; what cannot be split fails as one document) or a zip of rule
// files (*.yml / *.yaml, any folder).
// Limits: 10,000 documents; a zip may expand to at most 64 MiB and no entry may exceed 1 MiB.
import { unzipSync } from 'fflate';
import { badRequest } from '../http/errors.js';
import { moreDocumentsThan, splitDocuments } from '../sigma/index.js';

export const MAX_IMPORT_DOCUMENTS = 10_000;
const MAX_UNZIPPED_BYTES = 64 * 1024 * 1024;
const MAX_ENTRY_BYTES = 1024 * 1024;

export interface ImportDocument {
  yaml: string;
  /** File name inside a zip. */
  path?: string;
  /** Set when the entry could not be read at all. */
  error?: string;
}

export function documentsFromYaml(text: string): ImportDocument[] {
  // Counted before parsing, so an upload of many tiny documents is refused at once; keys are checked for
  // uniqueness later, per rule, in linear time (the parser's own check compares every pair).
  if (moreDocumentsThan(text, MAX_IMPORT_DOCUMENTS)) throw badRequest(`Too many documents: at most ${MAX_IMPORT_DOCUMENTS} rules per import`);
  const { texts, rest } = splitDocuments(text);
  const out: ImportDocument[] = texts.map((yaml) => ({ yaml }));
  // What could not be split (a document over 1 MiB, a flood of syntax errors) fails as one document.
  if (rest !== undefined) out.push({ yaml: '', error: rest });
  if (out.length > MAX_IMPORT_DOCUMENTS) throw badRequest(`Too many documents: at most ${MAX_IMPORT_DOCUMENTS} rules per import`);
  return out;
}

export function documentsFromZip(data: Buffer): ImportDocument[] {
  let total = 0;
  let count = 0;
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), {
      filter: (file) => {
        if (!/\.ya?ml$/i.test(file.name) || file.name.endsWith('/')) return false;
        count++;
        total += file.originalSize;
        if (count > MAX_IMPORT_DOCUMENTS) throw badRequest(`Too many files: at most ${MAX_IMPORT_DOCUMENTS} rules per import`);
        if (total > MAX_UNZIPPED_BYTES) throw badRequest('The zip expands to more than 64 MiB');
        return file.originalSize <= MAX_ENTRY_BYTES;
      },
    });
  } catch (error) {
    if (error instanceof Error && 'statusCode' in error) throw error;
    throw badRequest(`Invalid zip archive: ${(error as Error).message}`);
  }
  const decoder = new TextDecoder('utf-8', { fatal: true });
  return Object.keys(files)
    .sort()
    .map((path) => {
      try {
        return { path, yaml: decoder.decode(files[path]) };
      } catch {
        return { path, yaml: '', error: 'the file is not valid UTF-8' };
      }
    });
}

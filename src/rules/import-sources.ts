// Splits an import upload into rule documents: a multi-document YAML text (split on document
// boundaries, each document kept as written; what cannot be split fails as one document) or a zip of rule
// files (*.yml / *.yaml, any folder).
// Limits: 10,000 documents; a zip may expand to at most 64 MiB and no entry may exceed 1 MiB, checked
// on the bytes really inflated (413 past either).
import { Unzip, UnzipInflate } from 'fflate';
import { HttpError, badRequest } from '../http/errors.js';
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

/** Zip bytes handed to the unzipper at once: a piece inflates to at most about 1 MiB (deflate expands
 * at most ~1000 times), so the limits below are checked after every MiB or so of real output. */
const ZIP_PIECE = 1024;
/** Milliseconds of unzipping between two pauses that let other requests run. */
const ZIP_SLICE_MS = 20;

const zipTooLarge = () => new HttpError(413, `The zip expands to more than ${MAX_UNZIPPED_BYTES / 1024 / 1024} MiB, the most one import may hold`);

interface ZipEntry {
  path: string;
  chunks: Uint8Array[];
  size: number;
  done: boolean;
  error?: string;
}

/**
 * The rule files of a zip. Sizes are checked on the bytes really inflated, not on the sizes the archive
 * declares: inflating stops as soon as an entry passes 1 MiB or the whole passes 64 MiB (413), and an
 * entry that declares more than 1 MiB is reported as failed without being inflated. The archive is read
 * in small pieces with pauses, so a big upload never stalls other requests.
 */
export async function documentsFromZip(data: Buffer): Promise<ImportDocument[]> {
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  // A zip starts with a local file header (or, empty, with the end of its central directory).
  if (bytes.length < 4 || bytes[0] !== 0x50 || bytes[1] !== 0x4b || !((bytes[2] === 3 && bytes[3] === 4) || (bytes[2] === 5 && bytes[3] === 6))) {
    throw badRequest('Invalid zip archive: the upload is not a zip file');
  }
  const entries = new Map<string, ZipEntry>();
  const refused: ImportDocument[] = [];
  let count = 0;
  let total = 0;
  let problem: HttpError | undefined;
  const unzip = new Unzip((file) => {
    if (problem || !/\.ya?ml$/i.test(file.name) || file.name.endsWith('/')) return;
    if (++count > MAX_IMPORT_DOCUMENTS) {
      problem = badRequest(`Too many files: at most ${MAX_IMPORT_DOCUMENTS} rules per import`);
      return;
    }
    if (file.originalSize !== undefined && file.originalSize > MAX_ENTRY_BYTES) {
      entries.delete(file.name);
      refused.push({ path: file.name, yaml: '', error: 'the file is larger than 1 MiB' });
      return;
    }
    const entry: ZipEntry = { path: file.name, chunks: [], size: 0, done: false };
    entries.set(file.name, entry);
    file.ondata = (error, chunk, final) => {
      if (problem || entry.error) return;
      if (error) {
        entry.error = `the file cannot be unzipped: ${error.message}`;
        return;
      }
      entry.size += chunk.length;
      total += chunk.length;
      if (entry.size > MAX_ENTRY_BYTES) {
        problem = new HttpError(413, `The zip entry '${file.name.slice(0, 200)}' expands to more than 1 MiB, the most one rule file may hold`);
      } else if (total > MAX_UNZIPPED_BYTES) {
        problem = zipTooLarge();
      } else {
        entry.chunks.push(chunk);
        entry.done = final;
      }
    };
    file.start();
  });
  unzip.register(UnzipInflate);
  try {
    let sliceStart = Date.now();
    for (let offset = 0; offset < bytes.length; offset += ZIP_PIECE) {
      if (Date.now() - sliceStart >= ZIP_SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceStart = Date.now();
      }
      unzip.push(bytes.subarray(offset, offset + ZIP_PIECE), offset + ZIP_PIECE >= bytes.length);
      if (problem) break;
    }
  } catch (error) {
    if (!problem) throw badRequest(`Invalid zip archive: ${(error as Error).message}`);
  }
  if (problem) throw problem;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const documents: ImportDocument[] = [...entries.values()].map(({ path, chunks, done, error }) => {
    if (error) return { path, yaml: '', error };
    if (!done) return { path, yaml: '', error: 'the file is cut short in the zip' };
    try {
      return { path, yaml: decoder.decode(Buffer.concat(chunks)) };
    } catch {
      return { path, yaml: '', error: 'the file is not valid UTF-8' };
    }
  });
  return [...documents, ...refused].sort((a, b) => (a.path! < b.path! ? -1 : a.path! > b.path! ? 1 : 0));
}

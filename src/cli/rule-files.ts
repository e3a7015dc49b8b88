// Finding and reading the rule files named on the command line. Promises: directories are searched
// recursively for .yml/.yaml files (sorted by name); each file is read once however many times it is
// reached (paths are compared after resolving symbolic links, so directory cycles end too); entries that
// cannot be read (dangling links, permissions) and entries that are not regular files (FIFOs, sockets,
// devices: reading them could block), files larger than a rule text may be (never read) and files that
// are not UTF-8 text are reported in `rejected` with a reason, never thrown. Names that are not UTF-8 (a
// file copied from a legacy code page) are still read, through their bytes; they are shown with U+FFFD.
import { isUtf8 } from 'node:buffer';
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { join, sep } from 'node:path';
import { MAX_STREAM_BYTES } from '../sigma/index.js';
import type { RuleSource } from '../sigma/index.js';

/** A path as given, or as the bytes of a directory entry whose name is not UTF-8. */
type FsPath = string | Buffer;

function shown(path: FsPath): string {
  return typeof path === 'string' ? path : path.toString('utf8');
}

function childPath(dir: FsPath, name: Buffer): FsPath {
  if (typeof dir === 'string' && isUtf8(name)) return join(dir, name.toString('utf8'));
  const base = typeof dir === 'string' ? Buffer.from(dir, 'utf8') : dir;
  const slash = base.length > 0 && base[base.length - 1] === sep.charCodeAt(0) ? [] : [Buffer.from(sep)];
  return Buffer.concat([base, ...slash, name]);
}

export interface Unreadable {
  path: string;
  reason: string;
}

function errorText(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  return err.code ? `${err.code}: ${err.message.replace(/^\w+: /, '')}` : String(err.message ?? e);
}

/** Rule sources under `paths`, in order; what cannot be read goes to `rejected`. */
export function* readRuleSources(paths: string[], rejected: Unreadable[]): Generator<RuleSource> {
  const seen = new Set<string>();
  function* visit(path: FsPath): Generator<RuleSource> {
    let real: Buffer;
    let st: Stats;
    try {
      real = realpathSync.native(path, { encoding: 'buffer' });
      st = statSync(real);
    } catch (e) {
      rejected.push({ path: shown(path), reason: `cannot read: ${errorText(e)}` });
      return;
    }
    const key = real.toString('latin1'); // the bytes, one character each
    if (seen.has(key)) return;
    seen.add(key);
    if (st.isDirectory()) {
      let names: Buffer[];
      try {
        names = readdirSync(path, { encoding: 'buffer' }).sort(Buffer.compare);
      } catch (e) {
        rejected.push({ path: shown(path), reason: `cannot read: ${errorText(e)}` });
        return;
      }
      for (const name of names) {
        const child = childPath(path, name);
        // Files are taken by their extension; directories (or links to them) are searched.
        if (/\.ya?ml$/i.test(name.toString('latin1'))) yield* visit(child);
        else if (isDirectory(child)) yield* visit(child);
      }
      return;
    }
    if (!st.isFile()) {
      rejected.push({ path: shown(path), reason: 'not a regular file' });
      return;
    }
    // Not read at all when larger than a rule text may be (a stray dump named .yml).
    if (st.size > MAX_STREAM_BYTES) {
      rejected.push({ path: shown(path), reason: `the file is larger than ${MAX_STREAM_BYTES} bytes (${MAX_STREAM_BYTES / 1024 / 1024} MiB), the most a rule file may hold` });
      return;
    }
    let bytes: Buffer;
    try {
      bytes = readFileSync(real);
    } catch (e) {
      rejected.push({ path: shown(path), reason: `cannot read: ${errorText(e)}` });
      return;
    }
    // Rule files are UTF-8, as the reference loader reads them: other bytes are refused, not replaced.
    if (!isUtf8(bytes)) rejected.push({ path: shown(path), reason: 'not valid UTF-8 text' });
    else yield { path: shown(path), text: bytes.toString('utf8') };
  }
  for (const p of paths) yield* visit(p);
}

function isDirectory(path: FsPath): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false; // dangling links without a rule extension are not rule files
  }
}

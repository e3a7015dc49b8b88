// Finding and reading the rule files named on the command line. Promises: directories are searched
// recursively for .yml/.yaml files (sorted by name); each file is read once however many times it is
// reached (paths are compared after resolving symbolic links, so directory cycles end too); entries that
// cannot be read (dangling links, permissions) and entries that are not regular files (FIFOs, sockets,
// devices: reading them could block) and files that are not UTF-8 text are reported in `rejected` with a
// reason, never thrown.
import { isUtf8 } from 'node:buffer';
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { join } from 'node:path';
import type { RuleSource } from '../sigma/index.js';

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
  function* visit(path: string): Generator<RuleSource> {
    let real: string;
    let st: Stats;
    try {
      real = realpathSync.native(path);
      st = statSync(real);
    } catch (e) {
      rejected.push({ path, reason: `cannot read: ${errorText(e)}` });
      return;
    }
    if (seen.has(real)) return;
    seen.add(real);
    if (st.isDirectory()) {
      let names: string[];
      try {
        names = readdirSync(path).sort();
      } catch (e) {
        rejected.push({ path, reason: `cannot read: ${errorText(e)}` });
        return;
      }
      for (const name of names) {
        const child = join(path, name);
        // Files are taken by their extension; directories (or links to them) are searched.
        if (/\.ya?ml$/i.test(name)) yield* visit(child);
        else if (isDirectory(child)) yield* visit(child);
      }
      return;
    }
    if (!st.isFile()) {
      rejected.push({ path, reason: 'not a regular file' });
      return;
    }
    let bytes: Buffer;
    try {
      bytes = readFileSync(real);
    } catch (e) {
      rejected.push({ path, reason: `cannot read: ${errorText(e)}` });
      return;
    }
    // Rule files are UTF-8, as the reference loader reads them: other bytes are refused, not replaced.
    if (!isUtf8(bytes)) rejected.push({ path, reason: 'not valid UTF-8 text' });
    else yield { path, text: bytes.toString('utf8') };
  }
  for (const p of paths) yield* visit(p);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false; // dangling links without a rule extension are not rule files
  }
}

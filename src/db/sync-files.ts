// Flushing files to the disk: a directory tree copied into place (the database template) is synced
// before it is renamed into place, and the directory holding the new name after, as initdb syncs the
// data directory it made, so a power loss never leaves a data directory with some files missing or
// half written.
import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Syncs one file or directory. */
export async function syncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Syncs every file under `dir`, then the directories themselves (on libuv's pool, files in parallel). */
export async function syncTree(dir: string): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  await Promise.all(entries.map((entry) => (entry.isDirectory() ? syncTree(join(dir, entry.name)) : syncPath(join(dir, entry.name)))));
  await syncPath(dir);
}

// Exclusive ownership of an embedded data directory. PGlite has no inter-process locking, and two
// writers silently lose data, so a second process must refuse to start instead.
import { mkdirSync, openSync, readFileSync, unlinkSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';

export class DataDirLockedError extends Error {}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock or throws DataDirLockedError; returns the release function. */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const lockPath = join(dataDir, 'vigil.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        try {
          unlinkSync(lockPath);
        } catch {
          // already gone
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(lockPath, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && processAlive(owner)) {
        throw new DataDirLockedError(
          `data directory ${dataDir} is already in use by another Vigil process (pid ${owner}); ` +
            'stop it first, or set DATA_DIR to another directory or DATABASE_URL to share a PostgreSQL server',
        );
      }
      // The owner is gone (crash or kill -9): the lock is stale, take it over.
      unlinkSync(lockPath);
    }
  }
  throw new DataDirLockedError(`could not lock data directory ${dataDir}`);
}

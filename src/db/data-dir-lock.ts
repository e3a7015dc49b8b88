// Exclusive ownership of an embedded data directory. PGlite has no inter-process locking, and two
// writers silently lose data, so a second process must refuse to start instead.
//
// The lock is a file holding the owner's pid. It is created atomically with its content (written
// to a private file first, then hard-linked into place), so another process never reads a lock that
// exists but is still empty. A lock whose pid is no longer running is stale (crash, kill -9) and is
// taken over; so is a lock holding our own pid that this process did not take, which happens when
// a container restarts and the service gets the same pid as before.
import { closeSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';

export class DataDirLockedError extends Error {}

const LOCK_FILE = 'vigil.lock';

/** Lock files held by this process, so a second open in the same process is refused too. */
const held = new Set<string>();

/**
 * Whether a process runs. A process killed a moment ago (kill -9) stays a zombie until its parent
 * reaps it: it still answers signal 0 but holds nothing, so on Linux its state in /proc decides.
 */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // /proc/<pid>/stat: "pid (command) state …"; the command may hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return true;
  }
}

function readOwner(lockPath: string): number | undefined {
  try {
    const owner = Number(readFileSync(lockPath, 'utf8').trim());
    return Number.isInteger(owner) && owner > 0 ? owner : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Creates the lock file holding our pid; false when it already exists. */
function createLockFile(lockPath: string): boolean {
  const tmp = `${lockPath}.${process.pid}.${randomBytes(4).toString('hex')}`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, `${process.pid}\n`);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, lockPath);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw error;
    // A filesystem without hard links: fall back to an exclusive create (a reader may briefly see it empty).
    try {
      const fd2 = openSync(lockPath, 'wx', 0o600);
      try {
        writeSync(fd2, `${process.pid}\n`);
      } finally {
        closeSync(fd2);
      }
      return true;
    } catch (fallbackError) {
      if ((fallbackError as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw fallbackError;
    }
  } finally {
    try {
      unlinkSync(tmp);
    } catch {
      // already gone
    }
  }
}

/** Removes a stale lock, unless another process replaced it meanwhile. */
function removeStaleLock(lockPath: string, staleOwner: number | undefined): void {
  const aside = `${lockPath}.stale.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    renameSync(lockPath, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const moved = readOwner(aside);
  if (moved !== staleOwner) {
    // Someone took the lock between our read and the rename: put theirs back if the place is free.
    try {
      linkSync(aside, lockPath);
    } catch {
      // a third process holds it now; either way the lock is not ours
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    // already gone
  }
}

/** Takes the lock or throws DataDirLockedError; returns the release function. */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const lockPath = resolve(join(dataDir, LOCK_FILE));
  if (held.has(lockPath)) {
    throw new DataDirLockedError(`data directory ${dataDir} is already open in this process`);
  }
  for (let attempt = 0; attempt < 5; attempt++) {
    if (createLockFile(lockPath)) {
      held.add(lockPath);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        held.delete(lockPath);
        if (readOwner(lockPath) !== process.pid) return;
        try {
          unlinkSync(lockPath);
        } catch {
          // already gone
        }
      };
    }
    const owner = readOwner(lockPath);
    if (owner !== undefined && owner !== process.pid && processAlive(owner)) {
      throw new DataDirLockedError(
        `data directory ${dataDir} is already in use by another Vigil process (pid ${owner}); ` +
          'stop it first, or set DATA_DIR to another directory or DATABASE_URL to share a PostgreSQL server',
      );
    }
    // The owner is gone (crash or kill -9), or the lock names our own pid from an earlier life: stale.
    removeStaleLock(lockPath, owner);
  }
  throw new DataDirLockedError(`could not lock data directory ${dataDir}; another process keeps changing ${LOCK_FILE}`);
}

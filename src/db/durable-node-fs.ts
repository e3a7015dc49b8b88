// The embedded database's data directory on disk, with fsync that reaches the disk. PGlite maps
// PostgreSQL's files onto Node's file system through Emscripten's NODEFS, whose streams have no fsync:
// PostgreSQL's fsync calls returned success without syncing, so a commit was in the operating system's
// hands but not on the disk, and an operating-system crash or power loss could leave the data directory
// inconsistent, not only short of its last commits. This mount gives those streams an fsync that syncs
// the real file. (Emscripten's fdatasync does nothing at all, so PostgreSQL must sync its write-ahead
// log with fsync: pglite-engine.ts sets wal_sync_method.)
import { fsyncSync } from 'node:fs';
import type { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';

/** Emscripten's module as PGlite starts it: what this mount reaches of it before PostgreSQL runs. */
type StartingModule = { NODEFS?: { stream_ops: Record<string, unknown> } };
type ModuleOptions = Parameters<NodeFS['init']>[1];

/** A stream of NODEFS: the real file descriptor it reads and writes. */
interface NodeStream {
  nfd?: number;
}

/** How many syncs have reached the disk in this thread (the tests check that commits sync). */
let syncs = 0;
export const syncCount = (): number => syncs;

export class DurableNodeFS extends NodeFS {
  override async init(pg: PGlite, opts: ModuleOptions) {
    const { emscriptenOpts } = await super.init(pg, opts);
    const preRun = [...((emscriptenOpts.preRun as ((module: StartingModule) => void)[] | undefined) ?? [])];
    preRun.push((module) => {
      const streamOps = module.NODEFS?.stream_ops;
      if (!streamOps) throw new Error('the embedded database cannot sync its files: its file system layer has changed');
      streamOps.fsync = (stream: NodeStream) => {
        if (stream.nfd === undefined) return 0;
        fsyncSync(stream.nfd);
        syncs++;
        return 0;
      };
    });
    return { emscriptenOpts: { ...emscriptenOpts, preRun } as typeof emscriptenOpts };
  }
}

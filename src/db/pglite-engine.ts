// The embedded PostgreSQL itself (PGlite, compiled to WebAssembly), created with the settings the
// service relies on. It runs on the database thread (pglite-worker.ts); the rest of the service talks
// to it through pglite.ts.
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { DurableNodeFS } from './durable-node-fs.js';

export interface EngineOptions {
  /** Directory for the database files; omit for an in-memory database. */
  dataDir?: string;
  /** A tarball made by `dumpDataDir`, to start from instead of running initdb (fast test databases). */
  loadDataDir?: Blob;
}

/**
 * json parameters (stored events, alerts' events) are sent as their UTF-8 bytes in the binary format,
 * which for json is the text itself: PGlite's text path measures each string's UTF-8 length in a
 * JavaScript loop, a tenth of the service's time when it stores events. Only for json: PGlite also runs
 * an element's serializer for array parameters and expects text back, and no query passes json[].
 */
const utf8Json = (value: unknown): Uint8Array =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
const JSON_OID = 114;

/**
 * PGlite starts PostgreSQL with fsync off (-F). A data directory on disk syncs like PostgreSQL's own
 * defaults: each commit is synced before it is acknowledged (through DurableNodeFS; the write-ahead log
 * with fsync, the one sync method that reaches the disk there). An in-memory database has nothing to sync.
 */
function startParams(onDisk: boolean): string[] {
  const params = onDisk ? [...PGlite.defaultStartParams.filter((p) => p !== '-F'), '-c', 'wal_sync_method=fsync'] : [...PGlite.defaultStartParams];
  // Checkpoints before the write-ahead log passes 256 MB (the default 1 GB kept 1.5 GB of log beside
  // 1.8 GB of data after a million events).
  return [...params, '-c', 'max_wal_size=256MB', '-c', 'min_wal_size=64MB'];
}

export function createEngine(options: EngineOptions): Promise<PGlite> {
  const onDisk = options.dataDir !== undefined;
  return PGlite.create({
    dataDir: options.dataDir,
    // On disk, a file system layer whose fsync reaches the disk (see DurableNodeFS).
    fs: onDisk ? new DurableNodeFS(options.dataDir!) : undefined,
    loadDataDir: options.loadDataDir,
    // Trigram indexes (alert search); a data directory that has used them needs the extension loaded.
    extensions: { pg_trgm },
    // Counts and other int8 values as numbers, like the PostgreSQL adapter.
    parsers: { 20: (value: string) => Number(value) },
    // Typed as answering text, but PGlite sends any byte array it is given as a binary parameter.
    serializers: { [JSON_OID]: utf8Json } as unknown as Record<number, (value: unknown) => string>,
    startParams: startParams(onDisk),
  });
}

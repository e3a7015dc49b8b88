// The embedded database: PostgreSQL compiled to WebAssembly (PGlite), kept in a data directory or in memory.
// One process at a time may open a data directory; see data-dir-lock.ts.
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { checkChannel, type Database, type Queryable, type Row } from './database.js';

export interface PgliteOptions {
  /** Directory for the database files; omit for an in-memory database. */
  dataDir?: string;
  /** A tarball made by `dumpDataDir`, to start from instead of running initdb (fast test databases). */
  loadDataDir?: Blob;
}

export async function openPglite(options: PgliteOptions = {}): Promise<Database & { dump(): Promise<Blob> }> {
  const lite = await PGlite.create({
    dataDir: options.dataDir,
    loadDataDir: options.loadDataDir,
    // Trigram indexes (alert search); a data directory that has used them needs the extension loaded.
    extensions: { pg_trgm },
    // Counts and other int8 values as numbers, like the PostgreSQL adapter.
    parsers: { 20: (value: string) => Number(value) },
    // Checkpoints before the write-ahead log passes 256 MB (the default 1 GB kept 1.5 GB of log beside
    // 1.8 GB of data after a million events).
    startParams: [...PGlite.defaultStartParams, '-c', 'max_wal_size=256MB', '-c', 'min_wal_size=64MB'],
  });
  const run = async <T extends Row>(target: Pick<PGlite, 'query'>, sql: string, params: readonly unknown[] = []) =>
    (await target.query<T>(sql, params as unknown[])).rows;

  return {
    kind: 'pglite',
    query: (sql, params) => run(lite, sql, params),
    async exec(sql) {
      await lite.exec(sql);
    },
    transaction(work) {
      return lite.transaction((tx) => {
        const scoped: Queryable = { query: (sql, params) => run(tx, sql, params) };
        return work(scoped);
      });
    },
    async listen(channel, onNotify) {
      const unlisten = await lite.listen(checkChannel(channel), () => onNotify());
      return async () => {
        if (!lite.closed) await unlisten();
      };
    },
    async close() {
      await lite.close();
    },
    async dump() {
      return (await lite.dumpDataDir('none')) as Blob;
    },
  };
}

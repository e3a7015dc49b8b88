// The storage seam: one small interface over the embedded PGlite database and a real PostgreSQL server.
// Both run the same SQL (parameterised with $1, $2, ...); feature stores depend only on this interface.

export type Row = Record<string, unknown>;

/** Something SQL can be sent to: the database itself or an open transaction. */
export interface Queryable {
  query<T extends Row = Row>(sql: string, params?: readonly unknown[]): Promise<T[]>;
}

/** How a transaction queues for the database. */
export interface TransactionOptions {
  /**
   * 'ingest': a write of the ingest pipeline, which may come in bursts from many requests at once.
   * Such transactions take turns in a lane of their own (lane.ts): on the embedded database one at a
   * time, so a read waits behind at most one of them; on PostgreSQL at most INGEST_CONNECTIONS of the
   * pool's connections, so other requests always find one. Keep each to about 0.1 s of work.
   */
  lane?: 'ingest';
}

export interface Database extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** Answers once the database is reachable and working, without queueing behind other requests'
   * transactions (health checks): the embedded database's thread answers between two statements;
   * PostgreSQL runs `SELECT 1` on a connection of the pool, which ingest never fills. */
  ping(): Promise<void>;
  /** Runs several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
  /** Calls `onNotify` on every NOTIFY on `channel` (a lower-case SQL identifier) until the answered
   * function is called. PostgreSQL listens on a dedicated connection and reconnects when it drops,
   * calling `onNotify` once reconnected (notifications sent meanwhile are lost), so a listener must
   * re-read what it follows on every call rather than rely on payloads. */
  listen(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** Refuses a channel name that is not a plain lower-case identifier (it is spliced into LISTEN). */
export function checkChannel(channel: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) throw new Error(`invalid notification channel name: ${channel}`);
  return channel;
}

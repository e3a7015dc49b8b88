// The storage seam: one small interface over the embedded PGlite database and a real PostgreSQL server.
// Both run the same SQL (parameterised with $1, $2, ...); feature stores depend only on this interface.

export type Row = Record<string, unknown>;

/** Something SQL can be sent to: the database itself or an open transaction. */
export interface Queryable {
  query<T extends Row = Row>(sql: string, params?: readonly unknown[]): Promise<T[]>;
}

export interface Database extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Runs several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

// PostgreSQL through a `pg` connection pool (DATABASE_URL). Ingest transactions hold at most
// INGEST_CONNECTIONS of its connections at once (lane.ts), so other requests always find one.
import pg from 'pg';
import { checkChannel, type Database, type Queryable, type Row } from './database.js';
import { Lane } from './lane.js';

// Keep int8 (counts, sums) as JavaScript numbers: every count we return fits comfortably.
pg.types.setTypeParser(20, (value: string) => Number(value));

/** How long a dropped LISTEN connection waits before connecting again. */
const RELISTEN_DELAY_MS = 1000;

/** LISTENs on `channel` on a connection of its own (a pooled one would be handed to other queries),
 * connecting again after a drop. The first connection must succeed; answers the function that stops. */
async function listenOn(url: string, channel: string, onNotify: () => void): Promise<() => Promise<void>> {
  let stopped = false;
  let current: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const client = new pg.Client({ connectionString: url });
    // A dropped connection reports an error and then ends; 'end' is where we act.
    client.on('error', () => {});
    client.on('notification', (message) => {
      if (message.channel === channel) onNotify();
    });
    client.on('end', () => {
      if (current !== client) return;
      current = undefined;
      if (!stopped) reconnectLater();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${channel}`);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    if (stopped) {
      await client.end().catch(() => {});
      return;
    }
    current = client;
  };
  const reconnectLater = () => {
    retry = setTimeout(() => {
      connect().then(
        () => {
          // Notifications sent while disconnected are lost: let the listener catch up.
          if (!stopped) onNotify();
        },
        () => {
          if (!stopped) reconnectLater();
        },
      );
    }, RELISTEN_DELAY_MS);
    retry.unref();
  };

  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    const client = current;
    current = undefined;
    await client?.end().catch(() => {});
  };
}

/** Connections of the pool. */
export const POOL_CONNECTIONS = 10;
/** The most of them ingest transactions hold at once (see TransactionOptions). */
export const INGEST_CONNECTIONS = 4;

/**
 * Session settings of the service's connections, unless the URL sets its own `options`: no JIT
 * compilation. The service's statements are short or, for the big aggregates (groups, stats), run
 * faster without it: grouping a million alerts took 516–579 ms without JIT and 574–896 ms with it,
 * its compilation alone up to a quarter of that.
 */
const SESSION_OPTIONS = '-c jit=off';

export async function openPostgres(url: string): Promise<Database> {
  const ownOptions = URL.canParse(url) && new URL(url).searchParams.has('options');
  const pool = new pg.Pool({ connectionString: url, max: POOL_CONNECTIONS, ...(ownOptions ? {} : { options: SESSION_OPTIONS }) });
  // A dropped idle connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const client = await pool.connect();
  client.release();

  const query = async <T extends Row>(sql: string, params: readonly unknown[] = []) =>
    (await pool.query(sql, params as unknown[])).rows as T[];

  const listeners = new Set<() => Promise<void>>();

  /** At most INGEST_CONNECTIONS connections for ingest writes: the rest stay for other requests. */
  const ingestLane = new Lane(INGEST_CONNECTIONS);
  const inTransaction = async <T>(work: (tx: Queryable) => Promise<T>): Promise<T> => {
    const conn = await pool.connect();
    // Statements sent without waiting for each other's answers run one after another, in order
    // (a connection runs one query at a time).
    let queue: Promise<unknown> = Promise.resolve();
    const tx: Queryable = {
      query: <T extends Row>(sql: string, params: readonly unknown[] = []) => {
        const run = queue.then(() => conn.query(sql, params as unknown[])).then((result) => result.rows as T[]);
        queue = run.catch(() => {});
        return run;
      },
    };
    try {
      await conn.query('BEGIN');
      const result = await work(tx);
      await queue;
      await conn.query('COMMIT');
      return result;
    } catch (error) {
      await queue;
      await conn.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      conn.release();
    }
  };

  return {
    kind: 'postgres',
    query,
    async ping() {
      await pool.query('SELECT 1');
    },
    async exec(sql) {
      await pool.query(sql);
    },
    async transaction(work, options) {
      const leave = options?.lane === 'ingest' ? await ingestLane.enter() : undefined;
      try {
        return await inTransaction(work);
      } finally {
        leave?.();
      }
    },
    async listen(channel, onNotify) {
      const stop = await listenOn(url, checkChannel(channel), onNotify);
      const unlisten = async () => {
        listeners.delete(unlisten);
        await stop();
      };
      listeners.add(unlisten);
      return unlisten;
    },
    async close() {
      await Promise.all([...listeners].map((unlisten) => unlisten()));
      await pool.end();
    },
  };
}

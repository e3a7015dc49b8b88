// PostgreSQL through a `pg` connection pool (DATABASE_URL).
import pg from 'pg';
import type { Database, Queryable, Row } from './database.js';

// Keep int8 (counts, sums) as JavaScript numbers: every count we return fits comfortably.
pg.types.setTypeParser(20, (value: string) => Number(value));

export async function openPostgres(url: string): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // A dropped idle connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const client = await pool.connect();
  client.release();

  const query = async <T extends Row>(sql: string, params: readonly unknown[] = []) =>
    (await pool.query(sql, params as unknown[])).rows as T[];

  return {
    kind: 'postgres',
    query,
    async exec(sql) {
      await pool.query(sql);
    },
    async transaction(work) {
      const conn = await pool.connect();
      const tx: Queryable = {
        query: async <T extends Row>(sql: string, params: readonly unknown[] = []) =>
          (await conn.query(sql, params as unknown[])).rows as T[],
      };
      try {
        await conn.query('BEGIN');
        const result = await work(tx);
        await conn.query('COMMIT');
        return result;
      } catch (error) {
        await conn.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        conn.release();
      }
    },
    async close() {
      await pool.end();
    },
  };
}

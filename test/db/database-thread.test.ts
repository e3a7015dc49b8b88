// The embedded database on its own thread: a transaction's statements sent without waiting run in
// order and commit together; a failing one rolls the whole transaction back and reaches the caller
// with PostgreSQL's error fields; a statement outside a transaction waits for the open one; and
// notifications cross from the thread.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openPglite } from '../../src/db/pglite.js';
import type { Database } from '../../src/db/database.js';
import { isUniqueViolation } from '../../src/db/constraint-errors.js';

let db: Database;
before(async () => {
  db = await openPglite();
  await db.exec('CREATE TABLE t (k int PRIMARY KEY, v text)');
});
after(() => db.close());

test("statements sent together run in order and commit together", async () => {
  const answers = await db.transaction((tx) =>
    Promise.all([tx.query(`INSERT INTO t VALUES (1, 'a')`), tx.query(`UPDATE t SET v = 'b' WHERE k = 1 RETURNING v`), tx.query('SELECT count(*)::int AS n FROM t')]),
  );
  assert.deepEqual(answers[1], [{ v: 'b' }]);
  assert.deepEqual(answers[2], [{ n: 1 }]);
  assert.deepEqual(await db.query('SELECT k, v FROM t'), [{ k: 1, v: 'b' }]);
});

test('a failing statement rolls the transaction back and carries its error code', async () => {
  const failed = db.transaction((tx) => Promise.all([tx.query(`INSERT INTO t VALUES (2, 'c')`), tx.query(`INSERT INTO t VALUES (1, 'dup')`)]));
  await assert.rejects(failed, (error: unknown) => isUniqueViolation(error) && (error as { constraint?: string }).constraint === 't_pkey');
  assert.deepEqual(await db.query('SELECT k FROM t ORDER BY k'), [{ k: 1 }]);
});

test('a statement outside a transaction waits for the open one', async () => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const writing = db.transaction(async (tx) => {
    await tx.query(`INSERT INTO t VALUES (3, 'e')`);
    await held;
  });
  const reading = db.query<{ n: number }>('SELECT count(*)::int AS n FROM t');
  await new Promise((resolve) => setTimeout(resolve, 50));
  release();
  await writing;
  assert.deepEqual(await reading, [{ n: 2 }]);
});

test('notifications cross from the database thread; unlisten stops them', async () => {
  let heard = 0;
  const unlisten = await db.listen('thread_test', () => heard++);
  await db.query(`SELECT pg_notify('thread_test', '')`);
  for (let i = 0; i < 50 && heard === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(heard, 1);
  await unlisten();
  await db.query(`SELECT pg_notify('thread_test', '')`);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(heard, 1);
});

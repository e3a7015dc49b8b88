// The service's PostgreSQL connections run without JIT compilation (src/db/postgres.ts), unless the
// database URL brings its own session options, which then apply unchanged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPostgres } from '../../src/db/postgres.js';
import { createPostgresDatabase, postgresUnavailable } from '../helpers/databases.js';

const unavailable = await postgresUnavailable();

test('pooled connections have JIT off; options given in the URL win', { skip: unavailable ?? false }, async () => {
  const created = await createPostgresDatabase();
  try {
    const db = await openPostgres(created.url);
    try {
      const settings = await db.transaction((tx) => tx.query<{ jit: string }>('SHOW jit'));
      assert.deepEqual(settings, [{ jit: 'off' }]);
      assert.deepEqual(await db.query('SHOW jit'), [{ jit: 'off' }]);
    } finally {
      await db.close();
    }
    const own = await openPostgres(`${created.url}?options=${encodeURIComponent('-c jit=on -c work_mem=8MB')}`);
    try {
      assert.deepEqual(await own.query('SHOW jit'), [{ jit: 'on' }]);
      assert.deepEqual(await own.query('SHOW work_mem'), [{ work_mem: '8MB' }]);
    } finally {
      await own.close();
    }
  } finally {
    await created.drop();
  }
});

// What an acknowledged write means on the embedded database: with a data directory on disk every commit
// is synced to the disk before it is acknowledged (PostgreSQL's fsync and synchronous_commit on, the
// write-ahead log synced with fsync, and the sync reaching the real file); an in-memory database syncs
// nothing. A killed process losing nothing is test/ingest/crash-recovery.test.ts.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { syncCount } from '../../src/db/durable-node-fs.js';
import { createEngine } from '../../src/db/pglite-engine.js';

const SETTINGS = `SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'wal_sync_method', 'full_page_writes') ORDER BY name`;

describe('durability of the embedded database', () => {
  const root = mkdtempSync(join(tmpdir(), 'vigil-durability-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  test('on disk, each commit is synced before it is acknowledged', async () => {
    const lite = await createEngine({ dataDir: join(root, 'pgdata') });
    try {
      assert.deepEqual((await lite.query(SETTINGS)).rows, [
        { name: 'fsync', setting: 'on' },
        { name: 'full_page_writes', setting: 'on' },
        { name: 'synchronous_commit', setting: 'on' },
        { name: 'wal_sync_method', setting: 'fsync' },
      ]);
      await lite.exec('CREATE TABLE acknowledged (n int)');
      const before = syncCount();
      for (let n = 0; n < 5; n++) {
        const synced = syncCount();
        await lite.query('INSERT INTO acknowledged VALUES ($1)', [n]);
        assert.ok(syncCount() > synced, `commit ${n} was acknowledged without a sync`);
      }
      assert.ok(syncCount() - before >= 5);
    } finally {
      await lite.close();
    }
  });

  test('in memory, nothing is synced', async () => {
    const lite = await createEngine({});
    try {
      assert.deepEqual((await lite.query(`SELECT setting FROM pg_settings WHERE name = 'fsync'`)).rows, [{ setting: 'off' }]);
      const before = syncCount();
      await lite.exec('CREATE TABLE t (n int); INSERT INTO t VALUES (1)');
      assert.equal(syncCount(), before);
    } finally {
      await lite.close();
    }
  });
});

// Two service instances on one PostgreSQL database: a deploy, redeploy or undeploy on instance A is live
// on instance B within a second (B's backend percolates with A's stored queries, and events ingested
// on B raise alerts for it). PostgreSQL only.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.js';
import type { Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { openPostgres } from '../../src/db/postgres.js';
import { createService, type Service } from '../../src/server.js';
import { createPostgresDatabase, postgresUnavailable } from '../helpers/databases.js';
import { ADMIN_PASSWORD, loginAdmin, type Client } from '../helpers/service.js';
import { backendOf, createPattern, createRule, equalsRule, ingest, type CreatedPattern } from './fixtures.js';

/** Polls `check` every 50 ms until it holds or `ms` pass; answers how long it took (or null). */
async function within(ms: number, check: () => Promise<boolean>): Promise<number | null> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > ms) return null;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('multi-instance deploys [postgres]', async () => {
  const reason = await postgresUnavailable();
  if (reason) {
    describe(`skipped: ${reason}`, { skip: reason }, () => {});
    return;
  }

  let database: { url: string; drop(): Promise<void> };
  const connections: Database[] = [];
  let a: Service;
  let b: Service;
  let adminA: Client;
  let pattern: CreatedPattern;

  before(async () => {
    database = await createPostgresDatabase();
    const first = await openPostgres(database.url);
    connections.push(first);
    await migrate(first);
    const config = loadConfig({ ADMIN_PASSWORD, DATA_DIR: '/nonexistent-test-dir' });
    a = await createService(config, { db: first });
    const second = await openPostgres(database.url);
    connections.push(second);
    b = await createService(config, { db: second });
    adminA = await loginAdmin(a);
    pattern = await createPattern(adminA, { name: 'shared' });
  });

  after(async () => {
    await a?.close();
    await b?.close();
    for (const db of connections) await db.close();
    await database?.drop();
  });

  const liveOnB = async (event: object, id: string) => (await backendOf(b).percolate(pattern.percolator_index, [event]))[0].includes(id);

  test('a deploy on A matches on B within a second', async () => {
    const rule = await createRule(adminA, { yaml_content: equalsRule('Shared deploy', 'Image', 'shared.exe'), index_pattern: 'shared' });
    assert.equal(await liveOnB({ Image: 'shared.exe' }, rule.id), false);
    const deployed = await adminA.post(`/api/rules/${rule.id}/deploy`);
    assert.equal(deployed.statusCode, 200, deployed.body);
    const took = await within(2000, () => liveOnB({ Image: 'shared.exe' }, deployed.data.percolator_id));
    assert.notEqual(took, null, 'the stored query never became live on B');
    console.log(`[postgres] deploy on A live on B after ${took} ms`);
    assert.ok(took! <= 1000, `live on B only after ${took} ms`);
  });

  test('a redeploy (PUT) and an undeploy on A are followed by B', async () => {
    const rule = await createRule(adminA, { yaml_content: equalsRule('Shared update', 'Image', 'one.exe'), index_pattern: 'shared', deploy: true });
    assert.notEqual(await within(2000, () => liveOnB({ Image: 'one.exe' }, rule.id)), null);
    assert.equal((await adminA.put(`/api/rules/${rule.id}`, { yaml_content: equalsRule('Shared update', 'Image', 'two.exe') })).statusCode, 200);
    assert.notEqual(await within(2000, async () => (await liveOnB({ Image: 'two.exe' }, rule.id)) && !(await liveOnB({ Image: 'one.exe' }, rule.id))), null);
    assert.equal((await adminA.post(`/api/rules/${rule.id}/undeploy`)).statusCode, 200);
    assert.notEqual(await within(2000, async () => !(await liveOnB({ Image: 'two.exe' }, rule.id))), null);
  });

  test('concurrent deploys on A and on B all become live on both instances', async () => {
    const adminB = await loginAdmin(b);
    const created = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        (i % 2 === 0 ? adminA : adminB).post('/api/rules', { yaml_content: equalsRule(`Burst ${i}`, 'Image', `burst-${i}.exe`), index_pattern: 'shared', deploy: true }),
      ),
    );
    for (const r of created) assert.equal(r.statusCode, 201, r.body);
    const events = created.map((_, i) => ({ Image: `burst-${i}.exe` }));
    for (const [name, service] of [['A', a], ['B', b]] as const) {
      const took = await within(2000, async () => {
        const hits = await backendOf(service).percolate(pattern.percolator_index, events);
        return hits.every((ids, i) => ids.includes(created[i].data.id));
      });
      const hits = await backendOf(service).percolate(pattern.percolator_index, events);
      const missing = hits.flatMap((ids, i) => (ids.includes(created[i].data.id) ? [] : [i]));
      assert.notEqual(took, null, `instance ${name} misses burst rules ${missing.join(', ')}`);
    }
  });

  test('a rule deployed on B is visible through A’s API and matches on A', async () => {
    const adminB = await loginAdmin(b);
    const rule = await createRule(adminB, { yaml_content: equalsRule('From B', 'Image', 'from-b.exe'), index_pattern: 'shared', deploy: true });
    const readOnA = await adminA.get(`/api/rules/${rule.id}`);
    assert.equal(readOnA.data.status, 'deployed');
    const took = await within(2000, async () => (await backendOf(a).percolate(pattern.percolator_index, [{ Image: 'from-b.exe' }]))[0].includes(rule.id));
    assert.notEqual(took, null);
  });

  test('events ingested on B after a deploy on A raise alerts within a second; after an undeploy on A, none', async () => {
    const rule = await createRule(adminA, { yaml_content: equalsRule('Alert across instances', 'Image', 'across.exe'), index_pattern: 'shared', deploy: true });
    let n = 0;
    const took = await within(1000, async () => (await ingest(b, pattern, [{ Image: 'across.exe', n: n++ }])).data.alerts_created === 1);
    assert.notEqual(took, null, 'no alert on B within a second of the deploy on A');
    assert.equal((await adminA.post(`/api/rules/${rule.id}/undeploy`)).statusCode, 200);
    const stopped = await within(1000, async () => (await ingest(b, pattern, [{ Image: 'across.exe', n: n++ }])).data.alerts_created === 0);
    assert.notEqual(stopped, null, 'B still raises alerts a second after the undeploy on A');
  });
});

// Two service instances on one PostgreSQL database: a deploy, redeploy or undeploy on instance A is live
// on instance B within a second (B's backend percolates with A's stored queries, and events ingested
// on B raise alerts for it); both report the same rule-set revision in `/api/health?details=true`
// once B has applied A's change; the same batch sent to both at once is stored once and raises each
// alert once. PostgreSQL only.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeTwoInstances, within } from '../helpers/instances.js';
import { anonymous, loginAdmin, type Client } from '../helpers/service.js';
import { backendOf, createPattern, createRule, equalsRule, ingest, type CreatedPattern } from './fixtures.js';

describeTwoInstances('multi-instance deploys', (instances) => {
  let adminA: Client;
  let pattern: CreatedPattern;

  before(async () => {
    adminA = await loginAdmin(instances.a);
    pattern = await createPattern(adminA, { name: 'shared' });
  });

  const liveOnB = async (event: object, id: string) => (await backendOf(instances.b).percolate(pattern.percolator_index, [event]))[0].includes(id);

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
    const adminB = await loginAdmin(instances.b);
    const created = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        (i % 2 === 0 ? adminA : adminB).post('/api/rules', { yaml_content: equalsRule(`Burst ${i}`, 'Image', `burst-${i}.exe`), index_pattern: 'shared', deploy: true }),
      ),
    );
    for (const r of created) assert.equal(r.statusCode, 201, r.body);
    const events = created.map((_, i) => ({ Image: `burst-${i}.exe` }));
    for (const [name, service] of [['A', instances.a], ['B', instances.b]] as const) {
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
    const adminB = await loginAdmin(instances.b);
    const rule = await createRule(adminB, { yaml_content: equalsRule('From B', 'Image', 'from-b.exe'), index_pattern: 'shared', deploy: true });
    const readOnA = await adminA.get(`/api/rules/${rule.id}`);
    assert.equal(readOnA.data.status, 'deployed');
    const took = await within(2000, async () => (await backendOf(instances.a).percolate(pattern.percolator_index, [{ Image: 'from-b.exe' }]))[0].includes(rule.id));
    assert.notEqual(took, null);
  });

  test('the health details of both instances give the same rule-set revision within a second of a change on A', async () => {
    const revision = async (service: typeof instances.a) => {
      const answer = await anonymous(service).get('/api/health?details=true');
      assert.equal(answer.statusCode, 200, answer.body);
      return answer.data.details.rules_revision as number;
    };
    const before = await revision(instances.a);
    const rule = await createRule(adminA, { yaml_content: equalsRule('Revision', 'Image', 'revision.exe'), index_pattern: 'shared', deploy: true });
    const afterOnA = await revision(instances.a);
    assert.ok(afterOnA > before, `A's revision stayed ${afterOnA}`);
    const took = await within(1000, async () => (await revision(instances.b)) === afterOnA);
    assert.notEqual(took, null, `B's revision is ${await revision(instances.b)}, A's ${afterOnA}`);
    assert.deepEqual((await anonymous(instances.b).get('/api/health')).data, { status: 'ok', database: 'ok', search_backend: 'ok' });
    assert.equal((await adminA.post(`/api/rules/${rule.id}/undeploy`)).statusCode, 200);
  });

  test('events ingested on B after a deploy on A raise alerts within a second; after an undeploy on A, none', async () => {
    const rule = await createRule(adminA, { yaml_content: equalsRule('Alert across instances', 'Image', 'across.exe'), index_pattern: 'shared', deploy: true });
    let n = 0;
    const took = await within(1000, async () => (await ingest(instances.b, pattern, [{ Image: 'across.exe', n: n++ }])).data.alerts_created === 1);
    assert.notEqual(took, null, 'no alert on B within a second of the deploy on A');
    assert.equal((await adminA.post(`/api/rules/${rule.id}/undeploy`)).statusCode, 200);
    const stopped = await within(1000, async () => (await ingest(instances.b, pattern, [{ Image: 'across.exe', n: n++ }])).data.alerts_created === 0);
    assert.notEqual(stopped, null, 'B still raises alerts a second after the undeploy on A');
  });

  test('the same batch sent to A and to B at once stores each event once and raises each alert once', async () => {
    const rule = await createRule(adminA, { yaml_content: equalsRule('Sent twice at once', 'Image', 'twice.exe'), index_pattern: 'shared', deploy: true });
    assert.notEqual(await within(2000, () => liveOnB({ Image: 'twice.exe' }, rule.id)), null);
    const stored = async (round: number) =>
      (
        await instances.a.db.query<{ keys: number; events: number; alerts: number }>(
          `SELECT (SELECT count(*)::int FROM event_hashes WHERE index_pattern_id = $1) AS keys,
                  (SELECT coalesce(sum(event_count), 0)::int FROM event_blocks WHERE index_pattern_id = $1) AS events,
                  (SELECT count(*)::int FROM alerts WHERE rule_id = $2 AND (event->>'round')::int = $3) AS alerts`,
          [pattern.id, rule.id, round],
        )
      )[0];
    for (let round = 0; round < 3; round++) {
      const before = await stored(round);
      const batch = Array.from({ length: 300 }, (_, i) => ({ Image: i % 10 === 0 ? 'twice.exe' : 'other.exe', round, i }));
      const [onA, onB] = await Promise.all([ingest(instances.a, pattern, batch), ingest(instances.b, pattern, batch)]);
      assert.equal(onA.statusCode, 200, onA.body);
      assert.equal(onB.statusCode, 200, onB.body);
      // Between them the two answers raised each alert once.
      assert.equal(onA.data.alerts_created + onB.data.alerts_created, 30, `round ${round}: ${onA.body} ${onB.body}`);
      const after = await stored(round);
      assert.deepEqual({ keys: after.keys - before.keys, events: after.events - before.events, alerts: after.alerts }, { keys: 300, events: 300, alerts: 30 }, `round ${round}`);
    }
  });
});

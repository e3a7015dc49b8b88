// Two `vigil serve` processes on one PostgreSQL database, both sending notifications, send each alert
// once: alerts ingested through both reach a webhook receiver exactly once (by X-Vigil-Delivery and by
// alert id), across a receiver that fails the first attempts, and across an instance killed while it
// holds deliveries under its lease: the other sends them once the lease ends, not before. PostgreSQL
// only (skipped with a message without it; with CI=true it fails instead).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { createPostgresDatabase, postgresUnavailable } from '../helpers/databases.js';
import { within } from '../helpers/instances.js';
import { sigma } from '../rules/fixtures.js';
import { startInstance, type Instance } from './vigil-instance.js';
import { startReceiver, type Receiver } from './webhook-receiver.js';

const SECRET = 'the-secret-of-the-two-instances-receiver';
/** The lease a claim holds (delivery-store.ts), and far more: the bound of the wait for its end. */
const AFTER_LEASE_BOUND_MS = 150_000;
/** Requests an instance has in flight to one channel at most (dispatcher.ts). */
const IN_FLIGHT = 16;

const unavailable = await postgresUnavailable();

describe('notifications sent by two instances on one PostgreSQL [postgres]', { skip: unavailable ?? undefined }, () => {
  let database: { url: string; drop(): Promise<void> };
  let sql: pg.Client;
  let receiver: Receiver;
  const instances: Instance[] = [];
  let ingestToken: string;
  let sent = 0;

  before(async () => {
    database = await createPostgresDatabase();
    receiver = await startReceiver(SECRET);
    const env = { DATABASE_URL: database.url, JWT_SECRET: 'two-instances-signing-secret-of-at-least-32-characters', NOTIFY_ALLOW_PRIVATE: 'true' };
    // One after the other: the first applies the migrations.
    instances.push(await startInstance(env));
    instances.push(await startInstance(env));
    sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
    const [a, b] = instances;
    const admin = await a.login();
    ingestToken = String((await a.api('POST', '/api/index_patterns', { name: 'fleet' }, admin)).ingest_token);
    await a.api('POST', '/api/rules', { yaml_content: sigma({}), index_pattern: 'fleet', deploy: true }, admin);
    // No throttle in the way: every alert is its own message.
    const channel = { name: 'SOC', type: 'webhook', config: { url: `${receiver.url}/hook`, secret: SECRET }, max_per_rule: 10_000 };
    await a.api('POST', '/api/notification_channels', channel, admin);
    // B matches with the rule A deployed.
    const live = await within(30_000, async () => (await send(b, 1)) === 1);
    assert.ok(live !== null, 'the rule deployed on A never became live on B');
  });
  after(async () => {
    for (const instance of instances) await instance.stop();
    receiver?.close();
    await sql?.end();
    await database?.drop();
  });

  /** Sends `count` new events that each raise an alert; answers the alerts created. */
  async function send(instance: Instance, count: number): Promise<number> {
    const events = Array.from({ length: count }, () => ({ '@timestamp': '2026-11-06T09:00:00Z', Image: 'C:\\Windows\\System32\\whoami.exe', User: `user-${sent++}` }));
    return (await instance.api('POST', '/api/logs/fleet', events, { token: ingestToken })).alerts_created as number;
  }

  const count = async (where: string, params: unknown[] = []) => Number((await sql.query(`SELECT count(*) AS n FROM notification_deliveries WHERE ${where}`, params)).rows[0].n);
  const alertIds = async () => (await sql.query<{ id: string }>('SELECT id FROM alerts ORDER BY id')).rows.map((r) => r.id);

  /** Every alert answered by the receiver exactly once, with one delivery id each. */
  async function assertEachAlertOnce(): Promise<void> {
    const got = (await receiver.received()).filter((r) => r.path === '/hook' && r.body.alert);
    const byAlert = new Map<string, number>();
    const byDelivery = new Map<string, number>();
    for (const r of got) {
      assert.equal(r.signatureValid, true);
      byAlert.set(r.body.alert.id, (byAlert.get(r.body.alert.id) ?? 0) + 1);
      byDelivery.set(r.headers['x-vigil-delivery'], (byDelivery.get(r.headers['x-vigil-delivery']) ?? 0) + 1);
    }
    assert.deepEqual([...byAlert.keys()].sort(), await alertIds(), 'the receiver got every alert');
    assert.deepEqual([...byAlert].filter(([, n]) => n > 1), [], 'an alert was sent twice');
    assert.deepEqual([...byDelivery].filter(([, n]) => n > 1), [], 'a delivery was sent twice');
  }

  test('200 alerts ingested through both instances reach the receiver once each, across failed first attempts', async () => {
    const [a, b] = instances;
    const before = await count(`attempts = 2`);
    await receiver.failNext(20);
    let created = 0;
    for (let i = 0; i < 10; i++) created += (await Promise.all([send(a, 10), send(b, 10)])).reduce((x, y) => x + y);
    assert.equal(created, 200);
    const total = (await alertIds()).length;
    const delivered = await within(90_000, async () => (await count(`status = 'delivered'`)) === total);
    assert.ok(delivered !== null, `${await count(`status = 'delivered'`)} of ${total} delivered`);
    assert.equal((await count(`attempts = 2`)) - before, 20, 'the 20 deliveries answered 500 were each sent once more');
    await assertEachAlertOnce();
  });

  test('deliveries leased by an instance killed mid-way are sent by the other once the lease ends', async () => {
    const [a, b] = instances;
    await receiver.hold();
    // The first hundred are claimed by one instance, which then waits on the receiver; the second hundred
    // can only be claimed by the other: both hold leases, each with requests in flight.
    assert.equal(await send(a, 100), 100);
    assert.ok((await within(30_000, async () => (await receiver.held()).held > 0)) !== null, 'nothing was sent');
    assert.equal(await send(b, 100), 100);
    const bothHolding = await within(30_000, async () => (await count(`status = 'pending' AND leased_by IS NULL`)) === 0 && (await count(`status = 'pending' AND leased_until > now()`)) === 200);
    assert.ok(bothHolding !== null, 'the deliveries were not all claimed');
    const holders = (await sql.query<{ leased_by: string }>(`SELECT DISTINCT leased_by FROM notification_deliveries WHERE status = 'pending'`)).rows.map((r) => r.leased_by);
    assert.equal(holders.length, 2, 'each instance holds leases');
    const inFlight = await within(30_000, async () => (await receiver.held()).held === 2 * IN_FLIGHT);
    assert.ok(inFlight !== null, `${(await receiver.held()).held} requests in flight`);

    await b.kill();
    const droppedAll = await within(30_000, async () => (await receiver.held()).dropped.length === IN_FLIGHT);
    assert.ok(droppedAll !== null, `${(await receiver.held()).dropped.length} requests dropped`);
    const { dropped } = await receiver.held();
    const killed = (await sql.query<{ leased_by: string }>(`SELECT leased_by FROM notification_deliveries WHERE id = $1`, [dropped[0]])).rows[0].leased_by;
    assert.ok(holders.includes(killed));
    await receiver.release();

    // The survivor sends its own; the killed instance's stay with their lease until it ends.
    const survivorDone = await within(60_000, async () => (await count(`status = 'pending'`)) === (await count(`status = 'pending' AND leased_by = $1`, [killed])));
    assert.ok(survivorDone !== null, 'the surviving instance did not send its deliveries');
    const orphaned = await count(`status = 'pending' AND leased_by = $1 AND leased_until > now()`, [killed]);
    assert.equal(orphaned, 100, 'the killed instance\'s deliveries wait for the end of their lease');
    const early = (await receiver.received()).filter((r) => dropped.includes(r.headers['x-vigil-delivery']));
    assert.deepEqual(early, [], 'a delivery in flight when its instance died was answered');

    const total = (await alertIds()).length;
    const all = await within(AFTER_LEASE_BOUND_MS, async () => (await count(`status = 'delivered'`)) === total);
    assert.ok(all !== null, `${await count(`status = 'delivered'`)} of ${total} delivered after the lease`);
    await assertEachAlertOnce();
    const retried = (await receiver.received()).filter((r) => dropped.includes(r.headers['x-vigil-delivery']));
    assert.equal(retried.length, IN_FLIGHT, 'each delivery dropped with its instance was sent again, once, with the same delivery id');
    void a;
  });
});

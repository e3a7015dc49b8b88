// The live alert stream (GET /api/alerts/stream) over a real listener: new alerts and status changes
// arrive as Server-Sent Events, a reconnect with Last-Event-ID gets exactly what it missed, limits and
// sessions are enforced, closing the service ends open streams, and on PostgreSQL a change made on one
// instance reaches the streams of another. Polling is slowed to a minute so delivery relies on NOTIFY.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import AjvModule from 'ajv';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../src/config.js';
import type { Database } from '../../src/db/database.js';
import { createService, type Service } from '../../src/server.js';
import { DATABASE_KINDS, openTestDatabase, postgresUnavailable, type TestDatabase } from '../helpers/databases.js';
import { describeTwoInstances } from '../helpers/instances.js';
import { ADMIN_PASSWORD, anonymous, login, loginAdmin, type Client } from '../helpers/service.js';
import { createRule, ingest, setUpTeam, sigma, type CreatedPattern } from '../rules/fixtures.js';
import { listening, openStream, type SseStream } from './sse-client.js';

const STREAM = '/api/alerts/stream';
const OPTIONS = { alertStream: { heartbeatMs: 100, pollMs: 60_000, maxPerUser: 3, maxReplay: 3, maxBufferedBytes: 64 * 1024 } };
const config = () => loadConfig({ ADMIN_PASSWORD, DATA_DIR: '/nonexistent-test-dir' });

let counter = 0;
/** A whoami event no earlier test used (so it raises a new alert). */
const whoami = (extra: Record<string, unknown> = {}) => ({
  Image: 'C:\\Windows\\System32\\whoami.exe',
  User: `user-${++counter}`,
  Computer: 'ws-07.corp',
  SourceIp: '10.0.0.7',
  ...extra,
});

async function raiseAlert(service: Service, pattern: CreatedPattern, event = whoami()): Promise<string> {
  const response = await ingest(service, pattern, [event]);
  assert.equal(response.statusCode, 200, response.body);
  assert.equal(response.data.alerts_created, 1, response.body);
  const [row] = await service.db.query<{ id: string }>(`SELECT id FROM alerts WHERE event->>'User' = $1`, [event.User]);
  return row.id;
}

const setStatus = (service: Service, id: string, status: string) => service.db.query('UPDATE alerts SET status = $1 WHERE id = $2', [status, id]);

async function stream(base: string, client: Client, headers: Record<string, string> = {}, path = STREAM): Promise<SseStream> {
  const response = await openStream(base, path, { authorization: `Bearer ${client.token}`, ...headers });
  assert.equal(response.status, 200, response.body);
  const first = await response.stream!.until((m) => m.retry !== undefined, 'the retry field');
  assert.deepEqual(first.map((m) => m.retry), ['3000'], 'the stream starts with its reconnection delay');
  return response.stream!;
}

for (const kind of DATABASE_KINDS) {
  describe(`live alert stream [${kind}]`, async () => {
    const reason = kind === 'postgres' ? await postgresUnavailable() : null;
    if (reason) {
      describe(`skipped: ${reason}`, { skip: reason }, () => {});
      return;
    }
    let testDb: TestDatabase;
    let service: Service;
    let base: string;
    let analyst: Client;
    let viewer: Client;
    let pattern: CreatedPattern;
    let ruleId: string;
    const open: SseStream[] = [];
    const track = (s: SseStream) => (open.push(s), s);

    before(async () => {
      testDb = await openTestDatabase(kind);
      service = await createService(config(), { db: testDb.db, ...OPTIONS });
      base = await listening(service);
      ({ analyst, viewer, pattern } = await setUpTeam(service, 'sam', 'vera', { name: 'win', is_default: true }));
      ruleId = (await createRule(analyst, { yaml_content: sigma(), deploy: true })).id;
    });
    after(async () => {
      for (const s of open) s.close();
      await service?.close();
      await testDb?.drop();
    });

    test('without a session the stream answers 401; a malformed Last-Event-ID 400', async () => {
      const none = await openStream(base, STREAM, {});
      assert.equal(none.status, 401);
      assert.equal(JSON.parse(none.body!).detail, 'Could not validate credentials');
      const forged = await openStream(base, STREAM, { authorization: 'Bearer not-a-token' });
      assert.equal(forged.status, 401);
      const badHeader = await anonymous(service).get(STREAM, { authorization: `Bearer ${viewer.token}`, 'last-event-id': 'abc' });
      assert.equal(badHeader.statusCode, 400, badHeader.body);
      assert.deepEqual(badHeader.data.errors, [{ field: 'header.last-event-id', message: 'must be an event id of this stream (a non-negative integer)' }]);
      const badQuery = await viewer.get(`${STREAM}?last_event_id=-1`);
      assert.equal(badQuery.statusCode, 400, badQuery.body);
      assert.equal(badQuery.data.errors[0].field, 'query.last_event_id');
    });

    test('the answer is an event stream with the security headers, unbuffered and uncached', async () => {
      const response = await openStream(base, STREAM, { authorization: `Bearer ${viewer.token}` });
      track(response.stream!);
      assert.equal(response.status, 200);
      assert.equal(response.headers['content-type'], 'text/event-stream; charset=utf-8');
      assert.equal(response.headers['cache-control'], 'no-store');
      assert.equal(response.headers['x-accel-buffering'], 'no');
      assert.equal(response.headers['x-content-type-options'], 'nosniff');
      assert.equal(response.headers['x-frame-options'], 'DENY');
      assert.equal(response.headers['content-security-policy'], "default-src 'self'");
      assert.equal(response.headers['referrer-policy'], 'no-referrer');
      const [heartbeat] = await response.stream!.until((m) => m.comments.includes('ping'), 'a heartbeat');
      assert.ok(heartbeat);
      response.stream!.close();
    });

    test('a new alert from ingest and its status change arrive, with the session cookie too', async () => {
      const s = track(await stream(base, viewer));
      const id = await raiseAlert(service, pattern);
      const created = await s.nextEvent('alert.created');
      assert.equal(created.message.id, String(created.data.seq));
      assert.equal(created.data.kind, 'created');
      const { alert } = created.data;
      assert.equal(alert.id, id);
      assert.equal(alert.rule_id, ruleId);
      assert.equal(alert.rule_title, 'Whoami Execution');
      assert.equal(alert.severity, 'high');
      assert.equal(alert.status, 'new');
      assert.equal(alert.host, 'ws-07.corp');
      assert.equal(alert.source_ip, '10.0.0.7');
      assert.match(alert.user, /^user-\d+$/);
      assert.match(alert.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.equal(alert.acknowledged_at, undefined);

      await service.db.query(`UPDATE alerts SET status = 'acknowledged', acknowledged_at = now(), acknowledged_by = 'sam' WHERE id = $1`, [id]);
      const updated = await s.nextEvent('alert.updated');
      assert.equal(updated.data.kind, 'updated');
      assert.equal(updated.data.alert.id, id);
      assert.equal(updated.data.alert.status, 'acknowledged');
      assert.equal(updated.data.alert.acknowledged_by, 'sam');
      assert.ok(Number(updated.message.id) > Number(created.message.id));
      s.close();

      // A browser's EventSource sends the session cookie instead of a header.
      const byCookie = await openStream(base, STREAM, { cookie: `svc_session=${viewer.token}` });
      assert.equal(byCookie.status, 200, byCookie.body);
      track(byCookie.stream!);
      await setStatus(service, id, 'resolved');
      assert.equal((await byCookie.stream!.nextEvent('alert.updated')).data.alert.status, 'resolved');
      byCookie.stream!.close();
    });

    test('a reconnect with Last-Event-ID gets what it missed, in order, and nothing twice', async () => {
      const first = track(await stream(base, analyst));
      const seen = await raiseAlert(service, pattern);
      const last = (await first.nextEvent('alert.created')).message.id!;
      first.close();

      const missedId = await raiseAlert(service, pattern);
      await setStatus(service, seen, 'acknowledged');
      // A change that touches no status is not an event.
      await service.db.query(`UPDATE alerts SET host = 'renamed' WHERE id = $1`, [missedId]);

      const again = track(await stream(base, analyst, { 'last-event-id': last }));
      const replayed = [await again.nextEvent('alert.created'), await again.nextEvent('alert.updated')];
      assert.deepEqual(replayed.map((e) => [e.data.alert.id, e.data.kind]), [[missedId, 'created'], [seen, 'updated']]);
      assert.deepEqual(replayed.map((e) => Number(e.message.id)), [Number(last) + 1, Number(last) + 2]);
      assert.equal(replayed[0].data.alert.host, 'renamed', 'the summary shows the alert as it is now');
      const live = await raiseAlert(service, pattern);
      const next = await again.nextEvent('alert.created');
      assert.equal(next.data.alert.id, live);
      assert.deepEqual(next.skipped.filter((m) => m.event !== undefined), [], 'no change is sent twice');
      assert.equal(Number(next.message.id), Number(last) + 3);

      // The query parameter resumes the same way (clients that cannot set headers); the header wins.
      const byQuery = track(await stream(base, analyst, {}, `${STREAM}?last_event_id=${last}`));
      assert.equal((await byQuery.nextEvent('alert.created')).data.alert.id, missedId);
      const both = track(await stream(base, analyst, { 'last-event-id': String(Number(last) + 2) }, `${STREAM}?last_event_id=${last}`));
      assert.equal((await both.nextEvent('alert.created')).data.alert.id, live);
      for (const s of [again, byQuery, both]) s.close();
    });

    test('a status change through PATCH /api/alerts/{id} arrives with who acknowledged it', async () => {
      const s = track(await stream(base, viewer));
      const id = await raiseAlert(service, pattern);
      assert.equal((await s.nextEvent('alert.created')).data.alert.id, id);
      const patched = await analyst.patch(`/api/alerts/${id}`, { status: 'acknowledged', comment: 'looking' });
      assert.equal(patched.statusCode, 200, patched.body);
      const { data } = await s.nextEvent('alert.updated');
      assert.equal(data.alert.id, id);
      assert.equal(data.alert.status, 'acknowledged');
      assert.equal(data.alert.acknowledged_by, 'sam');
      assert.equal(data.alert.acknowledged_at, patched.data.acknowledged_at);
      s.close();
    });

    test('with more missed changes than are replayed, a reload event comes before the newest', async () => {
      const [{ seq: start }] = await service.db.query<{ seq: number }>('SELECT max(seq) AS seq FROM alert_changes');
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(await raiseAlert(service, pattern));
      const s = track(await stream(base, viewer, { 'last-event-id': String(start) }));
      const reload = await s.nextEvent('alerts.reload');
      assert.deepEqual(reload.data, { reason: 'too_many_missed', replayed: 3 });
      assert.equal(reload.message.id, undefined, 'a reload event moves no resume point');
      const got = [];
      for (let i = 0; i < 3; i++) got.push((await s.nextEvent('alert.created')).data.alert.id);
      assert.deepEqual(got, ids.slice(2));
      s.close();

      const future = track(await stream(base, viewer, { 'last-event-id': '999999999' }));
      assert.deepEqual((await future.nextEvent('alerts.reload')).data, { reason: 'unknown_event_id' });
      const live = await raiseAlert(service, pattern);
      assert.equal((await future.nextEvent('alert.created')).data.alert.id, live);
      future.close();
    });

    test('a session ended by logout ends its stream', async () => {
      const admin = await loginAdmin(service);
      const session = await login(service, 'vera', 'vera-password-123');
      const s = track(await stream(base, session));
      assert.equal((await session.post('/api/auth/logout')).statusCode, 204);
      const { data } = await s.nextEvent('session.ended');
      assert.match(data.detail, /revoked or has expired/);
      await s.end();
      const refused = await openStream(base, STREAM, { authorization: `Bearer ${session.token}` });
      assert.equal(refused.status, 401);
      // A disabled user's stream ends the same way.
      const other = await login(service, 'sam', 'sam-password-123');
      const t = track(await stream(base, other));
      const users = await admin.get('/api/users?search=sam');
      const sam = users.data.items.find((u: { username: string }) => u.username === 'sam');
      const disabled = await admin.patch(`/api/users/${sam.id}`, { disabled: true });
      assert.equal(disabled.statusCode, 200, disabled.body);
      await t.nextEvent('session.ended');
      await t.end();
      assert.equal((await admin.patch(`/api/users/${sam.id}`, { disabled: false })).statusCode, 200);
    });

    test('a user may hold a bounded number of streams; a closed one frees its place', async () => {
      const client = await loginAdmin(service);
      const held = [];
      for (let i = 0; i < 3; i++) held.push(track(await stream(base, client)));
      const refused = await openStream(base, STREAM, { authorization: `Bearer ${client.token}` });
      assert.equal(refused.status, 429);
      assert.equal(JSON.parse(refused.body!).detail, 'Too many open alert streams for this user (at most 3); close one first');
      assert.equal(refused.headers['retry-after'], '5');
      // Another user is not affected.
      track(await stream(base, viewer)).close();
      held[0].close();
      for (;;) {
        const retried = await openStream(base, STREAM, { authorization: `Bearer ${client.token}` });
        if (retried.status === 200) {
          track(retried.stream!).close();
          break;
        }
        assert.equal(retried.status, 429);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      for (const s of held) s.close();
    });

    test('HEAD and writes open no stream', async () => {
      // (HEAD falls through to GET /api/alerts/{id}, where "stream" is no alert id.)
      const head = await viewer.request('HEAD', STREAM);
      assert.ok([404, 405].includes(head.statusCode), String(head.statusCode));
      assert.notEqual(head.headers['content-type'], 'text/event-stream; charset=utf-8');
      const post = await viewer.post(STREAM);
      assert.ok([404, 405].includes(post.statusCode), post.body);
    });

    test('the route is described in the OpenAPI document as an event stream', async () => {
      const doc = (await anonymous(service).get('/api/openapi.json')).data;
      const get = doc.paths['/api/alerts/stream'].get;
      assert.ok(get.responses['200'].content['text/event-stream']);
      assert.ok(get.responses['429']);
      assert.deepEqual(get.parameters.map((p: { name: string }) => p.name), ['last_event_id']);
    });

    test('the OpenAPI schema of the event stream describes each event, and the events sent match it', async () => {
      const doc = (await anonymous(service).get('/api/openapi.json')).data;
      const schema = doc.paths['/api/alerts/stream'].get.responses['200'].content['text/event-stream'].schema;
      assert.equal(schema.type, 'object', 'one event, not the text of the whole stream');
      const Ajv = AjvModule.default ?? AjvModule;
      const check = new Ajv({ strict: false }).compile(schema);
      const s = track(await stream(base, viewer, { 'last-event-id': '999999999' }));
      const reload = await s.nextEvent('alerts.reload');
      await raiseAlert(service, pattern);
      const created = await s.nextEvent('alert.created');
      s.close();
      for (const { message } of [reload, created]) {
        const event = { event: message.event, data: message.data, ...(message.id === undefined ? {} : { id: message.id }) };
        assert.ok(check(event), `${JSON.stringify(event)}: ${JSON.stringify(check.errors)}`);
      }
    });

    test('a reader that stops reading is dropped once its queue passes the bound, after what it was sent', async () => {
      const s = track(await stream(base, viewer));
      s.pause();
      const maxSeq = async () => (await service.db.query<{ seq: number }>('SELECT max(seq) AS seq FROM alert_changes'))[0].seq;
      const before = await maxSeq();
      await service.db.query(
        `INSERT INTO alerts (id, rule_id, rule_title, severity, severity_rank, level, index_pattern, event_hash, event_time, event)
         SELECT gen_random_uuid(), $1, 'Bulk', 'low', 1, 'low', 'win', 'bulk-' || g, now(), '{}' FROM generate_series(1, 3000) g`,
        [randomUUID()],
      );
      assert.equal((await maxSeq()) - before, 3000);
      s.resume();
      const ids = (await s.end()).filter((m) => m.id !== undefined).map((m) => Number(m.id));
      assert.ok(ids.length > 0 && ids.length < 3000, `the stream ended after ${ids.length} of 3000 changes`);
      assert.deepEqual(ids, Array.from({ length: ids.length }, (_, i) => before + 1 + i), 'what was sent is whole and in order');
      // The reader resumes where it stopped.
      const again = track(await stream(base, viewer, { 'last-event-id': String(ids[ids.length - 1]) }));
      assert.deepEqual((await again.nextEvent('alerts.reload')).data, { reason: 'too_many_missed', replayed: 3 });
      again.close();
    });

    test('closing the service ends open streams', async () => {
      const s = track(await stream(base, viewer));
      await service.close();
      await s.end();
      service = await createService(config(), { db: testDb.db, ...OPTIONS });
    });
  });
}

describeTwoInstances('live alert stream across instances', (instances) => {
  let a: Service;
  let b: Service;
  let baseB: string;
  let pattern: CreatedPattern;
  let viewerOnB: Client;
  const open: SseStream[] = [];

  before(async () => {
    ({ a, b } = instances);
    baseB = await listening(b);
    let analyst: Client;
    ({ analyst, pattern } = await setUpTeam(a, 'ann', 'vic', { name: 'shared', is_default: true }));
    await createRule(analyst, { yaml_content: sigma(), deploy: true });
    viewerOnB = await login(b, 'vic', 'vic-password-123');
  });
  after(() => {
    for (const s of open) s.close();
  });

  test('an alert ingested on A and its status change arrive on a stream of B', async () => {
    const s = await stream(baseB, viewerOnB);
    open.push(s);
    // B's backend follows A's deploy through the database; ingest on A only needs A's.
    const id = await raiseAlert(a, pattern);
    assert.equal((await s.nextEvent('alert.created')).data.alert.id, id);
    await setStatus(a, id, 'false_positive');
    assert.equal((await s.nextEvent('alert.updated')).data.alert.status, 'false_positive');
    s.close();
  });

  test('a dropped LISTEN connection is reopened and the stream keeps following', async () => {
    const s = await stream(baseB, viewerOnB);
    open.push(s);
    const killed = await a.db.query<{ n: number }>(
      `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
       WHERE datname = current_database() AND query ILIKE 'LISTEN%' AND pid <> pg_backend_pid()`,
    );
    assert.ok(killed[0].n >= 1, 'the LISTEN connections were found');
    const id = await raiseAlert(a, pattern);
    assert.equal((await s.nextEvent('alert.created')).data.alert.id, id);
    const next = await raiseAlert(a, pattern);
    assert.equal((await s.nextEvent('alert.created')).data.alert.id, next);
    s.close();
  });

  /** A transaction on its own connection that has written an alert (taking a change number) and waits. */
  async function uncommittedAlert(): Promise<{ id: string; client: pg.Client }> {
    const client = new pg.Client({ connectionString: instances.url });
    await client.connect();
    const id = randomUUID();
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO alerts (id, rule_id, rule_title, severity, severity_rank, level, index_pattern, event_hash, event_time, event)
       VALUES ($1, $2, 'Slow writer', 'low', 1, 'low', 'shared', $3, now(), '{}')`,
      [id, randomUUID(), randomUUID()],
    );
    return { id, client };
  }

  test('a change committed after a later one is still sent, and first', async () => {
    const s = await stream(baseB, viewerOnB);
    open.push(s);
    const slow = await uncommittedAlert();
    const fast = await raiseAlert(a, pattern);
    // Give B time to see the later change and the hole before it (the order below holds either way).
    await new Promise((resolve) => setTimeout(resolve, 200));
    await slow.client.query('COMMIT');
    await slow.client.end();
    const first = await s.nextEvent('alert.created');
    const second = await s.nextEvent('alert.created');
    assert.deepEqual([first.data.alert.id, second.data.alert.id], [slow.id, fast]);
    assert.equal(Number(second.message.id), Number(first.message.id) + 1);
    s.close();
  });

  test('a change after a rolled-back one is sent once the hole has waited its time', async () => {
    const s = await stream(baseB, viewerOnB);
    open.push(s);
    const slow = await uncommittedAlert();
    const fast = await raiseAlert(a, pattern);
    await slow.client.query('ROLLBACK');
    await slow.client.end();
    // No poll is due for a minute: the hole's own timer wakes the feed.
    const { data, skipped } = await s.nextEvent('alert.created');
    assert.equal(data.alert.id, fast);
    assert.deepEqual(skipped.filter((m) => m.event !== undefined), []);
    s.close();
  });
}, { a: OPTIONS, b: { alertStream: { ...OPTIONS.alertStream, gapWaitMs: 1500 } } });

describe('live alert stream without notifications', () => {
  let testDb: TestDatabase;
  let service: Service;
  let base: string;

  before(async () => {
    testDb = await openTestDatabase('pglite');
    // As behind a connection pooler in transaction mode, where LISTEN is refused: polling alone follows.
    const db: Database = { ...testDb.db, listen: () => Promise.reject(new Error('LISTEN is not supported here')) };
    service = await createService(config(), { db, alertStream: { ...OPTIONS.alertStream, pollMs: 50 } });
    base = await listening(service);
  });
  after(async () => {
    await service?.close();
    await testDb?.drop();
  });

  test('the once-a-poll read still delivers new alerts and status changes', async () => {
    const { analyst, viewer, pattern } = await setUpTeam(service, 'paula', 'pete', { name: 'polled', is_default: true });
    await createRule(analyst, { yaml_content: sigma(), deploy: true });
    const s = await stream(base, viewer);
    const id = await raiseAlert(service, pattern);
    assert.equal((await s.nextEvent('alert.created')).data.alert.id, id);
    await setStatus(service, id, 'resolved');
    assert.equal((await s.nextEvent('alert.updated')).data.alert.status, 'resolved');
    s.close();
  });
});

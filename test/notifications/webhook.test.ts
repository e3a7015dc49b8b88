// Webhook channels end to end: an admin adds a channel (its secret never answered again), an alert
// raised by ingest reaches a real receiver process within seconds, signed, with the delivery id and the
// alert as the API answers it; a receiver error is retried, a refused delivery fails and can be retried
// by hand, the test button sends at once, and bad settings are refused with 422 naming the field.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { within } from '../helpers/instances.js';
import { describeEachDatabase, loginAdmin, type Client } from '../helpers/service.js';
import { createRule, ingest, setUpTeam, sigma, type CreatedPattern } from '../rules/fixtures.js';
import { startReceiver, type Receiver } from './webhook-receiver.js';

const SECRET = 'a-shared-secret-of-the-team';

describeEachDatabase(
  'webhook notification channels',
  (ctx) => {
    let admin: Client;
    let pattern: CreatedPattern;
    let receiver: Receiver;
    let channelId: string;

    before(async () => {
      receiver = await startReceiver(SECRET);
      admin = await loginAdmin(ctx.service);
      let analyst: Client;
      ({ analyst, pattern } = await setUpTeam(ctx.service, 'nora', 'nick', { name: 'win', is_default: true }));
      await createRule(analyst, { yaml_content: sigma({ tags: ['attack.discovery', 'attack.t1033'] }), deploy: true });
    });
    after(() => receiver?.close());

    const deliveries = async (query = '') => (await admin.get(`/api/notification_channels/${channelId}/deliveries?page_size=100${query}`)).data;

    test('a channel is created with its secret sealed, and answered with "***"', async () => {
      const created = await admin.post('/api/notification_channels', {
        name: 'SOC webhook',
        type: 'webhook',
        config: { url: `${receiver.url}/hook`, secret: SECRET, headers: { Authorization: 'Bearer token-of-the-receiver' } },
        min_severity: 'medium',
      });
      assert.equal(created.statusCode, 201, created.body);
      channelId = created.data.id;
      assert.deepEqual(created.data.config, { url: `${receiver.url}/hook`, secret: '***', headers: '***' });
      assert.equal(created.data.health, 'unknown');
      assert.equal(created.data.max_per_rule, 10);
      assert.equal(created.data.window_seconds, 300);
      const stored = await ctx.service.db.query<{ config: unknown; secrets_enc: string }>('SELECT config, secrets_enc FROM notification_channels WHERE id = $1', [channelId]);
      assert.ok(!JSON.stringify(stored).includes(SECRET), 'the secret is not stored in the clear');
      const list = await admin.get('/api/notification_channels');
      assert.equal(list.data.total, 1);
      assert.equal(list.data.items[0].config.secret, '***');
      // Sent back as answered, the masked settings keep their values.
      const changed = await admin.patch(`/api/notification_channels/${channelId}`, { config: created.data.config, min_severity: 'low' });
      assert.equal(changed.statusCode, 200, changed.body);
      assert.equal(changed.data.min_severity, 'low');
    });

    test('an alert reaches the receiver within seconds, signed, with its delivery id and link', async () => {
      const sent = await ingest(ctx.service, pattern, [{ '@timestamp': '2026-11-02T09:00:00Z', Image: 'C:\\Windows\\System32\\whoami.exe', User: 'erin', Computer: 'ws-7' }]);
      assert.equal(sent.data.alerts_created, 1);
      const waited = await within(10_000, async () => (await receiver.received()).length >= 1);
      assert.ok(waited !== null, 'no delivery within 10 s');
      const [got] = await receiver.received();
      assert.equal(got.signatureValid, true);
      assert.equal(got.headers.authorization, 'Bearer token-of-the-receiver');
      assert.equal(got.headers['x-vigil-delivery'], got.body.delivery_id);
      const alert = (await admin.get(`/api/alerts/${got.body.alert.id}`)).data;
      assert.equal(got.body.alert.rule_title, alert.rule_title);
      assert.equal(got.body.alert.host, 'ws-7');
      assert.match(got.body.alert.url, new RegExp(`/alerts/${alert.id}$`));
      const log = await deliveries();
      assert.equal(log.items[0].status, 'delivered');
      assert.equal(log.items[0].alert_id, alert.id);
      const channel = (await admin.get(`/api/notification_channels/${channelId}`)).data;
      assert.equal(channel.health, 'healthy');
    });

    test('a receiver error is retried with the same delivery id', async () => {
      await receiver.failNext(1);
      const before = (await receiver.received()).length;
      await ingest(ctx.service, pattern, [{ '@timestamp': '2026-11-02T09:05:00Z', Image: 'C:\\whoami.exe', User: 'finn' }]);
      // Recorded as failed: pending again with one attempt and its error (a delivery being sent is pending without one).
      const failedOnce = await within(10_000, async () =>
        (await deliveries('&status=pending')).items.some((d: { attempts: number; last_error: string | null }) => d.attempts === 1 && d.last_error !== null),
      );
      assert.ok(failedOnce !== null, 'the failed attempt was not recorded');
      const pending = (await deliveries('&status=pending')).items.find((d: { last_error: string | null }) => d.last_error !== null);
      assert.equal(pending.last_error, 'the receiver answered 500');
      assert.ok(pending.next_retry_at);
      // The backoff's wait, skipped.
      await ctx.service.db.query(`UPDATE notification_deliveries SET next_attempt_at = now() WHERE id = $1`, [pending.id]);
      assert.ok((await within(10_000, async () => (await receiver.received()).length > before)) !== null, 'not retried');
      const got = (await receiver.received()).at(-1)!;
      assert.equal(got.headers['x-vigil-delivery'], pending.id);
      const done = (await deliveries()).items.find((d: { id: string }) => d.id === pending.id);
      assert.equal(done.status, 'delivered');
      assert.equal(done.attempts, 2);
    });

    test('the test button sends now and answers the outcome', async () => {
      const answered = await admin.post(`/api/notification_channels/${channelId}/test`);
      assert.equal(answered.statusCode, 200, answered.body);
      assert.equal(answered.data.delivered, true);
      assert.equal(answered.data.delivery.kind, 'test');
      const got = (await receiver.received()).at(-1)!;
      assert.equal(got.body.test, true);
      assert.equal(got.signatureValid, true);
    });

    test('a delivery the receiver refuses fails at once and can be retried by hand', async () => {
      const wrong = await admin.post('/api/notification_channels', { name: 'wrong secret', type: 'webhook', config: { url: `${receiver.url}/hook`, secret: 'not-the-receivers-secret' } });
      assert.equal(wrong.statusCode, 201, wrong.body);
      const outcome = await admin.post(`/api/notification_channels/${wrong.data.id}/test`);
      assert.equal(outcome.data.delivered, false);
      assert.equal(outcome.data.status_code, 401);
      await ingest(ctx.service, pattern, [{ '@timestamp': '2026-11-02T09:10:00Z', Image: 'C:\\whoami.exe', User: 'gail' }]);
      const log = `/api/notification_channels/${wrong.data.id}/deliveries?status=failed`;
      assert.ok((await within(10_000, async () => (await admin.get(log)).data.items.some((d: { kind: string }) => d.kind === 'alert'))) !== null);
      const failed = (await admin.get(log)).data.items.find((d: { kind: string }) => d.kind === 'alert');
      assert.equal(failed.attempts, 1, 'a 401 is not retried');
      const retried = await admin.post(`/api/notification_channels/${wrong.data.id}/deliveries/${failed.id}/retry`);
      assert.equal(retried.statusCode, 200, retried.body);
      assert.equal(retried.data.status, 'pending');
      const notFailed = await admin.post(`/api/notification_channels/${channelId}/deliveries/${(await deliveries()).items[0].id}/retry`);
      assert.equal(notFailed.statusCode, 409);
    });

    test('past its throttle a channel holds a rule\'s alerts and sends them as one digest', async () => {
      const throttled = await admin.post('/api/notification_channels', {
        name: 'throttled',
        type: 'webhook',
        config: { url: `${receiver.url}/throttled`, secret: SECRET },
        max_per_rule: 2,
        window_seconds: 60,
      });
      assert.equal(throttled.statusCode, 201, throttled.body);
      const events = Array.from({ length: 5 }, (_, i) => ({ '@timestamp': '2026-11-02T10:00:00Z', Image: 'C:\\whoami.exe', User: `h${i}`, Computer: `host-${i % 3}` }));
      assert.equal((await ingest(ctx.service, pattern, events)).data.alerts_created, 5);
      const log = `/api/notification_channels/${throttled.data.id}/deliveries?page_size=100`;
      const settled = await within(10_000, async () => {
        const items = (await admin.get(log)).data.items as { status: string }[];
        return items.filter((d) => d.status === 'delivered').length === 2 && items.filter((d) => d.status === 'held').length === 3;
      });
      assert.ok(settled !== null, JSON.stringify((await admin.get(log)).data.items.map((d: { status: string }) => d.status)));
      // The window's end, brought forward.
      await ctx.service.db.query(`UPDATE notification_deliveries SET created_at = now() - interval '61 seconds' WHERE channel_id = $1 AND status = 'held'`, [throttled.data.id]);
      const digested = await within(10_000, async () => (await receiver.received()).some((r) => r.path === '/throttled' && r.body.digest));
      assert.ok(digested !== null, 'no digest');
      const digest = (await receiver.received()).find((r) => r.path === '/throttled' && r.body.digest)!;
      assert.equal(digest.signatureValid, true);
      assert.equal(digest.body.digest.held, 3);
      assert.equal(digest.body.digest.rule_title, 'Whoami Execution');
      const statuses = ((await admin.get(log)).data.items as { status: string; kind: string }[]).map((d) => `${d.kind}:${d.status}`).sort();
      assert.deepEqual(statuses, ['alert:delivered', 'alert:delivered', 'alert:digested', 'alert:digested', 'alert:digested', 'digest:delivered']);
    });

    test('bad settings are refused with 422 naming the field, and nothing is stored', async () => {
      const count = async () => (await admin.get('/api/notification_channels')).data.total;
      const before = await count();
      const cases: [Record<string, unknown>, string][] = [
        [{ name: 'x1', type: 'pager', config: {} }, 'body.type'],
        [{ name: 'x2', type: 'webhook', config: { url: 'not a url' } }, 'body.config.url'],
        [{ name: 'x3', type: 'webhook', config: { url: 'ftp://example.com/x' } }, 'body.config.url'],
        [{ name: 'x4', type: 'webhook', config: { url: 'https://example.com/x', secret: 'short' } }, 'body.config.secret'],
        [{ name: 'x5', type: 'email', config: { host: 'mail.example.com', port: 70000, security: 'tls', from: 'vigil@example.com', to: ['soc@example.com'] } }, 'body.config.port'],
        [{ name: 'x6', type: 'email', config: { host: 'mail.example.com', port: 587, security: 'starttls', from: 'vigil@example.com' } }, 'body.config.to'],
        [{ name: 'x7', type: 'slack', config: { url: 'https://hooks.example.com/x' }, min_severity: 'severe' }, 'body.min_severity'],
        [{ name: 'x8', type: 'slack', config: { url: 'https://hooks.example.com/x' }, index_patterns: ['nope'] }, 'body.index_patterns'],
      ];
      for (const [body, field] of cases) {
        const answer = await admin.post('/api/notification_channels', body);
        assert.equal(answer.statusCode, 422, `${JSON.stringify(body)}: ${answer.body}`);
        assert.ok(answer.data.errors.some((e: { field: string }) => e.field === field), `${field} in ${answer.body}`);
      }
      assert.equal(await count(), before);
      const analyst = await (await import('../helpers/service.js')).userWithRole(ctx.service, 'analyst');
      assert.equal((await analyst.get('/api/notification_channels')).statusCode, 403);
    });
  },
  { NOTIFY_ALLOW_PRIVATE: 'true' },
);

// Bad receivers cost bounded time and memory and are recorded as failed attempts: a webhook receiver that
// accepts and never answers (ended by the 10 s bound, retried later), one that answers 200 with 10 MB
// (cut off after 64 KiB: a failed attempt naming the bound, the rest never read), one that redirects to
// itself (failed at once, the redirect not followed) and a mail server that accepts the connection and
// never greets (ended by the same bound). Meanwhile the service keeps answering /api/health.
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { HEALTH_BOUND_MS, listening, probeHealthDuring } from '../hardening/ingest-busy-probe.js';
import { within } from '../helpers/instances.js';
import { describeEachDatabase, loginAdmin, type Client } from '../helpers/service.js';
import { createRule, ingest, setUpTeam, sigma, type CreatedPattern } from '../rules/fixtures.js';
import { startReceiver, type Receiver } from './webhook-receiver.js';

/** Far above the 10 s an attempt may take, far below "unbounded": a loaded machine does not fail it. */
const SETTLED_BOUND_MS = 60_000;

interface Delivery {
  id: string;
  kind: string;
  status: string;
  attempts: number;
  last_error: string | null;
  last_status_code: number | null;
  next_retry_at: string | null;
}

/** A TCP listener that accepts connections and never says a word (an SMTP server that does not greet). */
async function silentServer(): Promise<{ port: number; accepted: () => number; close(): void }> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server: Server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    accepted: () => accepted,
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

describeEachDatabase(
  'bad notification receivers',
  (ctx) => {
    let admin: Client;
    let pattern: CreatedPattern;
    let receiver: Receiver;
    let silent: Awaited<ReturnType<typeof silentServer>>;
    const channels: Record<'hang' | 'huge' | 'loop' | 'mail', string> = { hang: '', huge: '', loop: '', mail: '' };

    before(async () => {
      receiver = await startReceiver();
      silent = await silentServer();
      admin = await loginAdmin(ctx.service);
      let analyst: Client;
      ({ analyst, pattern } = await setUpTeam(ctx.service, 'bree', 'bart', { name: 'win', is_default: true }));
      await createRule(analyst, { yaml_content: sigma({}), deploy: true });
      for (const path of ['hang', 'huge', 'loop'] as const) {
        const created = await admin.post('/api/notification_channels', { name: `receiver ${path}`, type: 'webhook', config: { url: `${receiver.url}/${path}` } });
        assert.equal(created.statusCode, 201, created.body);
        channels[path] = created.data.id;
      }
      const mail = await admin.post('/api/notification_channels', {
        name: 'silent mail server',
        type: 'email',
        config: { host: '127.0.0.1', port: silent.port, security: 'none', from: 'vigil@example.org', to: ['soc@example.org'] },
      });
      assert.equal(mail.statusCode, 201, mail.body);
      channels.mail = mail.data.id;
    });
    after(() => {
      receiver?.close();
      silent?.close();
    });

    const alertDelivery = async (channel: string): Promise<Delivery | undefined> =>
      ((await admin.get(`/api/notification_channels/${channel}/deliveries?page_size=100`)).data.items as Delivery[]).find((d) => d.kind === 'alert');

    test('each is a failed attempt with a clear error, within a bound, while the service keeps answering', async () => {
      const base = await listening(ctx.service);
      const probe = await probeHealthDuring(base, async () => {
        const sent = await ingest(ctx.service, pattern, [{ '@timestamp': '2026-11-05T09:00:00Z', Image: 'C:\\whoami.exe', User: 'ivy', Computer: 'ws-9' }]);
        assert.equal(sent.data.alerts_created, 1);
        return within(SETTLED_BOUND_MS, async () => {
          for (const channel of Object.values(channels)) if (!(await alertDelivery(channel))?.last_error) return false;
          return true;
        });
      });
      assert.ok(probe.result !== null, `not every attempt was recorded within ${SETTLED_BOUND_MS / 1000} s`);
      assert.ok(probe.answeredInFlight > 0);
      // Every health poll answered within the probe's generous bound (it throws otherwise), and the service's
      // event loop was never held that long: waiting on receivers costs the service nothing but sockets.
      assert.ok(probe.longestLoopStallMs < HEALTH_BOUND_MS, `the event loop was held for ${Math.round(probe.longestLoopStallMs)} ms`);

      const hang = (await alertDelivery(channels.hang))!;
      assert.equal(hang.status, 'pending', 'a receiver that does not answer is tried again later');
      assert.equal(hang.attempts, 1);
      assert.equal(hang.last_error, 'no answer within 10 s');
      assert.ok(hang.next_retry_at && Date.parse(hang.next_retry_at) > Date.now());

      const huge = (await alertDelivery(channels.huge))!;
      assert.equal(huge.status, 'pending');
      assert.equal(huge.last_status_code, 200);
      assert.equal(huge.last_error, "the receiver's answer exceeded 64 KiB (cut off)");

      const loop = (await alertDelivery(channels.loop))!;
      assert.equal(loop.status, 'failed', 'a redirect is not worth another attempt');
      assert.equal(loop.last_status_code, 302);
      assert.equal(loop.last_error, 'the receiver answered 302 (redirects are not followed)');

      const mail = (await alertDelivery(channels.mail))!;
      assert.equal(mail.status, 'pending');
      assert.match(mail.last_error!, /did not complete the message within 10 s|greeting never received/i);
      assert.ok(silent.accepted() >= 1);

      // The hang and the huge answer may have been tried again meanwhile (their backoff is shorter than the
      // hang's bound); the redirect never is.
      const stats = await receiver.stats();
      assert.ok(stats.hung >= 1);
      assert.equal(stats.loops, 1, 'the redirect was not followed');
      // The huge answer was not read to its end: the sender closed the connection, and the socket took
      // only what its buffers hold of the 10 MB.
      assert.ok(stats.hugeAnswers >= 1);
      assert.equal(stats.hugeCompleted, 0, 'a 10 MB answer was read to its end');
      assert.ok(stats.hugeBytesWritten < stats.hugeBytesPlanned, `${stats.hugeBytesWritten} of ${stats.hugeBytesPlanned} bytes written`);
    });

    test('the test button answers a hanging receiver and a silent mail server within the bound', async () => {
      for (const channel of [channels.hang, channels.mail]) {
        const answered = await admin.post(`/api/notification_channels/${channel}/test`);
        assert.equal(answered.statusCode, 200, answered.body);
        assert.equal(answered.data.delivered, false);
        assert.ok(answered.data.duration_ms < 30_000, `${answered.data.duration_ms} ms`);
        assert.match(answered.data.error, /within 10 s|greeting never received/i);
      }
    });
  },
  { NOTIFY_ALLOW_PRIVATE: 'true' },
);

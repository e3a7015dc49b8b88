// A channel failing continuously reads `unhealthy` and says so once: after 3 failed attempts in a row the
// audit log holds one `notification_channel.unhealthy` entry (written by the service, no actor) naming the
// channel and its last error, and further failures add none; the first delivery after that makes it
// healthy again with one `notification_channel.recovered` entry; a second unhealthy period is reported again.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { within } from '../helpers/instances.js';
import { describeEachDatabase, loginAdmin, type Client } from '../helpers/service.js';
import { createRule, ingest, setUpTeam, sigma, type CreatedPattern } from '../rules/fixtures.js';
import { startReceiver, type Receiver } from './webhook-receiver.js';

describeEachDatabase(
  'notification channel health',
  (ctx) => {
    let admin: Client;
    let pattern: CreatedPattern;
    let receiver: Receiver;
    let channelId: string;
    let user = 0;

    before(async () => {
      receiver = await startReceiver();
      admin = await loginAdmin(ctx.service);
      let analyst: Client;
      ({ analyst, pattern } = await setUpTeam(ctx.service, 'hana', 'hugo', { name: 'win', is_default: true }));
      await createRule(analyst, { yaml_content: sigma({}), deploy: true });
      const created = await admin.post('/api/notification_channels', { name: 'SOC hook', type: 'webhook', config: { url: `${receiver.url}/hook` }, max_per_rule: 1000 });
      assert.equal(created.statusCode, 201, created.body);
      channelId = created.data.id;
    });
    after(() => receiver?.close());

    const channel = async () => (await admin.get(`/api/notification_channels/${channelId}`)).data;
    const entries = async (action: string) =>
      (await admin.get(`/api/audit?action=${action}&target_id=${channelId}&page_size=100`)).data.items as { actor: string | null; details: Record<string, unknown> }[];
    const alerts = async (n: number) => {
      const events = Array.from({ length: n }, () => ({ '@timestamp': '2026-11-07T09:00:00Z', Image: 'C:\\whoami.exe', User: `health-${user++}` }));
      assert.equal((await ingest(ctx.service, pattern, events)).data.alerts_created, n);
    };
    /** The failed attempts' backoff, skipped. */
    const dueNow = () => ctx.service.db.query(`UPDATE notification_deliveries SET next_attempt_at = now() WHERE channel_id = $1 AND status = 'pending'`, [channelId]);

    test('three failed attempts in a row make it unhealthy, reported once in the audit log', async () => {
      await receiver.failNext(1000);
      await alerts(5);
      const unhealthy = await within(20_000, async () => (await channel()).health === 'unhealthy');
      assert.ok(unhealthy !== null, JSON.stringify(await channel()));
      // More failures: every delivery attempted again, and failing again.
      await dueNow();
      const more = await within(20_000, async () => {
        const [row] = await ctx.service.db.query<{ n: number }>('SELECT consecutive_failures AS n FROM notification_channels WHERE id = $1', [channelId]);
        return row.n >= 8;
      });
      assert.ok(more !== null, 'the retries did not fail again');
      const reported = await entries('notification_channel.unhealthy');
      assert.equal(reported.length, 1, 'reported once per unhealthy period');
      assert.equal(reported[0].actor, null);
      assert.equal(reported[0].details.name, 'SOC hook');
      assert.equal(reported[0].details.type, 'webhook');
      assert.equal(reported[0].details.last_error, 'the receiver answered 500');
      assert.ok(reported[0].details.failing_since);
      const shown = await channel();
      assert.equal(shown.health, 'unhealthy');
      assert.equal(shown.last_error, 'the receiver answered 500');
      assert.ok(shown.failing_since);
    });

    test('the next delivery makes it healthy again, reported once; a new period is reported again', async () => {
      await receiver.failNext(0);
      await dueNow();
      const healthy = await within(20_000, async () => (await channel()).health === 'healthy');
      assert.ok(healthy !== null, JSON.stringify(await channel()));
      const settled = await within(20_000, async () => (await ctx.service.db.query(`SELECT 1 FROM notification_deliveries WHERE channel_id = $1 AND status = 'pending'`, [channelId])).length === 0);
      assert.ok(settled !== null, 'not every delivery went out');
      assert.equal((await entries('notification_channel.recovered')).length, 1);
      assert.equal((await entries('notification_channel.unhealthy')).length, 1);

      await receiver.failNext(1000);
      await alerts(3);
      const again = await within(20_000, async () => (await channel()).health === 'unhealthy');
      assert.ok(again !== null, JSON.stringify(await channel()));
      assert.equal((await entries('notification_channel.unhealthy')).length, 2);
    });
  },
  { NOTIFY_ALLOW_PRIVATE: 'true' },
);

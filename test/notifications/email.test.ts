// Mail channels against a real SMTP server: aiosmtpd (scripts/smtp-up.sh) storing each message it
// receives in a maildir. The test button and an alert raised by ingest each arrive as one message,
// plain text and HTML, with the delivery id; a server that is not listening is a failed attempt that
// will be retried.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freePort } from '../cli/vigil-process.js';
import { within } from '../helpers/instances.js';
import { describeEachDatabase, loginAdmin, type Client } from '../helpers/service.js';
import { createRule, ingest, setUpTeam, sigma, type CreatedPattern } from '../rules/fixtures.js';
import { startShipper, type Shipper } from '../shippers/harness.js';

const AIOSMTPD = join(process.env.VIGIL_SMTP_DIR ?? join(homedir(), '.cache', 'vigil-smtp'), 'bin', 'aiosmtpd');
const missing = existsSync(AIOSMTPD) ? undefined : `aiosmtpd is not installed at ${AIOSMTPD} (run scripts/smtp-up.sh)`;
if (missing && process.env.CI === 'true') throw new Error(`mail tests cannot run in CI: ${missing}`);

describe('mail notification channels', { skip: missing }, () => {
  let dir: string;
  let smtp: Shipper;
  let port: number;
  const mails = () => {
    const fresh = join(dir, 'maildir', 'new');
    return existsSync(fresh) ? readdirSync(fresh).map((name) => readFileSync(join(fresh, name), 'utf8')) : [];
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vigil-smtp-'));
    port = await freePort();
    smtp = startShipper(AIOSMTPD, ['-n', '-l', `127.0.0.1:${port}`, '-c', 'aiosmtpd.handlers.Mailbox', join(dir, 'maildir')]);
  });
  after(() => {
    smtp?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  describeEachDatabase(
    'to aiosmtpd',
    (ctx) => {
      let admin: Client;
      let pattern: CreatedPattern;
      let channelId: string;

      before(async () => {
        admin = await loginAdmin(ctx.service);
        let analyst: Client;
        ({ analyst, pattern } = await setUpTeam(ctx.service, 'mia', 'max', { name: 'win', is_default: true }));
        await createRule(analyst, { yaml_content: sigma({}), deploy: true });
        const channel = await admin.post('/api/notification_channels', {
          name: 'SOC mail',
          type: 'email',
          config: { host: '127.0.0.1', port, security: 'none', from: 'vigil@example.org', to: [`soc-${ctx.service.kind}@example.org`] },
        });
        assert.equal(channel.statusCode, 201, channel.body);
        channelId = channel.data.id;
      });

      const mine = () => mails().filter((m) => m.includes(`soc-${ctx.service.kind}@example.org`));

      test('the test button sends a message at once', async () => {
        // aiosmtpd may still be opening its port: the test is sent until a message arrives.
        const arrived = await within(15_000, async () => {
          await admin.post(`/api/notification_channels/${channelId}/test`);
          return mine().length > 0;
        });
        assert.ok(arrived !== null, smtp.output());
        assert.match(mine()[0], /Subject: Vigil: Vigil test message for channel SOC mail/);
      });

      test('an alert arrives as one message, text and HTML, with its delivery id and link', async () => {
        const before = mine().length;
        const user = `mail-${ctx.service.kind}`;
        assert.equal((await ingest(ctx.service, pattern, [{ '@timestamp': '2026-11-03T09:00:00Z', Image: 'C:\\whoami.exe', User: user, Computer: 'ws-4' }])).data.alerts_created, 1);
        assert.ok((await within(15_000, async () => mine().length > before)) !== null, 'no message');
        // Quoted-printable soft line breaks undone, so a long link reads whole.
        const mail = mine().find((m) => m.includes(user))!.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
        assert.match(mail, /Subject: Vigil: \[HIGH\] Whoami Execution/);
        assert.match(mail, /X-Vigil-Delivery: [0-9a-f-]{36}/);
        assert.match(mail, /Content-Type: text\/plain/);
        assert.match(mail, /Content-Type: text\/html/);
        assert.match(mail, /Host: ws-4/);
        assert.match(mail, /\/alerts\/[0-9a-f-]{36}/);
      });

      test('a server that does not answer is a failed attempt, retried later', async () => {
        const closed = await freePort();
        const down = await admin.post('/api/notification_channels', {
          name: 'mail down',
          type: 'email',
          config: { host: '127.0.0.1', port: closed, security: 'none', from: 'vigil@example.org', to: ['soc@example.org'] },
        });
        const outcome = await admin.post(`/api/notification_channels/${down.data.id}/test`);
        assert.equal(outcome.data.delivered, false);
        assert.match(outcome.data.error, /ECONNREFUSED|connect/i);
      });
    },
    { NOTIFY_ALLOW_PRIVATE: 'true' },
  );
});

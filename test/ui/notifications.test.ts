// Settings → Notifications in a real browser against a real server (NOTIFY_ALLOW_PRIVATE=true, so a
// channel may reach a receiver on this machine) and a real webhook receiver process that verifies each
// signature: create a webhook channel (a bad setting refused beside its field), press Test and see it
// delivered, raise an alert by ingesting an event and find its delivery in the log, keep the stored
// secret through an edit, see a refused delivery fail and retry it once fixed, disable and delete the
// channel; a viewer has no Notifications tab. Every page is checked for console errors, CSP violations and serious/critical accessibility
// findings; screenshots go to .artifacts/ui/.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { startReceiver, type Receiver } from '../notifications/webhook-receiver.js';
import { adminApi, ADMIN_PASSWORD, browserMissing, openConsole, sendEvents, signIn, type ConsoleSession, type RunningServer } from './browser.js';

const missing = browserMissing();
const SECRET = 'a-shared-secret-of-the-team';
const VIEWER_PASSWORD = 'viewer-password-for-ui-tests';

const WHOAMI_RULE = `title: Whoami Execution
status: test
logsource:
  product: windows
  category: process_creation
detection:
  selection:
    Image|endswith: '\\whoami.exe'
  condition: selection
level: high
`;

const whoami = (at: string, user: string) => ({ '@timestamp': at, Image: 'C:\\Windows\\System32\\whoami.exe', User: user, Computer: 'ws-01' });

/** Runs `check` until it is true (a delivery is sent by a worker within seconds), for at most 20 s. */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('notification channels in a browser', { skip: missing ?? false }, () => {
  let ui: ConsoleSession, server: RunningServer, page: Page;
  let receiver: Receiver;
  let ingestToken: string;

  before(async () => {
    receiver = await startReceiver(SECRET);
    ({ server, page } = ui = await openConsole({ env: { NOTIFY_ALLOW_PRIVATE: 'true' } }));
    // Set up through the API: a default pattern and a deployed whoami rule.
    const api = await adminApi(server.url);
    ingestToken = (await api.post('/api/index_patterns', { name: 'windows', is_default: true })).ingest_token;
    const imported = await api.raw('/api/rules/import?deploy=true', { method: 'POST', headers: { 'content-type': 'application/yaml' }, body: WHOAMI_RULE });
    assert.ok(imported.status < 300, await imported.text());
    const viewer = await api.raw('/api/users', { method: 'POST', body: JSON.stringify({ username: 'vera', password: VIEWER_PASSWORD, role: 'viewer' }) });
    assert.equal(viewer.status, 201, await viewer.text());
  });
  after(async () => {
    await ui?.close();
    receiver?.close();
  });

  const channelForm = () => page.getByRole('form', { name: /^(New notification channel|Channel settings)$/ });
  const log = () => page.getByRole('region', { name: 'Delivery log' });
  const refreshLog = () => log().getByRole('button', { name: 'Refresh' }).click();
  /** The log's rows (header row left out). */
  const logRows = (): Locator => log().locator('tbody tr');

  test('an admin finds Settings → Notifications, empty at first', async () => {
    await page.goto(server.url + '/');
    await signIn(page, 'admin', ADMIN_PASSWORD);
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Notifications' }).click();
    await page.getByRole('heading', { name: 'Notification channels' }).waitFor();
    await page.getByText('No channels yet.').waitFor();
    await ui.checkPage('60-notifications-empty');
  });

  test('creates a webhook channel; a bad setting is shown beside its field', async () => {
    await page.getByRole('link', { name: 'New channel' }).click();
    const form = channelForm();
    await form.getByLabel('Name', { exact: true }).fill('SOC webhook');
    assert.equal(await form.getByLabel('Type').inputValue(), 'webhook');
    await form.getByLabel('URL', { exact: true }).fill(`${receiver.url}/hook`);
    await form.getByLabel('Signing secret (optional)').fill('too-short');
    await form.getByLabel('Lowest severity').selectOption('medium');
    ui.problems.allow(/status of 422 .*\/api\/notification_channels$/);
    await form.getByRole('button', { name: 'Create channel' }).click();

    // 422 naming body.config.secret: the message beside the field, the field invalid and focused.
    const secret = form.getByLabel('Signing secret (optional)');
    await form.locator('.field-error').first().waitFor();
    assert.equal(await secret.getAttribute('aria-invalid'), 'true');
    const describedBy = (await secret.getAttribute('aria-describedby'))!.split(' ');
    const errorText = await page.locator(`[id="${describedBy.at(-1)}"]`).textContent();
    assert.match(errorText!, /16/);
    const secretId = await secret.getAttribute('id');
    await eventually(async () => (await page.evaluate('document.activeElement.id')) === secretId, 'the focus on the field in error');
    await form.getByRole('alert').waitFor();
    await ui.checkPage('61-notifications-invalid');

    await secret.fill(SECRET);
    await form.getByRole('button', { name: 'Create channel' }).click();
    await page.getByRole('heading', { name: 'SOC webhook' }).waitFor();
    assert.match(page.url(), /\/settings\/notifications\/[0-9a-f-]{36}$/);
    // The stored secret is never shown again: it reads "***".
    assert.equal(await channelForm().getByLabel('Signing secret (optional)').inputValue(), '***');
    assert.equal(await channelForm().getByLabel('Lowest severity').inputValue(), 'medium');
  });

  test('Test sends a signed test message and shows it delivered', async () => {
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    await page.getByRole('status').filter({ hasText: /Test message delivered \(status 200\)/ }).waitFor();
    const received = await receiver.received();
    assert.equal(received.length, 1);
    assert.equal(received[0].body.test, true);
    assert.equal(received[0].signatureValid, true);
    await logRows().filter({ hasText: 'Test message' }).filter({ hasText: 'delivered' }).waitFor();
    assert.match((await page.locator('.badge.health-healthy').first().textContent())!, /healthy/);
    await ui.checkPage('62-notifications-tested');
  });

  test('an alert raised by ingest is delivered and listed in the log with its link', async () => {
    const sent = await sendEvents(server.url, 'windows', ingestToken, [whoami('2026-11-26T09:00:05Z', 'alice')]);
    assert.equal(sent.alerts_created, 1);
    await eventually(async () => (await receiver.received()).some((r) => r.body.alert), 'the alert at the receiver');
    const delivered = (await receiver.received()).find((r) => r.body.alert)!;
    assert.equal(delivered.signatureValid, true);
    const alertId = delivered.body.alert.id as string;
    const row = logRows().filter({ has: page.getByRole('link', { name: `Alert ${alertId.slice(0, 8)}` }) });
    await eventually(async () => {
      await refreshLog();
      return (await row.filter({ hasText: 'delivered' }).count()) === 1;
    }, 'the delivered alert in the log');
    assert.equal(await row.getByRole('link').getAttribute('href'), `/alerts/${alertId}`);

    // The log's filters: by status, and by the alert's id.
    await log().getByLabel('Status').selectOption('failed');
    await log().getByText('No deliveries match the filters.').waitFor();
    await log().getByLabel('Status').selectOption('');
    await log().getByLabel('Alert id').fill(alertId);
    await eventually(async () => (await logRows().count()) === 1, 'the log filtered by alert');
    await log().getByLabel('Alert id').fill('');
    await ui.checkPage('63-notifications-delivered');
  });

  test('a refused delivery fails, and is retried by hand once the secret is right again', async () => {
    const form = channelForm();
    // A wrong secret: the receiver refuses the signature with 401, which fails a delivery at once.
    await form.getByLabel('Signing secret (optional)').fill('a-wrong-secret-for-the-receiver');
    await form.getByRole('button', { name: 'Save channel' }).click();
    await form.getByRole('status').filter({ hasText: 'Channel saved.' }).waitFor();
    // Saved, the new secret reads "***" like any stored one.
    assert.equal(await form.getByLabel('Signing secret (optional)').inputValue(), '***');
    await sendEvents(server.url, 'windows', ingestToken, [whoami('2026-11-26T09:10:00Z', 'bob')]);
    await log().getByLabel('Status').selectOption('failed');
    await eventually(async () => {
      await refreshLog();
      return (await logRows().count()) === 1;
    }, 'the failed delivery in the log');
    assert.match((await logRows().first().textContent())!, /401/);
    await ui.checkPage('64-notifications-failed');

    await form.getByLabel('Signing secret (optional)').fill(SECRET);
    await form.getByRole('button', { name: 'Save channel' }).click();
    await form.getByRole('status').filter({ hasText: 'Channel saved.' }).waitFor();
    await logRows().first().getByRole('button', { name: /^Retry the alert delivery of / }).click();
    await log().getByRole('status').filter({ hasText: 'sent again' }).waitFor();
    await log().getByLabel('Status').selectOption('');
    await eventually(async () => (await receiver.received()).filter((r) => r.body.alert && r.signatureValid).length === 2, 'the retried alert at the receiver');
    await eventually(async () => {
      await refreshLog();
      return (await logRows().filter({ hasText: 'failed' }).count()) === 0;
    }, 'no failed delivery left');
  });

  test('the list shows the channel with its health; it is disabled, then deleted after a confirmation', async () => {
    await page.getByRole('link', { name: '← Notification channels' }).click();
    const row = page.getByRole('row', { name: /SOC webhook/ });
    await row.waitFor();
    assert.match((await row.textContent())!, /Webhook.*enabled.*medium.*healthy/);
    await ui.checkPage('65-notifications-list');
    await row.getByRole('button', { name: 'Disable SOC webhook' }).click();
    await row.getByRole('button', { name: 'Enable SOC webhook' }).waitFor();
    assert.match((await row.textContent())!, /disabled/);

    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: 'Delete SOC webhook' }).click();
    await page.getByText('No channels yet.').waitFor();
  });

  test('a viewer has no Notifications tab, and the address shows no channels', async () => {
    const context = await ui.browser.newContext();
    try {
      const other = await context.newPage();
      await other.goto(server.url + '/');
      await signIn(other, 'vera', VIEWER_PASSWORD);
      await other.getByRole('link', { name: 'Settings' }).click();
      const tabs = other.getByRole('navigation', { name: 'Settings sections' });
      await tabs.getByRole('link', { name: 'Index patterns' }).waitFor();
      assert.equal(await tabs.getByRole('link', { name: 'Notifications' }).count(), 0);
      await other.goto(server.url + '/settings/notifications');
      await other.getByRole('heading', { name: 'Settings' }).waitFor();
      assert.equal(await other.getByRole('heading', { name: 'Notification channels' }).count(), 0);
    } finally {
      await context.close();
    }
  });
});

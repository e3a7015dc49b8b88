// Rule exceptions in a real browser against a real server: in the rule editor's Exceptions tab an
// analyst types an exception and sees, before saving, what it covers ("covers 2 open alerts · would
// have suppressed 2 events in the last 7 days"); ticks "close the 2 covered open alerts as false
// positive", picks an expiry day and saves; the covered alerts are closed, the list shows the expiry,
// and after more events the hit count and last hit. An exception that has expired carries an "expired"
// badge. No console error, no CSP violation, no serious axe finding.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { adminApi, ADMIN_PASSWORD, browserMissing, openConsole, sendEvents, signIn, type AdminApi, type ConsoleSession, type RunningServer } from './browser.js';

const missing = browserMissing();

const RULE = `title: Remote Shell Started
status: test
logsource:
  product: windows
  service: system
detection:
  selection:
    EventID: 4688
  condition: selection
level: medium
`;

describe('rule exceptions in a browser', { skip: missing ?? false }, () => {
  let ui: ConsoleSession, server: RunningServer, page: Page;
  let ruleId = '';
  let token = '';
  let api: AdminApi;

  const alertStatuses = async () => {
    const list = await api.raw(`/api/alerts?rule_id=${ruleId}&page_size=100`);
    const items = ((await list.json()) as { items: { host?: string; status: string }[] }).items;
    return Object.fromEntries(items.map((a) => [a.host, a.status]));
  };

  before(async () => {
    ({ server, page } = ui = await openConsole());
    api = await adminApi(server.url);
    token = (await api.post('/api/index_patterns', { name: 'win', is_default: true })).ingest_token;
    ruleId = (await api.post('/api/rules', { yaml_content: RULE, deploy: true })).id;
    const sent = await sendEvents(server.url, 'win', token, ['jump-01', 'jump-02', 'ws-11'].map((Computer, n) => ({ EventID: 4688, Computer, n })));
    assert.equal(sent.alerts_created, 3);
    await page.goto(server.url + '/');
    await signIn(page, 'admin', ADMIN_PASSWORD);
  });
  after(() => ui?.close());

  test('the preview shows what the exception covers; saved with close and expiry, it closes them', async () => {
    await page.goto(`${server.url}/rules/${ruleId}`);
    await page.getByRole('tab', { name: 'Exceptions' }).click();
    const form = page.getByRole('form', { name: 'Add an exception' });
    await form.getByLabel(/^Field/).fill('Computer');
    await form.getByLabel('Operator').selectOption('startswith');
    await form.getByLabel('Value').fill('jump-');
    await form.getByText('covers 2 open alerts · would have suppressed 2 events in the last 7 days').waitFor();
    const close = form.getByLabel('close the 2 covered open alerts as false positive');
    await close.check();
    const nextYear = `${new Date().getFullYear() + 1}-06-30`;
    await form.getByLabel(/^Expires/).fill(nextYear);
    await form.getByLabel('Reason').fill('jump hosts are administered remotely');
    await ui.checkPage('70-exception-preview');
    await form.getByRole('button', { name: 'Add exception' }).click();
    await form.getByText(/^Exception added: .* 2 open alerts closed as false positive\.$/).waitFor();
    const row = page.locator('tbody tr', { hasText: 'jump-' });
    await row.getByText(/2027|20\d\d/).first().waitFor();
    assert.deepEqual(await alertStatuses(), { 'jump-01': 'false_positive', 'jump-02': 'false_positive', 'ws-11': 'new' });

    const more = await sendEvents(server.url, 'win', token, [{ EventID: 4688, Computer: 'jump-03', n: 9 }]);
    assert.equal(more.alerts_created, 0);
    await page.reload();
    await page.getByRole('tab', { name: 'Exceptions' }).click();
    const hits = page.locator('tbody tr', { hasText: 'jump-' }).locator('td.num');
    await hits.getByText('1', { exact: true }).waitFor();
    await ui.checkPage('71-exception-listed');
  });

  test('an exception past its expiry is shown as expired and stays listed', async () => {
    const created = await api.raw(`/api/rules/${ruleId}/exceptions`, {
      method: 'POST',
      body: JSON.stringify({ field: 'Computer', operator: 'equals', value: 'ws-12', expires_at: new Date(Date.now() + 1000).toISOString() }),
    });
    assert.equal(created.status, 201);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    await page.reload();
    await page.getByRole('tab', { name: 'Exceptions' }).click();
    await page.locator('tbody tr', { hasText: 'ws-12' }).getByText('expired', { exact: true }).waitFor();
    await ui.checkPage('72-exception-expired');
  });
});

// The alert queue's rule filter with more rules than any list can show: 150 rules, the one wanted found
// by typing part of its title, chosen, kept in the URL, and only its alerts listed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { adminApi, ADMIN_PASSWORD, browserMissing, openPage, sendEvents, signIn, startServer, type BrowserPage, type RunningServer } from './browser.js';

const missing = browserMissing();

const rule = (title: string, user: string) => `title: ${title}
status: test
logsource:
  product: windows
  category: process_creation
detection:
  selection:
    User: ${user}
  condition: selection
level: medium
`;

describe('the alert queue rule filter at scale', { skip: missing ?? false }, () => {
  let server: RunningServer;
  let ui: BrowserPage;
  let page: Page;

  before(async () => {
    server = await startServer();
    // Set up through the API: a pattern, 150 deployed rules, and alerts for two of them.
    const api = await adminApi(server.url);
    const pattern = await api.post('/api/index_patterns', { name: 'win', is_default: true });
    const yaml = Array.from({ length: 150 }, (_, i) => rule(i === 140 ? 'Zeta lateral movement' : `Bulk rule ${String(i).padStart(3, '0')}`, `user${i}`)).join('---\n');
    const imported = await api.raw('/api/rules/import?deploy=true', { method: 'POST', headers: { 'content-type': 'application/yaml' }, body: yaml });
    assert.equal(imported.status < 300, true, await imported.text());
    await sendEvents(server.url, 'win', pattern.ingest_token, [{ User: 'user140' }, { User: 'user140', n: 2 }, { User: 'user3' }]);

    ({ page } = ui = await openPage(server));
  });

  after(async () => {
    await ui?.close();
    await server?.stop();
  });

  test('finds a rule beyond the first hundred by typing, filters the queue by it, keeps it in the URL', async () => {
    await page.goto(server.url + '/');
    await signIn(page, 'admin', ADMIN_PASSWORD);
    await page.getByRole('cell', { name: /^Bulk rule 003\b/ }).first().waitFor();

    await page.getByLabel('Find rule').fill('zeta');
    const select = page.getByRole('combobox', { name: /^Rule/ });
    await page.locator('option', { hasText: 'Zeta lateral movement' }).waitFor({ state: 'attached' });
    await select.selectOption({ label: 'Zeta lateral movement' });
    await page.waitForURL(/rule_id=/);
    await page.getByRole('cell', { name: /^Bulk rule 003\b/ }).first().waitFor({ state: 'detached' });
    assert.equal(await page.locator('tbody tr').count(), 2);

    await page.reload();
    await page.getByRole('cell', { name: 'Zeta lateral movement' }).first().waitFor();
    assert.equal(await page.getByRole('combobox', { name: /^Rule/ }).inputValue(), new URL(page.url()).searchParams.get('rule_id'));
    assert.equal(await page.locator('select option:checked').filter({ hasText: 'Zeta lateral movement' }).count(), 1);

    await ui.checkPage('50-alerts-rule-filter');
  });
});

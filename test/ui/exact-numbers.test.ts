// Event numbers in a real browser: an alert raised by a Windows event whose Keywords is
// -9214364837600034816 (and a field holding 18446744073709551615) shows both with every digit in the
// alert's event tree, styled as numbers. No console error, no CSP violation, no serious axe finding.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { adminApi, ADMIN_PASSWORD, browserMissing, openConsole, signIn, type ConsoleSession, type RunningServer } from './browser.js';

const missing = browserMissing();

const RULE = `title: Audit Log Cleared
status: test
logsource:
  product: windows
  service: security
detection:
  selection:
    EventID: 1102
  condition: selection
level: high
`;

describe('event numbers in a browser', { skip: missing ?? false }, () => {
  let ui: ConsoleSession, server: RunningServer, page: Page;

  before(async () => {
    ({ server, page } = ui = await openConsole());
    const api = await adminApi(server.url);
    const token = (await api.post('/api/index_patterns', { name: 'win', is_default: true })).ingest_token;
    await api.post('/api/rules', { yaml_content: RULE, deploy: true });
    // Sent as text: a JavaScript object could not hold these numbers.
    const sent = await fetch(`${server.url}/api/logs/win`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"EventID":1102,"Keywords":-9214364837600034816,"Computer":"dc-01","RecordNumber":18446744073709551615}',
    });
    assert.equal(sent.status, 200, await sent.text());
    await page.goto(server.url + '/');
    await signIn(page, 'admin', ADMIN_PASSWORD);
  });
  after(() => ui?.close());

  test("the alert's event tree shows every digit", async () => {
    await page.locator('tr', { hasText: 'dc-01' }).getByRole('link', { name: 'Audit Log Cleared' }).click();
    await page.getByRole('heading', { name: 'Audit Log Cleared' }).waitFor();
    const keywords = page.locator('.tree-value', { hasText: '-9214364837600034816' });
    await keywords.waitFor();
    assert.equal(await keywords.getAttribute('class'), 'tree-value t-number');
    await page.locator('.tree-value', { hasText: '18446744073709551615' }).waitFor();
    assert.equal(await page.getByText('-9214364837600035000').count(), 0);
    await ui.checkPage('75-event-exact-numbers');
  });
});

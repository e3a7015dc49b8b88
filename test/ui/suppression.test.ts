// Alert suppression in a real browser against a real server: an analyst turns it on in the rule
// editor's Suppression tab (group by host, one hour), three matches of one host become one alert whose
// queue row says "3 matches" and whose detail lists the matches, the group and the events; turning it
// off is offered and works. No console error, no CSP violation, no serious axe finding.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { adminApi, ADMIN_PASSWORD, browserMissing, openConsole, sendEvents, signIn, type ConsoleSession, type RunningServer } from './browser.js';

const missing = browserMissing();

const RULE = `title: Noisy Service Install
status: test
logsource:
  product: windows
  service: system
detection:
  selection:
    EventID: 7045
  condition: selection
level: medium
`;

describe('alert suppression in a browser', { skip: missing ?? false }, () => {
  let ui: ConsoleSession, server: RunningServer, page: Page;
  let ruleId = '';
  let token = '';

  before(async () => {
    ({ server, page } = ui = await openConsole());
    // The tab asks for the setting first; a rule without one answers 404, which the browser logs.
    ui.problems.allow(/status of 404 .*\/api\/rules\/[0-9a-f-]+\/suppression$/);
    const api = await adminApi(server.url);
    token = (await api.post('/api/index_patterns', { name: 'win', is_default: true })).ingest_token;
    ruleId = (await api.post('/api/rules', { yaml_content: RULE, deploy: true })).id;
    await page.goto(server.url + '/');
    await signIn(page, 'admin', ADMIN_PASSWORD);
  });
  after(() => ui?.close());

  test('turned on in the rule editor, three matches of one host make one alert of 3 matches', async () => {
    await page.goto(`${server.url}/rules/${ruleId}`);
    await page.getByRole('tab', { name: 'Suppression' }).click();
    await page.getByText('Off: every match raises its own alert.').waitFor();
    await ui.checkPage('60-suppression-off');
    await page.getByLabel(/^Group by/).fill('host');
    await page.getByLabel('Window').selectOption({ label: '1 hour' });
    await page.getByRole('button', { name: 'Turn suppression on' }).click();
    await page.getByText(/^Suppression saved/).waitFor();
    await page.getByText(/^On: matches with the same host add to the open alert of their group for 1 hour/).waitFor();
    await ui.checkPage('61-suppression-on');

    const sent = await sendEvents(server.url, 'win', token, [1, 2, 3].map((n) => ({ EventID: 7045, Computer: 'ws-07', n })).concat([{ EventID: 7045, Computer: 'ws-08', n: 4 }]));
    assert.equal(sent.alerts_created, 2);
    await page.goto(`${server.url}/alerts`);
    const row = page.locator('tr', { hasText: 'ws-07' });
    await row.getByText(/3 matches, last/).waitFor();
    assert.equal(await page.locator('tr', { hasText: 'ws-08' }).getByText(/matches/).count(), 0);
    await ui.checkPage('62-suppression-queue');

    await row.getByRole('link', { name: 'Noisy Service Install' }).click();
    await page.getByRole('heading', { name: 'Noisy Service Install' }).waitFor();
    const details = page.locator('dl.fields');
    await details.getByText(/^3, the last /).waitFor();
    await details.getByText('host = ws-07').waitFor();
    await details.getByText('3 event ids').click();
    assert.equal(await details.locator('details li').count(), 3);
    await ui.checkPage('63-suppression-detail');
  });

  test('turned off from the same tab', async () => {
    await page.goto(`${server.url}/rules/${ruleId}`);
    await page.getByRole('tab', { name: 'Suppression' }).click();
    await page.getByRole('button', { name: 'Turn suppression off' }).click();
    await page.getByText(/^Suppression removed/).waitFor();
    await page.getByText('Off: every match raises its own alert.').waitFor();
    const sent = await sendEvents(server.url, 'win', token, [5, 6].map((n) => ({ EventID: 7045, Computer: 'ws-07', n })));
    assert.equal(sent.alerts_created, 2);
  });
});

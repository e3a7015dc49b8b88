// A correlation rule in the rule editor, in a real browser against a real server: the YAML of a
// correlation over a stored rule is checked as valid, created as a rule, and its Test tab runs a list of
// sample events and shows the window that fires. No console error, no CSP violation, no serious or
// critical axe finding; screenshots in .artifacts/ui/.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { ADMIN_PASSWORD, browserMissing, openConsole, pageRequest, signIn, type ConsoleSession, type RunningServer } from './browser.js';

const missing = browserMissing();

const FAILED_LOGON = `title: Failed Logon
name: failed_logon
logsource:
  product: windows
  service: security
detection:
  selection:
    EventID: 4625
  condition: selection
level: low
`;

const BRUTE_FORCE = `title: Many Failed Logons
correlation:
  type: event_count
  rules:
    - failed_logon
  group-by:
    - TargetUserName
  timespan: 5m
  condition:
    gte: 3
level: high
`;

const failed = (minute: number, user: string) => ({ '@timestamp': `2026-11-20T10:0${minute}:00Z`, EventID: 4625, TargetUserName: user });

describe('correlation rule in the rule editor', { skip: missing ?? false }, () => {
  let ui: ConsoleSession, server: RunningServer, page: Page;

  before(async () => {
    ({ server, page } = ui = await openConsole());
    await page.goto(server.url + '/');
    await signIn(page, 'admin', ADMIN_PASSWORD);
    // The rule the correlation references, created through the API with the page's own session.
    const { status } = await pageRequest(page, 'POST', '/api/rules', { yaml_content: FAILED_LOGON });
    assert.equal(status, 201);
  });
  after(() => ui?.close());

  test('a correlation is checked, created, and its Test tab shows the window that fires over a list of events', async () => {
    await page.goto(server.url + '/rules/new');
    await page.getByLabel('Sigma YAML').fill(BRUTE_FORCE);
    await page.getByText('Valid Sigma rule').waitFor();
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('heading', { name: 'Many Failed Logons' }).waitFor();
    await page.getByRole('tab', { name: 'Test' }).click();
    const events = [failed(0, 'alice'), failed(1, 'bob'), failed(2, 'alice'), failed(3, 'alice')];
    await page.getByLabel(/Sample log/).fill(JSON.stringify(events, null, 2));
    await page.getByRole('button', { name: 'Test rule' }).click();
    const result = page.getByRole('status').filter({ hasText: 'Fires 1 time(s)' });
    await result.waitFor();
    const text = await result.innerText();
    assert.match(text, /"TargetUserName": "alice"/);
    assert.match(text, /"events": \[\s*0,\s*2,\s*3\s*\]/);
    await ui.checkPage('40-correlation-test');
  });
});

// The triage console end to end in a real browser against a real server: sign in, create an index
// pattern (token shown once), create and deploy a rule from the editor and test it, watch ingested
// alerts arrive live, open one, comment, change its status, bulk-resolve, see the dashboard, create an
// API key, turn on two-factor login and sign in with it, log out. Every page is checked for console
// errors, CSP violations and serious/critical accessibility findings; screenshots go to .artifacts/ui/.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as OTPAuth from 'otpauth';
import type { Page } from 'playwright-core';
import { ADMIN_PASSWORD, browserMissing, foreignStorage, openConsole, sendEvents, signIn, waitUntil, type ConsoleSession, type PageProblems, type RunningServer } from './browser.js';

const missing = browserMissing();

const RULE_YAML = `title: Whoami by a user
status: test
description: whoami.exe run by someone other than SYSTEM
logsource:
  category: process_creation
  product: windows
detection:
  selection:
    Image|endswith: '\\whoami.exe'
  filter:
    User: SYSTEM
  condition: selection and not filter
level: high
`;

describe('web UI in a browser', { skip: missing ?? false }, () => {
  let ui: ConsoleSession, server: RunningServer, page: Page, problems: PageProblems;
  let ingestToken = '';
  before(async () => ({ server, page, problems } = ui = await openConsole()));
  after(() => ui?.close());

  const ingest = (events: object[]) => sendEvents(server.url, 'winlogs', ingestToken, events);

  test('signs in with username and password; the session is an HttpOnly cookie, nothing in storage', async () => {
    await page.goto(server.url + '/');
    await page.getByRole('heading', { name: 'Vigil' }).waitFor();
    await ui.checkPage('01-login');
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill('wrong password');
    problems.allow(/status of 401 .*\/api\/auth\/login$/);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Incorrect username or password' }).waitFor();
    await signIn(page, 'admin', ADMIN_PASSWORD);
    const cookies = await page.context().cookies();
    const session = cookies.find((c) => c.name === 'svc_session');
    assert.ok(session, 'session cookie set');
    assert.equal(session.httpOnly, true);
    assert.deepEqual(await foreignStorage(page, session.value), { keys: [], holdsSecret: false }, "nothing but the console's preferences in storage");
    await ui.checkPage('02-alerts-empty');
  });

  test('creates an index pattern; the ingest token and shipper snippets are shown once', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Index patterns' }).waitFor();
    const form = page.getByRole('form', { name: 'New index pattern' });
    await form.getByLabel('Name', { exact: true }).fill('winlogs');
    await form.getByLabel('Default pattern for new rules').check();
    await form.getByRole('button', { name: 'Create index pattern' }).click();
    const token = page.getByLabel('Token', { exact: true });
    await token.waitFor();
    ingestToken = (await token.textContent())!.trim();
    assert.match(ingestToken, /^svc_it_/);
    assert.match((await page.getByLabel('Configuration').textContent())!, /\/api\/logs\/winlogs/);
    await page.getByLabel('Shipper').selectOption('Fluent Bit');
    assert.match((await page.getByLabel('Configuration').textContent())!, /HTTP_Passwd\s+svc_it_/);
    await ui.checkPage('03-index-patterns');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByRole('cell', { name: /winlogs/ }).waitFor();
    // A threat-intel feed, so that an alert below is enriched.
    await page.getByRole('link', { name: 'Threat intel' }).click();
    const feed = page.getByRole('form', { name: 'Upload a feed' });
    await feed.getByLabel('Feed name').fill('bad addresses');
    await feed.getByLabel('Risk score (0–100)').fill('90');
    await feed.getByLabel('Content', { exact: true }).fill('10.0.0.1\n');
    await feed.getByRole('button', { name: 'Upload feed' }).click();
    await page.getByText('Loaded 1 indicator(s).').waitFor();
    await ui.checkPage('03b-threat-intel');
  });

  test('creates and deploys a rule from the editor, then tests it against a sample log', async () => {
    await page.getByRole('link', { name: 'Rules' }).click();
    await page.getByRole('link', { name: 'New rule' }).click();
    // Broken YAML is reported as it is typed (the check answers 400, which the browser logs).
    problems.allow(/status of 400 .*\/api\/rules\/test$/);
    await page.getByLabel('Sigma YAML').fill('title: broken\ndetection: [');
    await page.locator('#rule-check .error').waitFor();
    await page.getByLabel('Sigma YAML').fill(RULE_YAML);
    await page.getByText('Valid Sigma rule').waitFor();
    await page.getByRole('button', { name: 'Create and deploy' }).click();
    await page.getByRole('heading', { name: 'Whoami by a user' }).waitFor();
    await page.locator('.page-head .badge', { hasText: 'deployed' }).waitFor();
    await page.getByRole('button', { name: 'Test rule' }).click();
    await page.getByRole('status').filter({ hasText: 'Matches' }).waitFor();
    await ui.checkPage('04-rule-editor');
    await page.getByRole('button', { name: 'Run historical test' }).click();
    await page.getByText(/matching event\(s\)/).waitFor();
    // A change makes version 2; the history shows what changed and rolls back to version 1.
    await page.getByLabel('Sigma YAML').fill(RULE_YAML.replace('level: high', 'level: medium'));
    await page.getByLabel('Change reason (optional)').fill('less noisy');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved as version 2.').waitFor();
    await page.getByRole('tab', { name: 'History' }).click();
    await page.getByRole('button', { name: 'Show changes since' }).first().click();
    const diff = (await page.getByLabel('Changes from version 1 to the current version').textContent())!;
    assert.match(diff, /- level: high/);
    assert.match(diff, /\+ level: medium/);
    await ui.checkPage('04b-rule-history');
    await page.getByRole('button', { name: 'Roll back to v1' }).click();
    await page.getByText(/Rolled back to the content of version 1/).waitFor();
    await page.locator('.page-head .badge', { hasText: 'high' }).waitFor();
    await page.getByRole('link', { name: 'Rules', exact: true }).click();
    await page.getByRole('link', { name: 'Whoami by a user' }).waitFor();
    // Import from a file, then deploy and undeploy the imported rule from the list.
    await page.getByLabel('Import files…').setInputFiles({
      name: 'net.yml',
      mimeType: 'application/yaml',
      buffer: Buffer.from(RULE_YAML.replace('title: Whoami by a user', 'title: Imported whoami')),
    });
    await page.getByText('Imported 1 rule(s)').waitFor();
    await page.getByLabel('Select rule Imported whoami').check();
    await page.getByRole('button', { name: 'Deploy', exact: true }).click();
    await page.getByText('1 deployed').waitFor();
    await page.getByLabel('Select rule Imported whoami').check();
    await page.getByRole('button', { name: 'Undeploy', exact: true }).click();
    await page.getByText('1 undeployed').waitFor();
    await ui.checkPage('05-rules');
  });

  test('alerts ingested while the queue is open are announced live, without moving the list', async () => {
    await page.getByRole('link', { name: 'Alerts', exact: true }).click();
    await page.getByRole('heading', { name: 'Alerts' }).waitFor();
    await page.getByText('No alerts match these filters.').waitFor();
    // Give the live stream a moment to connect before the events arrive (the browser opens it on load).
    await waitUntil(page, 'performance.getEntriesByType("resource").some((e) => e.name.endsWith("/api/alerts/stream"))');
    const answer = await ingest([
      { '@timestamp': new Date().toISOString(), Image: 'C:\\Windows\\System32\\whoami.exe', User: 'alice', host: { name: 'ws-01' }, source: { ip: '10.0.0.1' } },
      { '@timestamp': new Date().toISOString(), Image: 'C:\\Windows\\System32\\whoami.exe', User: 'bob', host: { name: 'ws-02' } },
      { '@timestamp': new Date().toISOString(), Image: 'C:\\Windows\\System32\\whoami.exe', User: 'carol', host: { name: 'ws-03' } },
      { '@timestamp': new Date().toISOString(), Image: 'C:\\Windows\\System32\\whoami.exe', User: 'SYSTEM' },
    ]);
    assert.equal(answer.alerts_created, 3);
    const banner = page.getByRole('button', { name: /3 new alerts — show/ });
    await banner.waitFor();
    // The list has not moved on its own.
    assert.equal(await page.locator('tbody tr').count(), 0);
    await banner.click();
    await page.locator('tbody tr').nth(2).waitFor();
    assert.equal(await page.locator('tbody tr').count(), 3);
    // The event from a feed's address carries its risk.
    assert.match((await page.locator('tbody tr', { hasText: 'alice' }).locator('td').last().textContent())!, /^\d+ \(\w+\)$/);
    await ui.checkPage('06-alerts');
  });

  test('filters live in the URL; j/k move through the rows and Enter opens one', async () => {
    await page.getByLabel('Search').fill('carol');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/q=carol/);
    await waitUntil(page, 'document.querySelectorAll("tbody tr").length === 1');
    await page.reload();
    await waitUntil(page, 'document.querySelectorAll("tbody tr").length === 1');
    assert.equal(await page.getByLabel('Search').inputValue(), 'carol');
    await page.getByLabel('Severity').selectOption('low');
    await page.waitForURL(/severity=low/);
    await page.getByText('No alerts match these filters.').waitFor();
    await page.goto(server.url + '/alerts');
    await page.locator('tbody tr').nth(2).waitFor();
    await page.locator('body').click({ position: { x: 5, y: 300 } });
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    const focused = (await page.evaluate('document.activeElement.getAttribute("data-alert-id")')) as string;
    assert.ok(focused, 'a row has the focus');
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`/alerts/${focused}$`));
    await page.getByRole('heading', { name: 'Whoami by a user' }).waitFor();
  });

  test('an alert shows its event with the matched field highlighted; comment and status change', async () => {
    await page.locator('.tree li.hit').first().waitFor();
    assert.match((await page.locator('.tree li.hit').first().textContent())!, /Image/);
    await page.getByLabel('Add a comment').fill('Looked at it: a test machine.');
    await page.getByRole('button', { name: 'Comment', exact: true }).click();
    await page.getByText('Looked at it: a test machine.').waitFor();
    // From new: acknowledge, or close in one step (acknowledged first); reopening is not offered.
    await page.getByRole('button', { name: 'Mark false positive' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Reopen as new' }).count(), 0);
    await page.getByRole('button', { name: 'Mark acknowledged' }).click();
    await page.getByRole('button', { name: 'Mark resolved' }).waitFor();
    await page.locator('.page-head .badge', { hasText: 'Acknowledged' }).waitFor();
    // An exception from a field of the event, in one step.
    await page.getByRole('button', { name: 'Create an exception from User' }).click();
    await page.getByRole('form', { name: 'Create an exception' }).getByLabel('Reason').fill('test machine');
    await page.getByRole('button', { name: 'Create exception' }).click();
    await page.getByText(/Exception created/).waitFor();
    await ui.checkPage('07-alert-detail');
  });

  test('bulk: acknowledge then resolve every alert on the page with a comment', async () => {
    await page.getByRole('link', { name: 'Alerts', exact: true }).click();
    await page.locator('tbody tr').nth(2).waitFor();
    await page.getByLabel('Select all alerts on this page').check();
    await page.getByLabel('New status').selectOption('acknowledged');
    await page.getByRole('button', { name: 'Apply to 3' }).click();
    await page.getByText('3 updated').waitFor();
    await page.getByLabel('Select all alerts on this page').check();
    await page.getByLabel('New status').selectOption('resolved');
    await page.getByLabel('Comment (optional)').fill('Closed in bulk');
    await page.getByRole('button', { name: 'Apply to 3' }).click();
    await page.getByText('3 updated').waitFor();
    await page.getByRole('search', { name: 'Alert filters' }).locator('select').first().selectOption('resolved');
    await page.waitForURL(/status=resolved/);
    await waitUntil(page, 'document.querySelectorAll("tbody tr").length === 3');
    await ui.checkPage('08-alerts-resolved');
  });

  test('the dashboard shows the figures and charts', async () => {
    await page.getByRole('link', { name: 'Dashboard' }).click();
    await page.getByRole('img', { name: /Alerts per hour/ }).waitFor();
    // The ingest rate counts every event received today, the ones no rule matched too.
    await page.getByRole('img', { name: /^Events received per hour over the last 24 hours: [1-9]/ }).waitFor();
    await page.locator('.figure', { hasText: 'Alerts in total' }).getByText('3', { exact: true }).waitFor();
    await ui.checkPage('09-dashboard');
    // The dark theme (system preference) passes the same checks, contrast included.
    await page.emulateMedia({ colorScheme: 'dark' });
    await ui.checkPage('09-dashboard-dark');
    await page.getByRole('link', { name: 'Alerts', exact: true }).click();
    await page.locator('tbody tr').first().waitFor();
    await ui.checkPage('09-alerts-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.getByRole('link', { name: 'Dashboard' }).click();
  });

  test('creates an API key, shown once, that reads the external API', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Key name').fill('SOAR');
    await page.getByRole('button', { name: 'Create API key' }).click();
    const key = (await page.getByLabel('Key', { exact: true }).textContent())!.trim();
    assert.match(key, /^svc_ak_/);
    const res = await fetch(`${server.url}/api/external/alerts`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { total: number }).total, 3);
    await ui.checkPage('10-api-keys');
    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByRole('cell', { name: 'admin', exact: true }).first().waitFor();
    await ui.checkPage('11-users');
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('cell', { name: /rule\./ }).first().waitFor();
    await ui.checkPage('12-audit');
  });

  test('turns on two-factor login, then signs in with a recovery code; logout ends the session', async () => {
    await page.getByRole('link', { name: 'Your account' }).click();
    await page.getByRole('button', { name: 'Set up two-factor login' }).click();
    await page.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
    const secret = (await page.getByLabel('Secret', { exact: true }).textContent())!.trim();
    const code = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) }).generate();
    await page.getByLabel('Code from the app').fill(code);
    await ui.checkPage('13-two-factor-setup');
    await page.getByRole('button', { name: 'Turn on two-factor login' }).click();
    const codes = (await page.getByLabel('Codes', { exact: true }).textContent())!.trim().split('\n');
    assert.equal(codes.length, 10);

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    assert.equal((await page.context().cookies()).some((c) => c.name === 'svc_session' && c.value), false);
    await signIn(page, 'admin', ADMIN_PASSWORD, { waitForAlerts: false });
    await page.getByLabel('Authentication code').fill(codes[0]);
    await ui.checkPage('14-two-factor-login');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('heading', { name: 'Alerts' }).waitFor();
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    // The old session is gone: the 401 asked for here is logged by the browser, on purpose.
    problems.allow(/status of 401 .*\/api\/auth\/me$/);
    const me = await page.evaluate('fetch("/api/auth/me").then((r) => r.status)');
    assert.equal(me, 401);
    assert.deepEqual(problems.problems, []);
  });
});

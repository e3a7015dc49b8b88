// The sign-in page leaves the browser's console clean: opening the console signed out asks
// GET /api/auth/session (always 200), so no failed request, error or warning is logged before anyone
// signs in (the 401 of /api/auth/me other browser tests allow is not allowed here); signing in and
// reloading signed in log nothing either.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page, Request } from 'playwright-core';
import { ADMIN_PASSWORD, axeFindings, browserMissing, CSP_LISTENER, cspViolations, launchBrowser, PageProblems, screenshot, signIn, startServer, type RunningServer } from './browser.js';

const missing = browserMissing();

describe('no console error before sign-in', { skip: missing ?? false }, () => {
  let server: RunningServer, browser: Browser, page: Page, problems: PageProblems;
  const failed: string[] = [];

  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript(CSP_LISTENER);
    page = await context.newPage();
    problems = new PageProblems(page);
    page.on('response', (response) => {
      if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
    });
    // A reload cuts the open live stream (ERR_ABORTED): the page's own doing, not a failure.
    page.on('requestfailed', (request: Request) => {
      if (request.failure()?.errorText !== 'net::ERR_ABORTED') failed.push(`failed ${request.url()}: ${request.failure()?.errorText}`);
    });
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  test('the sign-in page loads with no console message, failed request or CSP violation', async () => {
    await page.goto(server.url + '/');
    await page.getByLabel('Username').waitFor();
    await page.waitForLoadState('networkidle');
    await screenshot(page, '99-sign-in-clean');
    assert.deepEqual(problems.problems, []);
    assert.deepEqual(failed, []);
    assert.deepEqual(await cspViolations(page), []);
    assert.deepEqual(await axeFindings(page), []);
    // A deep link signed out shows the same page, as cleanly.
    await page.goto(server.url + '/alerts?severity=high');
    await page.getByLabel('Username').waitFor();
    await page.waitForLoadState('networkidle');
    assert.deepEqual(problems.problems, []);
    assert.deepEqual(failed, []);
  });

  test('signing in, and reloading signed in, log nothing either', async () => {
    await signIn(page, 'admin', ADMIN_PASSWORD);
    await page.reload();
    await page.getByRole('heading', { name: 'Alerts' }).waitFor();
    await page.waitForLoadState('networkidle');
    assert.deepEqual(problems.problems, []);
    assert.deepEqual(failed, []);
  });
});

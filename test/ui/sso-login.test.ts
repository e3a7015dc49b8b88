// Single sign-on from the sign-in page in a real browser: a real OpenID provider (oidc-provider) on
// another site (127.0.0.1, while the console is opened as localhost), the console's "Sign in with …"
// button, the provider's own sign-in form, and the way back through the callback to the console,
// signed in with the role the provider's groups give. The console's pages are checked for console
// errors, CSP violations and serious/critical accessibility findings like the other browser tests.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { freePort } from '../cli/vigil-process.js';
import { startOidcProvider, type TestProvider } from '../helpers/oidc-provider.js';
import { ACCOUNTS, ssoEnv, VIGIL_CLIENT } from '../access/sso-fixtures.js';
import { browserMissing, escapeRegExp, foreignStorage, openConsole, pageRequest, type ConsoleSession } from './browser.js';

const missing = browserMissing();

describe('web UI: single sign-on in a browser', { skip: missing ?? false }, () => {
  let provider: TestProvider;
  let ui: ConsoleSession;
  let page: Page;
  /** The console's address as the browser uses it: another site than the provider's 127.0.0.1. */
  let consoleUrl = '';

  before(async () => {
    const port = await freePort();
    consoleUrl = `http://localhost:${port}`;
    const redirectUri = `${consoleUrl}/api/auth/sso/callback`;
    provider = await startOidcProvider({ clients: [{ ...VIGIL_CLIENT, redirect_uris: [redirectUri] }], accounts: ACCOUNTS });
    ({ page } = ui = await openConsole({ port, env: { ...ssoEnv(provider), PUBLIC_URL: consoleUrl } }));
    // The provider's page is not ours (its favicon is a 404, for one).
    ui.problems.allow(new RegExp(`@ ${escapeRegExp(provider.issuer)}`));
  });

  after(async () => {
    await ui?.close();
    await provider?.close();
  });

  test('the sign-in page offers the provider by its name', async () => {
    await page.goto(consoleUrl + '/');
    const button = page.getByRole('link', { name: 'Sign in with Test IdP' });
    await button.waitFor();
    assert.equal(await button.getAttribute('href'), '/api/auth/sso/login?provider=oidc');
    // Username and password stay available beside it.
    await page.getByLabel('Username').waitFor();
    await ui.checkPage('sso-01-sign-in');
  });

  test("the button leads through the provider's sign-in back to the console, signed in with the mapped role", async () => {
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
    // The provider's own page, on its own site.
    await page.getByLabel('Account').waitFor();
    assert.equal(new URL(page.url()).origin, provider.issuer);
    await page.getByLabel('Account').fill('alice-sub');
    await page.getByRole('button', { name: 'Continue' }).click();

    // Back on the console, signed in: the callback set the session cookie and sent the browser to /.
    await page.getByRole('button', { name: 'Log out' }).waitFor();
    assert.equal(new URL(page.url()).origin, consoleUrl);
    await page.getByText('alice', { exact: false }).first().waitFor();
    await page.getByText('(analyst)').waitFor();
    const cookies = await page.context().cookies(consoleUrl);
    const session = cookies.find((c) => c.name === 'svc_session');
    assert.ok(session, 'the session cookie is set');
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'Strict');
    assert.equal(
      cookies.find((c) => c.name === 'svc_sso_state'),
      undefined,
      'the sign-in state cookie is gone',
    );
    assert.deepEqual(await foreignStorage(page, session.value), { keys: [], holdsSecret: false }, "nothing but the console's preferences in storage");
    await ui.checkPage('sso-02-signed-in');
  });

  test('the session works for the API like a password sign-in: reads, and writes with the CSRF token', async () => {
    const me = (await page.evaluate(`fetch('/api/auth/me').then((r) => r.json())`)) as { username: string; role: string; auth_method: string };
    assert.deepEqual({ username: me.username, role: me.role, auth_method: me.auth_method }, { username: 'alice', role: 'analyst', auth_method: 'sso' });
    const write = await pageRequest(page, 'POST', '/api/api_keys', { name: 'from sso' });
    assert.equal(write.status, 201);
    await page.getByRole('link', { name: 'Alerts', exact: true }).click();
    await page.getByRole('heading', { name: 'Alerts' }).waitFor();
    await ui.checkPage('sso-03-alerts');
  });

  test('logging out returns to the sign-in page with the provider button again', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).waitFor();
    const status = (await page.evaluate(`fetch('/api/auth/me').then((r) => r.status)`)) as number;
    assert.equal(status, 401);
  });
});

// What the single sign-on callback refuses, against a real OpenID provider: a forged, foreign or
// replayed state (400), an ID token for another client, with another nonce, from another issuer or
// not signed by the provider (401), a callback naming another issuer, a code issued to another
// client or redeemed with another sign-in's verifier, and the provider's own refusal.
// None of them opens a session. ASVS 10.1.2, 10.2.1, 10.2.2, 10.5.1, 10.5.3, 10.5.4.
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { anonymous, describeEachDatabase } from '../helpers/service.js';
import { startOidcProvider } from '../helpers/oidc-provider.js';
import { assertError, countRows } from '../rules/fixtures.js';
import { ACCOUNTS, OTHER_CLIENT, setCookie, ssoEnv, ssoSignIn, VIGIL_CLIENT } from './sso-fixtures.js';

const STATE_INVALID = 'Single sign-on state is missing, invalid, expired or already used';

const provider = await startOidcProvider({ clients: [VIGIL_CLIENT, OTHER_CLIENT], accounts: ACCOUNTS });
after(() => provider.close());

describeEachDatabase(
  'single sign-on callback checks',
  (t) => {
    /** A callback the provider really sent, not yet brought back to the service. */
    async function pendingCallback(account = 'alice-sub') {
      const start = await anonymous(t.service).get('/api/auth/sso/login?provider=oidc');
      const stateCookie = setCookie(start, 'svc_sso_state')?.value ?? '';
      const authUrl = new URL(String(start.headers.location));
      authUrl.searchParams.set('login_hint', account);
      const back = await provider.authorize(authUrl);
      return { stateCookie, path: back.pathname + back.search, state: back.searchParams.get('state') ?? '' };
    }

    it('refuses a replayed callback: the state works once (400)', async () => {
      const signIn = await ssoSignIn(t.service, provider, 'alice-sub');
      assert.equal(signIn.callback.statusCode, 302, signIn.callback.body);
      const replay = await anonymous(t.service).get(signIn.callbackPath, { cookie: `svc_sso_state=${signIn.stateCookie}` });
      assertError(replay, 400, STATE_INVALID);
      assert.equal(setCookie(replay, 'svc_session'), undefined);
    });

    it('refuses a forged state (400), and a state without the cookie of the browser that started the sign-in (400)', async () => {
      const pending = await pendingCallback();
      const forged = pending.path.replace(/state=[^&]+/, 'state=forged-state-value-forged-state-value-000');
      assertError(await anonymous(t.service).get(forged, { cookie: 'svc_sso_state=forged-state-value-forged-state-value-000' }), 400, STATE_INVALID);
      assertError(await anonymous(t.service).get(forged, { cookie: `svc_sso_state=${pending.stateCookie}` }), 400, STATE_INVALID);
      // The real callback in another browser (no state cookie, or another sign-in's): refused.
      assertError(await anonymous(t.service).get(pending.path), 400, STATE_INVALID);
      const other = await anonymous(t.service).get('/api/auth/sso/login?provider=oidc');
      assertError(await anonymous(t.service).get(pending.path, { cookie: `svc_sso_state=${setCookie(other, 'svc_sso_state')?.value}` }), 400, STATE_INVALID);
      // None of that consumed it: the browser that started it still completes (parameters some
      // providers add, such as session_state, are accepted).
      const done = await anonymous(t.service).get(`${pending.path}&session_state=abc.def`, { cookie: `svc_sso_state=${pending.stateCookie}` });
      assert.equal(done.statusCode, 302, done.body);
      // No state at all.
      assertError(await anonymous(t.service).get('/api/auth/sso/callback?code=abc'), 400, STATE_INVALID);
    });

    it('refuses an expired sign-in (400)', async () => {
      const pending = await pendingCallback();
      await t.service.db.query(`UPDATE sso_login_states SET expires_at = now() - interval '1 second' WHERE state = $1`, [pending.state]);
      assertError(await anonymous(t.service).get(pending.path, { cookie: `svc_sso_state=${pending.stateCookie}` }), 400, STATE_INVALID);
    });

    it('refuses an ID token issued for another client (401)', async () => {
      await provider.tamperNextIdToken({ claims: { aud: OTHER_CLIENT.client_id } });
      const signIn = await ssoSignIn(t.service, provider, 'alice-sub');
      assertError(signIn.callback, 401, /^Single sign-on failed: .*"aud"/);
      assert.equal(signIn.session, undefined);
    });

    it('refuses a code issued to another client (401)', async () => {
      const signIn = await ssoSignIn(t.service, provider, 'alice-sub', (url) => url.searchParams.set('client_id', OTHER_CLIENT.client_id));
      assertError(signIn.callback, 401, /^Single sign-on failed: the identity provider refused the authorization code \(invalid_grant\)$/);
      assert.equal(signIn.session, undefined);
    });

    it('refuses an ID token with another nonce than the sign-in sent (401)', async () => {
      const signIn = await ssoSignIn(t.service, provider, 'alice-sub', (url) => url.searchParams.set('nonce', 'a-nonce-chosen-by-someone-else-0000000000000'));
      assertError(signIn.callback, 401, /^Single sign-on failed: .*"nonce"/);
      assert.equal(signIn.session, undefined);
    });

    it('refuses an ID token from another issuer (401)', async () => {
      await provider.tamperNextIdToken({ claims: { iss: 'https://idp.attacker.example' } });
      const signIn = await ssoSignIn(t.service, provider, 'alice-sub');
      assertError(signIn.callback, 401, /^Single sign-on failed: .*"iss"/);
    });

    it('refuses a callback that names another issuer (mix-up defence, 401)', async () => {
      const pending = await pendingCallback();
      assert.match(pending.path, /[?&]iss=/, 'the provider names itself in the callback');
      const mixedUp = pending.path.replace(/iss=[^&]+/, `iss=${encodeURIComponent('https://idp.attacker.example')}`);
      assertError(await anonymous(t.service).get(mixedUp, { cookie: `svc_sso_state=${pending.stateCookie}` }), 401, /^Single sign-on failed: .*"iss"/);
    });

    it('refuses an ID token not signed by the provider (401)', async () => {
      await provider.tamperNextIdToken({ foreignKey: true, claims: {} });
      const signIn = await ssoSignIn(t.service, provider, 'alice-sub');
      assertError(signIn.callback, 401, /^Single sign-on failed: JWT signature verification failed$/);
      assert.equal(signIn.session, undefined);
    });

    it('refuses a PKCE verifier that does not match: a code redeemed for another sign-in (401)', async () => {
      // The code of sign-in A brought back with the state of sign-in B (whose verifier differs).
      const a = await pendingCallback();
      const b = await pendingCallback();
      const swapped = a.path.replace(/state=[^&]+/, `state=${b.state}`);
      assertError(await anonymous(t.service).get(swapped, { cookie: `svc_sso_state=${b.stateCookie}` }), 401, /^Single sign-on failed: the identity provider refused the authorization code/);
    });

    it("passes on the provider's refusal (401) and audits failed sign-ins", async () => {
      const signIn = await ssoSignIn(t.service, provider, 'nobody-at-this-provider');
      assertError(signIn.callback, 401, 'Single sign-on failed: the identity provider answered access_denied');
      assert.ok((await countRows(t.service, `audit_log WHERE action = 'auth.login_failed' AND details->>'method' = 'sso'`, [])) >= 5);
    });

    it('opened no session and created no user for any refused callback', async () => {
      // Only alice signed in (in the replay and cookie tests).
      assert.equal(await countRows(t.service, `users WHERE auth_method = 'sso'`, []), 1);
    });
  },
  ssoEnv(provider),
);

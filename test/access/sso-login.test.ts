// Single sign-on against a real OpenID provider: the redirect, the callback, users found by (issuer,
// subject), roles from the groups claim on every sign-in, the session it opens, and the users it
// refuses (unverified e-mail, disabled). ASVS 10.1.2, 10.2.1, 10.5.2, 6.8.1.
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { anonymous, describeEachDatabase, login, loginAdmin } from '../helpers/service.js';
import { startOidcProvider } from '../helpers/oidc-provider.js';
import { assertError, countRows } from '../rules/fixtures.js';
import { ACCOUNTS, me, OTHER_CLIENT, REDIRECT_URI, setCookie, ssoEnv, ssoSignIn, VIGIL_CLIENT } from './sso-fixtures.js';

const provider = await startOidcProvider({ clients: [VIGIL_CLIENT, OTHER_CLIENT], accounts: ACCOUNTS });
after(() => provider.close());

describeEachDatabase(
  'single sign-on',
  (t) => {
    it('lists the configured provider to anyone', async () => {
      const response = await anonymous(t.service).get('/api/auth/sso/providers');
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.data, [{ id: 'oidc', name: 'Test IdP', login_url: '/api/auth/sso/login?provider=oidc' }]);
    });

    it('redirects to the provider with the code flow, PKCE S256, state and nonce, the state bound to the browser by a cookie', async () => {
      const response = await anonymous(t.service).get('/api/auth/sso/login?provider=oidc');
      assert.equal(response.statusCode, 302, response.body);
      const target = new URL(String(response.headers.location));
      assert.equal(target.origin, provider.issuer);
      const q = target.searchParams;
      assert.equal(q.get('client_id'), 'vigil');
      assert.equal(q.get('response_type'), 'code');
      assert.equal(q.get('redirect_uri'), REDIRECT_URI);
      assert.equal(q.get('scope'), 'openid email profile groups');
      assert.equal(q.get('code_challenge_method'), 'S256');
      assert.match(q.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
      assert.match(q.get('state') ?? '', /^[A-Za-z0-9_-]{43,}$/);
      assert.match(q.get('nonce') ?? '', /^[A-Za-z0-9_-]{43,}$/);
      assert.notEqual(q.get('state'), q.get('nonce'));
      const cookie = setCookie(response, 'svc_sso_state');
      assert.equal(cookie?.value, q.get('state'));
      assert.match(cookie?.attributes ?? '', /HttpOnly/);
      assert.match(cookie?.attributes ?? '', /SameSite=Lax/);
      assert.match(cookie?.attributes ?? '', /Path=\/api\/auth\/sso/);
      assert.match(cookie?.attributes ?? '', /Max-Age=600/);
      // Each start is a new sign-in with its own values.
      const again = new URL(String((await anonymous(t.service).get('/api/auth/sso/login?provider=oidc')).headers.location));
      assert.notEqual(again.searchParams.get('state'), q.get('state'));
      assert.notEqual(again.searchParams.get('code_challenge'), q.get('code_challenge'));
    });

    it('creates the user on the first sign-in with the role mapped from the groups claim, and opens a session like a login', async () => {
      const signIn = await ssoSignIn(t.service, provider, 'alice-sub');
      assert.equal(signIn.callback.statusCode, 302, signIn.callback.body);
      assert.equal(signIn.callback.headers.location, '/');
      const session = setCookie(signIn.callback, 'svc_session');
      assert.ok(session);
      assert.match(session.attributes, /HttpOnly/);
      assert.match(session.attributes, /SameSite=Strict/);
      assert.match(session.attributes, /Path=\//);
      assert.match(session.attributes, /Max-Age=28800/);
      // The state cookie is cleared.
      assert.match(setCookie(signIn.callback, 'svc_sso_state')?.attributes ?? '', /Expires=Thu, 01 Jan 1970|Max-Age=0/);

      const who = await me(t.service, session.value);
      assert.equal(who.statusCode, 200, who.body);
      assert.deepEqual({ ...who.data, id: undefined }, { id: undefined, username: 'alice', role: 'analyst', two_factor_enabled: false, auth_method: 'sso', assign_on_acknowledge: false });
      // The session works for state-changing requests too (CSRF token from the session).
      const csrf = await anonymous(t.service).get('/api/auth/csrf', { cookie: `svc_session=${session.value}` });
      assert.equal(csrf.statusCode, 200);
      const logout = await anonymous(t.service).post('/api/auth/logout', undefined, { cookie: `svc_session=${session.value}`, 'x-csrf-token': csrf.data.csrf_token });
      assert.equal(logout.statusCode, 204, logout.body);

      assert.equal(await countRows(t.service, 'sso_identities WHERE issuer = $1 AND subject = $2 AND user_id = $3', [provider.issuer, 'alice-sub', who.data.id]), 1);
      assert.equal(await countRows(t.service, `audit_log WHERE action = 'user.create' AND target_id = $1 AND details->>'method' = 'sso'`, [who.data.id]), 1);
      assert.equal(await countRows(t.service, `audit_log WHERE action = 'auth.login' AND actor = 'alice' AND details->>'method' = 'sso'`, []), 1);
    });

    it('finds the same user on the next sign-in, and sets the role from the claim again', async () => {
      const first = await ssoSignIn(t.service, provider, 'dave-sub');
      const firstMe = await me(t.service, first.session ?? '');
      assert.equal(firstMe.data.role, 'analyst');
      const admin = await loginAdmin(t.service);
      const demoted = await admin.patch(`/api/users/${firstMe.data.id}`, { role: 'viewer' });
      assert.equal(demoted.statusCode, 200, demoted.body);

      const second = await ssoSignIn(t.service, provider, 'dave-sub');
      assert.equal(second.callback.statusCode, 302, second.callback.body);
      const secondMe = await me(t.service, second.session ?? '');
      assert.equal(secondMe.data.id, firstMe.data.id);
      assert.equal(secondMe.data.username, 'dave');
      assert.equal(secondMe.data.role, 'analyst', 'the role follows the provider on every sign-in');
      assert.equal(await countRows(t.service, `users WHERE lower(username) LIKE 'dave%'`, []), 1);
      assert.equal(await countRows(t.service, `audit_log WHERE action = 'user.update' AND target_id = $1 AND details->>'source' = 'sso'`, [firstMe.data.id]), 1);
    });

    it('creates one user when the first two sign-ins of an identity complete at the same time', async () => {
      const pending = [];
      for (let i = 0; i < 2; i++) {
        const start = await anonymous(t.service).get('/api/auth/sso/login?provider=oidc');
        const authUrl = new URL(String(start.headers.location));
        authUrl.searchParams.set('login_hint', 'zoe-sub');
        const back = await provider.authorize(authUrl);
        pending.push({ path: back.pathname + back.search, cookie: `svc_sso_state=${setCookie(start, 'svc_sso_state')?.value}` });
      }
      const callbacks = await Promise.all(pending.map((p) => anonymous(t.service).get(p.path, { cookie: p.cookie })));
      for (const callback of callbacks) assert.equal(callback.statusCode, 302, callback.body);
      const ids = await Promise.all(callbacks.map(async (c) => (await me(t.service, setCookie(c, 'svc_session')?.value ?? '')).data.id));
      assert.equal(ids[0], ids[1]);
      assert.equal(await countRows(t.service, `users WHERE lower(username) LIKE 'zoe%'`, []), 1);
    });

    it('gives the highest mapped role, and the default role to a user with no mapped group', async () => {
      const bob = await ssoSignIn(t.service, provider, 'bob-sub');
      assert.equal((await me(t.service, bob.session ?? '')).data.role, 'admin');
      const carol = await ssoSignIn(t.service, provider, 'carol-sub');
      assert.equal((await me(t.service, carol.session ?? '')).data.role, 'viewer');
      // A claim with one group as a plain string.
      const henry = await ssoSignIn(t.service, provider, 'henry-sub');
      assert.equal((await me(t.service, henry.session ?? '')).data.role, 'admin');
    });

    it('never takes over a local user with the same name: the SSO user gets a unique name of its own', async () => {
      const admin = await loginAdmin(t.service);
      const created = await admin.post('/api/users', { username: 'localuser', password: 'localuser-password-123', role: 'viewer' });
      assert.equal(created.statusCode, 201, created.body);

      const signIn = await ssoSignIn(t.service, provider, 'local-twin-sub');
      assert.equal(signIn.callback.statusCode, 302, signIn.callback.body);
      const who = (await me(t.service, signIn.session ?? '')).data;
      assert.equal(who.username, 'localuser-2');
      assert.notEqual(who.id, created.data.id);
      assert.equal(who.role, 'admin');
      // The local user is unchanged and still signs in with the password.
      const local = await login(t.service, 'localuser', 'localuser-password-123');
      const localMe = (await local.get('/api/auth/me')).data;
      assert.deepEqual([localMe.id, localMe.role, localMe.auth_method], [created.data.id, 'viewer', 'local']);
    });

    it('names a user without preferred_username after the verified e-mail, and makes any name a valid username', async () => {
      const signIn = await ssoSignIn(t.service, provider, 'erin-sub');
      assert.equal((await me(t.service, signIn.session ?? '')).data.username, 'erin-soc@example.com');
      // No e-mail claim at all (email_verified alone refuses nothing).
      const ivy = await ssoSignIn(t.service, provider, 'ivy-sub');
      assert.equal(ivy.callback.statusCode, 302, ivy.callback.body);
      assert.equal((await me(t.service, ivy.session ?? '')).data.username, 'Ivy-Admin');
    });

    it('refuses a password login for an SSO user, and an administrator cannot give them a password', async () => {
      const signIn = await ssoSignIn(t.service, provider, 'mallory-sub');
      const id = (await me(t.service, signIn.session ?? '')).data.id;
      assertError(await anonymous(t.service).post('/api/auth/login', { username: 'mallory', password: 'anything-at-all-123' }), 401, 'Incorrect username or password');
      const admin = await loginAdmin(t.service);
      assertError(await admin.patch(`/api/users/${id}`, { password: 'a-password-set-by-admin' }), 400, 'This user signs in through single sign-on and cannot have a password');
      assertError(await anonymous(t.service).post('/api/auth/login', { username: 'mallory', password: 'a-password-set-by-admin' }), 401, 'Incorrect username or password');
    });

    it('refuses an e-mail the provider says is unverified (403), creating no user', async () => {
      const signIn = await ssoSignIn(t.service, provider, 'frank-sub');
      assertError(signIn.callback, 403, 'The identity provider has not verified this e-mail address');
      assert.equal(signIn.session, undefined);
      assert.equal(await countRows(t.service, `users WHERE lower(username) = 'frank'`, []), 0);
      assert.equal(await countRows(t.service, `audit_log WHERE action = 'auth.login_failed' AND details->>'reason' = 'email_not_verified'`, []), 1);
    });

    it('signs in a user whose e-mail carries no verification claim, without using that e-mail', async () => {
      const signIn = await ssoSignIn(t.service, provider, 'grace-sub');
      assert.equal(signIn.callback.statusCode, 302, signIn.callback.body);
      assert.equal((await me(t.service, signIn.session ?? '')).data.username, 'grace');
    });

    it('refuses a disabled SSO user (403) and opens no session', async () => {
      const first = await ssoSignIn(t.service, provider, 'carol-sub');
      const id = (await me(t.service, first.session ?? '')).data.id;
      const admin = await loginAdmin(t.service);
      assert.equal((await admin.patch(`/api/users/${id}`, { disabled: true })).statusCode, 200);
      assert.equal((await me(t.service, first.session ?? '')).statusCode, 401, 'disabling revoked the session');

      const again = await ssoSignIn(t.service, provider, 'carol-sub');
      assertError(again.callback, 403, 'This account is disabled');
      assert.equal(again.session, undefined);
      await admin.patch(`/api/users/${id}`, { disabled: false });
      const enabled = await ssoSignIn(t.service, provider, 'carol-sub');
      assert.equal((await me(t.service, enabled.session ?? '')).data.id, id);
    });
  },
  ssoEnv(provider),
);

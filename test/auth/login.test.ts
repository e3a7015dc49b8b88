// Login, sessions, CSRF and logout, from the client's side.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_PASSWORD, anonymous, Client, describeEachDatabase, login, loginAdmin } from '../helpers/service.js';

describeEachDatabase('sessions', (ctx) => {
  test('login answers a bearer token, the user and an HttpOnly strict cookie', async () => {
    const res = await anonymous(ctx.service).post('/api/auth/login', { username: 'admin', password: ADMIN_PASSWORD });
    assert.equal(res.statusCode, 200);
    assert.equal(res.data.token_type, 'bearer');
    assert.equal(typeof res.data.access_token, 'string');
    assert.deepEqual(Object.keys(res.data.user).sort(), ['id', 'role', 'username']);
    assert.equal(res.data.user.role, 'admin');
    const cookie = String(res.headers['set-cookie']);
    assert.match(cookie, /^svc_session=/);
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Strict/);
    assert.match(cookie, /Path=\//);
    assert.match(cookie, /Max-Age=28800/);
    assert.doesNotMatch(cookie, /Secure/);
  });

  test('wrong password and unknown user give the same 401', async () => {
    for (const body of [
      { username: 'admin', password: 'wrong-password' },
      { username: 'nobody-here', password: 'wrong-password' },
    ]) {
      const res = await anonymous(ctx.service).post('/api/auth/login', body);
      assert.equal(res.statusCode, 401);
      assert.deepEqual(res.data, { detail: 'Incorrect username or password', status_code: 401 });
    }
  });

  test('me works with the bearer header and with the cookie', async () => {
    const res = await anonymous(ctx.service).post('/api/auth/login', { username: 'admin', password: ADMIN_PASSWORD });
    const token = res.data.access_token;
    const viaHeader = await new Client(ctx.service, token).get('/api/auth/me');
    assert.equal(viaHeader.statusCode, 200);
    assert.deepEqual(viaHeader.data, { id: res.data.user.id, username: 'admin', role: 'admin', two_factor_enabled: false, auth_method: 'local', assign_on_acknowledge: false });
    const viaCookie = await anonymous(ctx.service).get('/api/auth/me', { cookie: `svc_session=${token}` });
    assert.equal(viaCookie.statusCode, 200);
  });

  test('no credentials, garbage and tampered tokens are 401 with WWW-Authenticate', async () => {
    const admin = await loginAdmin(ctx.service);
    const [h, p, s] = admin.token!.split('.');
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...payload, sub: '00000000-0000-0000-0000-000000000000' })).toString('base64url');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${p}.`;
    for (const auth of [undefined, 'Bearer not-a-token', `Bearer ${h}.${forged}.${s}`, `Bearer ${none}`, 'Basic abc', `Bearer ${h}.${p}.${s.slice(0, -2)}xx`]) {
      const res = await anonymous(ctx.service).get('/api/auth/me', auth ? { authorization: auth } : {});
      assert.equal(res.statusCode, 401, String(auth));
      assert.deepEqual(res.data, { detail: 'Could not validate credentials', status_code: 401 });
      assert.equal(res.headers['www-authenticate'], 'Bearer');
    }
  });

  test('state-changing requests need the session CSRF token', async () => {
    const admin = await loginAdmin(ctx.service);
    const other = await loginAdmin(ctx.service);
    const body = { username: `csrf-${Date.now()}`, password: 'long-enough-password', role: 'viewer' };
    const missing = await new Client(ctx.service, admin.token).post('/api/users', body);
    assert.equal(missing.statusCode, 403);
    assert.deepEqual(missing.data, { detail: 'CSRF token missing or invalid', status_code: 403 });
    const foreign = await new Client(ctx.service, admin.token, other.csrf).post('/api/users', body);
    assert.equal(foreign.statusCode, 403);
    const viaCookieNoCsrf = await anonymous(ctx.service).post('/api/users', body, { cookie: `svc_session=${admin.token}` });
    assert.equal(viaCookieNoCsrf.statusCode, 403);
    const ok = await admin.post('/api/users', body);
    assert.equal(ok.statusCode, 201);
  });

  test('logout revokes the token and clears the cookie', async () => {
    const session = await loginAdmin(ctx.service);
    const res = await session.post('/api/auth/logout');
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    assert.match(String(res.headers['set-cookie']), /svc_session=;.*Max-Age=0|svc_session=;.*Expires=Thu, 01 Jan 1970/);
    const after = await session.get('/api/auth/me');
    assert.equal(after.statusCode, 401);
  });

  test('five failures lock the username for 15 minutes with Retry-After, and it is audited', async () => {
    const admin = await loginAdmin(ctx.service);
    const username = `locked-${Date.now()}`;
    await admin.post('/api/users', { username, password: 'correct-password-1', role: 'viewer' });
    for (let i = 0; i < 5; i++) {
      const res = await anonymous(ctx.service).post('/api/auth/login', { username, password: 'wrong' });
      assert.equal(res.statusCode, 401);
    }
    const locked = await anonymous(ctx.service).post('/api/auth/login', { username, password: 'correct-password-1' });
    assert.equal(locked.statusCode, 429);
    const retryAfter = Number(locked.headers['retry-after']);
    assert.ok(retryAfter > 800 && retryAfter <= 900, `Retry-After ${retryAfter}`);
    const audit = await admin.get(`/api/audit?action=auth.lockout&actor=${username}`);
    assert.equal(audit.data.total, 1);
    // Other users are unaffected.
    await login(ctx.service, 'admin', ADMIN_PASSWORD);
  });

  test('changing the password revokes other sessions but keeps this one', async () => {
    const admin = await loginAdmin(ctx.service);
    const username = `pw-${Date.now()}`;
    await admin.post('/api/users', { username, password: 'first-password-1', role: 'analyst' });
    const a = await login(ctx.service, username, 'first-password-1');
    const b = await login(ctx.service, username, 'first-password-1');
    const wrong = await a.post('/api/auth/password', { current_password: 'nope', new_password: 'second-password-2' });
    assert.equal(wrong.statusCode, 400);
    const short = await a.post('/api/auth/password', { current_password: 'first-password-1', new_password: 'short' });
    assert.equal(short.statusCode, 400);
    const ok = await a.post('/api/auth/password', { current_password: 'first-password-1', new_password: 'second-password-2' });
    assert.equal(ok.statusCode, 204);
    assert.equal((await a.get('/api/auth/me')).statusCode, 200);
    assert.equal((await b.get('/api/auth/me')).statusCode, 401);
    await login(ctx.service, username, 'second-password-2');
  });
});

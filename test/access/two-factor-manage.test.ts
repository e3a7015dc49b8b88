// Managing two-factor login from the user's side: disabling it (password and code), an administrator's
// reset, the CSRF token on every change, SSO accounts, and the routes' OpenAPI description.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, describeEachDatabase, loginAdmin } from '../helpers/service.js';
import { assertError, NIL_UUID } from '../rules/fixtures.js';
import { auditActions, clock, codeFor, createUser, enrolledUser, passwordLogin, tempToken, verify, wrongCodeFor } from './two-factor-fixtures.js';

const INVALID_CODE = 'Invalid two-factor code';

describeEachDatabase('two-factor management', (ctx) => {
  test('disable needs the password and a current code; then login needs the password only', async () => {
    const user = await enrolledUser(ctx.service);
    const code = () => codeFor(user.secret);
    assertError(await user.client.post('/api/auth/2fa/disable', { password: 'not-the-password', code: code() }), 400, 'Password is incorrect');
    assertError(await user.client.post('/api/auth/2fa/disable', { password: user.password, code: wrongCodeFor(user.secret) }), 401, INVALID_CODE);
    assertError(await user.client.post('/api/auth/2fa/disable', { password: user.password }), 400, 'Invalid request');
    assert.equal((await user.client.get('/api/auth/me')).data.two_factor_enabled, true, 'still enabled after refusals');

    const res = await user.client.post('/api/auth/2fa/disable', { password: user.password, code: code() });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.data, { enabled: false });
    assert.equal((await user.client.get('/api/auth/me')).data.two_factor_enabled, false);
    const login = await passwordLogin(ctx.service, user.username, user.password);
    assert.equal(login.statusCode, 200);
    assert.equal(typeof login.data.access_token, 'string');
    assertError(await user.client.post('/api/auth/2fa/disable', { password: user.password, code: code() }), 409, /not enabled/);
    assert.deepEqual(
      await ctx.service.db.query('SELECT 1 FROM two_factor_recovery_codes WHERE user_id = $1', [user.id]),
      [],
      'recovery codes are removed with the factor',
    );
    const actions = await auditActions(ctx.service, user.username);
    assert.ok(actions.includes('auth.2fa_disabled'));
    assert.ok(actions.includes('auth.2fa_disable_failed'));
    clock.nextStep();
  });

  test('a recovery code can stand in for the code when disabling', async () => {
    const user = await enrolledUser(ctx.service);
    const res = await user.client.post('/api/auth/2fa/disable', { password: user.password, code: user.recoveryCodes[0] });
    assert.equal(res.statusCode, 200, res.body);
  });

  test('set up again after disabling: a new secret, and the old one no longer works', async () => {
    const user = await enrolledUser(ctx.service);
    assert.equal((await user.client.post('/api/auth/2fa/disable', { password: user.password, code: codeFor(user.secret) })).statusCode, 200);
    clock.nextStep();
    const setup = await user.client.post('/api/auth/2fa/setup');
    assert.notEqual(setup.data.secret, user.secret);
    // A second setup before enabling replaces the pending secret.
    const again = await user.client.post('/api/auth/2fa/setup');
    assertError(await user.client.post('/api/auth/2fa/enable', { code: codeFor(setup.data.secret) }), 401, INVALID_CODE);
    assert.equal((await user.client.post('/api/auth/2fa/enable', { code: codeFor(again.data.secret) })).statusCode, 200);
    clock.nextStep();
    assertError(await verify(ctx.service, await tempToken(ctx.service, user), codeFor(user.secret)), 401, INVALID_CODE);
    assert.equal((await verify(ctx.service, await tempToken(ctx.service, user), codeFor(again.data.secret))).statusCode, 200);
    assertError(await verify(ctx.service, await tempToken(ctx.service, user), user.recoveryCodes[1]), 401, INVALID_CODE);
  });

  test('an administrator resets a user\'s two-factor login; logins already waiting for a code end', async () => {
    const user = await enrolledUser(ctx.service);
    const waiting = await tempToken(ctx.service, user);
    const admin = await loginAdmin(ctx.service);
    const res = await admin.delete(`/api/users/${user.id}/2fa`);
    assert.equal(res.statusCode, 204, res.body);
    assert.equal(res.body, '');
    assertError(await verify(ctx.service, waiting, codeFor(user.secret)), 401, 'Could not validate credentials');
    const login = await passwordLogin(ctx.service, user.username, user.password);
    assert.equal(typeof login.data.access_token, 'string');
    assert.equal((await user.client.get('/api/auth/me')).data.two_factor_enabled, false);
    const listed = await admin.get(`/api/users?search=${user.username}`);
    assert.equal(listed.data.items[0].two_factor_enabled, false);

    const audit = await admin.get(`/api/audit?action=auth.2fa_reset&search=${user.id}`);
    assert.equal(audit.statusCode, 200, audit.body);
    const entry = audit.data.items.find((e: { target_id: string }) => e.target_id === user.id);
    assert.ok(entry, 'the reset is audited');
    assert.equal(entry.actor, 'admin');
    assert.equal(entry.details.was_enabled, true);

    assert.equal((await admin.delete(`/api/users/${user.id}/2fa`)).statusCode, 204, 'resetting again changes nothing');
    assertError(await admin.delete(`/api/users/${NIL_UUID}/2fa`), 404, 'User not found');
    assertError(await admin.delete('/api/users/not-a-uuid/2fa'), 404, 'User not found');
  });

  test('only administrators may reset, with the CSRF token', async () => {
    const user = await enrolledUser(ctx.service);
    const other = await createUser(ctx.service, 'analyst');
    assertError(await other.client.delete(`/api/users/${user.id}/2fa`), 403, 'Not enough permissions');
    assertError(await user.client.delete(`/api/users/${user.id}/2fa`), 403, 'Not enough permissions');
    const admin = await loginAdmin(ctx.service);
    assertError(await new Client(ctx.service, admin.token).delete(`/api/users/${user.id}/2fa`), 403, 'CSRF token missing or invalid');
    assert.equal((await user.client.get('/api/auth/me')).data.two_factor_enabled, true);
  });

  test('setup, enable and disable need a session and its CSRF token; verify needs neither', async () => {
    const user = await createUser(ctx.service);
    const noCsrf = new Client(ctx.service, user.client.token);
    assertError(await noCsrf.post('/api/auth/2fa/setup'), 403, 'CSRF token missing or invalid');
    const setup = await user.client.post('/api/auth/2fa/setup');
    assertError(await noCsrf.post('/api/auth/2fa/enable', { code: codeFor(setup.data.secret) }), 403, 'CSRF token missing or invalid');
    const foreign = await loginAdmin(ctx.service);
    assertError(await new Client(ctx.service, user.client.token, foreign.csrf).post('/api/auth/2fa/enable', { code: codeFor(setup.data.secret) }), 403, 'CSRF token missing or invalid');
    assert.equal((await user.client.post('/api/auth/2fa/enable', { code: codeFor(setup.data.secret) })).statusCode, 200);
    clock.nextStep();
    assertError(await noCsrf.post('/api/auth/2fa/disable', { password: user.password, code: codeFor(setup.data.secret) }), 403, 'CSRF token missing or invalid');
    const viaCookie = await new Client(ctx.service).post('/api/auth/2fa/disable', { password: user.password, code: codeFor(setup.data.secret) }, { cookie: `svc_session=${user.client.token}` });
    assertError(viaCookie, 403, 'CSRF token missing or invalid');
    for (const path of ['/api/auth/2fa/setup', '/api/auth/2fa/enable', '/api/auth/2fa/disable']) {
      assertError(await new Client(ctx.service).post(path, {}), 401, 'Could not validate credentials');
    }
    assert.equal((await user.client.get('/api/auth/me')).data.two_factor_enabled, true);
    assert.equal((await verify(ctx.service, await tempToken(ctx.service, user), codeFor(setup.data.secret))).statusCode, 200);
  });

  test('request bodies are checked: unknown fields, wrong types and oversized values are 400', async () => {
    const user = await enrolledUser(ctx.service);
    assertError(await user.client.post('/api/auth/2fa/setup', { secret: 'mine' }), 400, 'Invalid request');
    assertError(await user.client.post('/api/auth/2fa/enable', { code: 123456 }), 400, 'Invalid request');
    const temp = await tempToken(ctx.service, user);
    const tooLong = await new Client(ctx.service).post('/api/auth/2fa/verify', { temp_token: temp, code: 'x'.repeat(65) });
    assertError(tooLong, 400, 'Invalid request');
    const extra = await new Client(ctx.service).post('/api/auth/2fa/verify', { temp_token: temp, code: '123456', user: 'admin' });
    assertError(extra, 400, 'Invalid request');
  });

  test('a code pasted with the space apps show between its halves is accepted', async () => {
    const user = await enrolledUser(ctx.service);
    const code = codeFor(user.secret);
    const res = await verify(ctx.service, await tempToken(ctx.service, user), ` ${code.slice(0, 3)} ${code.slice(3)} `);
    assert.equal(res.statusCode, 200, res.body);
    clock.nextStep();
  });

  test('an SSO account cannot set up two-factor login (its identity provider handles that)', async () => {
    const user = await createUser(ctx.service);
    await ctx.service.db.query(`UPDATE users SET auth_method = 'sso', password_hash = NULL WHERE id = $1`, [user.id]);
    assertError(await user.client.post('/api/auth/2fa/setup'), 400, /signs in through SSO/);
  });

  test('OpenAPI describes every two-factor route and the login answer with requires_2fa', async () => {
    const res = await new Client(ctx.service).get('/api/openapi.json');
    assert.equal(res.statusCode, 200);
    const paths = res.data.paths;
    for (const path of ['/api/auth/2fa/setup', '/api/auth/2fa/enable', '/api/auth/2fa/disable', '/api/auth/2fa/verify']) {
      assert.ok(paths[path]?.post, `${path} is described`);
      assert.ok(paths[path].post.responses['200'], `${path} has its 200 answer`);
    }
    assert.ok(paths['/api/users/{id}/2fa']?.delete?.responses['204']);
    const verifyBody = paths['/api/auth/2fa/verify'].post.requestBody.content['application/json'].schema;
    assert.deepEqual(Object.keys(verifyBody.properties).sort(), ['code', 'temp_token']);
    const setupAnswer = paths['/api/auth/2fa/setup'].post.responses['200'].content['application/json'].schema;
    assert.deepEqual(Object.keys(setupAnswer.properties).sort(), ['otpauth_uri', 'qr_code', 'secret']);
    assert.match(JSON.stringify(paths['/api/auth/login'].post.responses['200']), /requires_2fa/);
  });
});

// Two-factor login from the user's side: setup and enable with codes an authenticator app computes,
// login that stops at the second factor, verify that opens the session like a normal login, codes
// accepted once, temp tokens that die (5 wrong codes, 5 minutes, one success), recovery codes,
// throttling and the audit trail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { anonymous, Client, describeEachDatabase } from '../helpers/service.js';
import { assertError } from '../rules/fixtures.js';
import {
  auditActions,
  clock,
  codeFor,
  codeFromUri,
  createUser,
  enrolledUser,
  passwordLogin,
  sessionOf,
  tempToken,
  verify,
  wrongCodeFor,
} from './two-factor-fixtures.js';

const INVALID_CODE = 'Invalid two-factor code';
const DEAD_TOKEN = 'Could not validate credentials';

describeEachDatabase('two-factor login', (ctx) => {
  test('setup answers a secret, its otpauth URI and a QR code; nothing changes until it is enabled', async () => {
    const user = await createUser(ctx.service);
    const res = await user.client.post('/api/auth/2fa/setup');
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(Object.keys(res.data).sort(), ['otpauth_uri', 'qr_code', 'secret']);
    assert.match(res.data.secret, /^[A-Z2-7]{32}$/);
    const uri = new URL(res.data.otpauth_uri);
    assert.equal(uri.protocol, 'otpauth:');
    assert.equal(uri.host, 'totp');
    assert.equal(decodeURIComponent(uri.pathname), `/Vigil:${user.username}`);
    assert.equal(uri.searchParams.get('secret'), res.data.secret);
    assert.equal(uri.searchParams.get('issuer'), 'Vigil');
    assert.equal(uri.searchParams.get('algorithm'), 'SHA1');
    assert.equal(uri.searchParams.get('digits'), '6');
    assert.equal(uri.searchParams.get('period'), '30');
    assert.match(res.data.qr_code, /^data:image\/png;base64,[A-Za-z0-9+/]+=*$/);
    const png = Buffer.from(res.data.qr_code.split(',')[1], 'base64');
    assert.equal(png.subarray(1, 4).toString(), 'PNG');
    assert.equal(codeFromUri(res.data.otpauth_uri), codeFor(res.data.secret));

    assert.equal((await user.client.get('/api/auth/me')).data.two_factor_enabled, false);
    const login = await passwordLogin(ctx.service, user.username, user.password);
    assert.equal(login.statusCode, 200);
    assert.equal(typeof login.data.access_token, 'string', 'a pending secret is not in force');

    const rows = await ctx.service.db.query<Record<string, unknown>>('SELECT * FROM user_two_factor WHERE user_id = $1', [user.id]);
    assert.equal(rows.length, 1);
    assert.ok(!JSON.stringify(rows[0]).includes(res.data.secret), 'the secret is stored encrypted');
  });

  test('enable needs a code from the pending secret and answers ten recovery codes once', async () => {
    const user = await createUser(ctx.service);
    assertError(await user.client.post('/api/auth/2fa/enable', { code: '123456' }), 409, /No two-factor setup is pending/);
    const setup = await user.client.post('/api/auth/2fa/setup');
    const wrong = await user.client.post('/api/auth/2fa/enable', { code: wrongCodeFor(setup.data.secret) });
    assertError(wrong, 401, INVALID_CODE);
    assertError(await user.client.post('/api/auth/2fa/enable', { code: '12345' }), 400, 'Invalid request');

    const res = await user.client.post('/api/auth/2fa/enable', { code: codeFor(setup.data.secret) });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(Object.keys(res.data).sort(), ['enabled', 'recovery_codes']);
    assert.equal(res.data.enabled, true);
    assert.equal(res.data.recovery_codes.length, 10);
    assert.equal(new Set(res.data.recovery_codes).size, 10);
    for (const code of res.data.recovery_codes) assert.match(code, /^[0-9a-z]{4}(-[0-9a-z]{4}){5}$/);
    const stored = await ctx.service.db.query<{ code_hash: string }>('SELECT code_hash FROM two_factor_recovery_codes WHERE user_id = $1', [user.id]);
    assert.equal(stored.length, 10);
    for (const code of res.data.recovery_codes) {
      assert.ok(!stored.some((row) => row.code_hash.includes(code.replace(/-/g, ''))), 'recovery codes are stored hashed');
    }

    const me = await user.client.get('/api/auth/me');
    assert.equal(me.data.two_factor_enabled, true);
    const listed = await user.admin.get(`/api/users?search=${user.username}`);
    assert.equal(listed.data.items[0].two_factor_enabled, true);
    assertError(await user.client.post('/api/auth/2fa/enable', { code: codeFor(setup.data.secret) }), 409, /already enabled/);
    assertError(await user.client.post('/api/auth/2fa/setup'), 409, /already enabled/);
  });

  test('login stops at the second factor; verify opens the session exactly like a normal login', async () => {
    const user = await enrolledUser(ctx.service);
    const login = await passwordLogin(ctx.service, user.username, user.password);
    assert.equal(login.statusCode, 200);
    assert.deepEqual(Object.keys(login.data).sort(), ['requires_2fa', 'temp_token']);
    assert.equal(login.data.requires_2fa, true);
    assert.equal(login.headers['set-cookie'], undefined, 'no session cookie before the second factor');
    const temp = login.data.temp_token as string;
    assertError(await new Client(ctx.service, temp).get('/api/auth/me'), 401, DEAD_TOKEN);

    const res = await verify(ctx.service, temp, codeFor(user.secret));
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(Object.keys(res.data).sort(), ['access_token', 'token_type', 'user']);
    assert.equal(res.data.token_type, 'bearer');
    assert.deepEqual(res.data.user, { id: user.id, username: user.username, role: 'analyst' });
    const cookie = String(res.headers['set-cookie']);
    assert.match(cookie, new RegExp(`^svc_session=${res.data.access_token};`));
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Strict/);
    assert.match(cookie, /Max-Age=28800/);

    const viaCookie = await anonymous(ctx.service).get('/api/auth/me', { cookie: `svc_session=${res.data.access_token}` });
    assert.equal(viaCookie.statusCode, 200);
    assert.deepEqual(viaCookie.data, { id: user.id, username: user.username, role: 'analyst', two_factor_enabled: true, auth_method: 'local', assign_on_acknowledge: false });
    const session = await sessionOf(res, ctx.service);
    assert.equal((await session.post('/api/auth/logout')).statusCode, 204, 'state-changing requests work with the session');

    assertError(await verify(ctx.service, temp, codeFor(user.secret, clock.nextStep())), 401, DEAD_TOKEN);
  });

  test('a code is accepted once: the same code, or an older step, is refused on the next login', async () => {
    const user = await enrolledUser(ctx.service);
    const code = codeFor(user.secret);
    assert.equal((await verify(ctx.service, await tempToken(ctx.service, user), code)).statusCode, 200);
    assertError(await verify(ctx.service, await tempToken(ctx.service, user), code), 401, INVALID_CODE);
    const previousStep = codeFor(user.secret, clock.at - 30_000);
    assertError(await verify(ctx.service, await tempToken(ctx.service, user), previousStep), 401, INVALID_CODE);

    // One step later the authenticator shows a new code, and it works.
    clock.nextStep();
    assert.equal((await verify(ctx.service, await tempToken(ctx.service, user), codeFor(user.secret))).statusCode, 200);
  });

  test('the code of the enabling step cannot be used to log in', async () => {
    const user = await createUser(ctx.service);
    const setup = await user.client.post('/api/auth/2fa/setup');
    const code = codeFor(setup.data.secret);
    assert.equal((await user.client.post('/api/auth/2fa/enable', { code })).statusCode, 200);
    assertError(await verify(ctx.service, await tempToken(ctx.service, user), code), 401, INVALID_CODE);
    clock.nextStep();
  });

  test("enabled with the next step's code (an authenticator clock ahead): that step and the ones before stay spent", async () => {
    const user = await createUser(ctx.service);
    const setup = await user.client.post('/api/auth/2fa/setup');
    const secret = setup.data.secret as string;
    const ahead = codeFor(secret, clock.at + 30_000);
    assert.equal((await user.client.post('/api/auth/2fa/enable', { code: ahead })).statusCode, 200);
    // The same code again, at once: to log in, or to turn the factor off.
    assertError(await verify(ctx.service, await tempToken(ctx.service, user), ahead), 401, INVALID_CODE);
    const off = await user.client.post('/api/auth/2fa/disable', { password: user.password, code: ahead });
    assertError(off, 401, INVALID_CODE);
    // The current step is older than the one used: refused too, now and once the clock reaches that step.
    assertError(await verify(ctx.service, await tempToken(ctx.service, user), codeFor(secret)), 401, INVALID_CODE);
    clock.nextStep();
    assertError(await verify(ctx.service, await tempToken(ctx.service, user), codeFor(secret)), 401, INVALID_CODE);
    clock.nextStep();
    assert.equal((await verify(ctx.service, await tempToken(ctx.service, user), codeFor(secret))).statusCode, 200);
  });

  test('two logins racing with one code: exactly one is accepted', async () => {
    const user = await enrolledUser(ctx.service);
    const tokens = await Promise.all([tempToken(ctx.service, user), tempToken(ctx.service, user), tempToken(ctx.service, user)]);
    const code = codeFor(user.secret);
    const answers = await Promise.all(tokens.map((token) => verify(ctx.service, token, code)));
    assert.deepEqual(answers.map((a) => a.statusCode).sort(), [200, 401, 401]);
  });

  test('a code one step off (clock drift) is accepted; two steps off is not', async () => {
    const user = await enrolledUser(ctx.service);
    assertError(await verify(ctx.service, await tempToken(ctx.service, user), codeFor(user.secret, clock.at + 60_000)), 401, INVALID_CODE);
    assert.equal((await verify(ctx.service, await tempToken(ctx.service, user), codeFor(user.secret, clock.at + 30_000))).statusCode, 200);
    clock.nextStep();
    clock.nextStep();
  });

  test('five wrong codes kill the temp token, and the account is then throttled', async () => {
    const user = await enrolledUser(ctx.service);
    const temp = await tempToken(ctx.service, user);
    for (let i = 0; i < 5; i++) assertError(await verify(ctx.service, temp, wrongCodeFor(user.secret)), 401, INVALID_CODE);
    assertError(await verify(ctx.service, temp, codeFor(user.secret)), 401, DEAD_TOKEN);

    // Those five failures lock code checks for this account (like passwords): a new login's right code gets 429.
    const next = await verify(ctx.service, await tempToken(ctx.service, user), codeFor(user.secret));
    assertError(next, 429, /Too many failed/);
    assert.ok(Number(next.headers['retry-after']) >= 1);
    const actions = await auditActions(ctx.service, user.username);
    assert.equal(actions.filter((a) => a === 'auth.2fa_failed').length, 5);
    assert.ok(actions.includes('auth.lockout'));
  });

  test('a temp token lives five minutes', async () => {
    const user = await enrolledUser(ctx.service);
    const fresh = await tempToken(ctx.service, user);
    clock.advanceSeconds(4 * 60 + 50);
    assert.equal((await verify(ctx.service, fresh, codeFor(user.secret))).statusCode, 200, 'still alive before five minutes');

    const old = await tempToken(ctx.service, user);
    clock.advanceSeconds(5 * 60 + 1);
    assertError(await verify(ctx.service, old, codeFor(user.secret)), 401, DEAD_TOKEN);
    clock.nextStep();
  });

  test('temp tokens that are forged, of another kind or from a session are refused', async () => {
    const user = await enrolledUser(ctx.service);
    const temp = await tempToken(ctx.service, user);
    const [h, p, s] = temp.split('.');
    assertError(await verify(ctx.service, `${h}.${p}.${s.slice(0, -2)}xx`, codeFor(user.secret)), 401, DEAD_TOKEN);
    assertError(await verify(ctx.service, 'not-a-token', codeFor(user.secret)), 401, DEAD_TOKEN);
    assertError(await verify(ctx.service, user.client.token!, codeFor(user.secret)), 401, DEAD_TOKEN);
    assertError(await anonymous(ctx.service).post('/api/auth/2fa/verify', { temp_token: temp }), 400, 'Invalid request');
    assert.equal((await verify(ctx.service, temp, codeFor(user.secret))).statusCode, 200, 'the real token still works');
  });

  test('each recovery code works once in place of a code, typed in any case and without dashes', async () => {
    const user = await enrolledUser(ctx.service);
    const [first, second] = user.recoveryCodes;
    const res = await verify(ctx.service, await tempToken(ctx.service, user), first);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal((await sessionOf(res, ctx.service).then((c) => c.get('/api/auth/me'))).statusCode, 200);
    assertError(await verify(ctx.service, await tempToken(ctx.service, user), first), 401, INVALID_CODE);
    const typed = second.replace(/-/g, '').toUpperCase();
    assert.equal((await verify(ctx.service, await tempToken(ctx.service, user), typed)).statusCode, 200);
    assertError(await verify(ctx.service, await tempToken(ctx.service, user), 'aaaa-bbbb-cccc-dddd-eeee-ffff'), 401, INVALID_CODE);
    const other = await enrolledUser(ctx.service);
    assertError(await verify(ctx.service, await tempToken(ctx.service, other), user.recoveryCodes[2]), 401, INVALID_CODE);
  });

  test('a disabled user cannot finish a login begun before', async () => {
    const user = await enrolledUser(ctx.service);
    const temp = await tempToken(ctx.service, user);
    assert.equal((await user.admin.patch(`/api/users/${user.id}`, { disabled: true })).statusCode, 200);
    assertError(await verify(ctx.service, temp, codeFor(user.secret)), 401, DEAD_TOKEN);
  });

  test('successes and failures are audited without secrets', async () => {
    const user = await enrolledUser(ctx.service);
    assertError(await verify(ctx.service, await tempToken(ctx.service, user), wrongCodeFor(user.secret)), 401, INVALID_CODE);
    assert.equal((await verify(ctx.service, await tempToken(ctx.service, user), codeFor(user.secret))).statusCode, 200);
    const actions = await auditActions(ctx.service, user.username);
    for (const action of ['auth.2fa_setup', 'auth.2fa_enabled', 'auth.2fa_required', 'auth.2fa_failed', 'auth.2fa_verified', 'auth.login']) {
      assert.ok(actions.includes(action), `${action} in ${actions.join(', ')}`);
    }
    const rows = await ctx.service.db.query<Record<string, unknown>>('SELECT * FROM audit_log WHERE actor = $1', [user.username]);
    const text = JSON.stringify(rows);
    assert.ok(!text.includes(user.secret), 'no secret in the audit log');
    for (const code of user.recoveryCodes) assert.ok(!text.includes(code));
  });
});

// The login throttle counts per account, whatever spelling of the name the lookup accepts; refused
// attempts do not each write an audit row; wrong current passwords on a password change are throttled
// like wrong logins.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { anonymous, describeEachDatabase, loginAdmin, type Client } from '../helpers/service.js';
import { assertError, countRows, userAs } from '../rules/fixtures.js';

describeEachDatabase('login throttle per account', (ctx) => {
  let admin: Client;

  before(async () => {
    admin = await loginAdmin(ctx.service);
  });

  const attempt = (username: string, password: string) => anonymous(ctx.service).post('/api/auth/login', { username, password });

  test('a locked account stays locked under another spelling of its name that the lookup accepts', async () => {
    await userAs(admin, 'viewer', 'victim');
    for (let i = 0; i < 5; i++) assert.equal((await attempt(i % 2 ? 'VICTIM' : 'victim', 'wrong-password')).statusCode, 401);
    assertError(await attempt('victim', 'victim-password-123'), 429, 'Too many failed login attempts; try again later');
    // U+0130 (İ): the database may fold it to "i" when it looks the name up; then it is the same account.
    const [{ same }] = await ctx.service.db.query<{ same: boolean }>(`SELECT lower('VİCTİM') = 'victim' AS same`);
    const dotted = await attempt('VİCTİM', 'victim-password-123');
    assert.equal(dotted.statusCode, same ? 429 : 401, dotted.body);
  });

  test('a flood of refused attempts writes at most one audit row per account', async () => {
    await userAs(admin, 'viewer', 'flooded');
    for (let i = 0; i < 5; i++) await attempt('flooded', 'wrong-password');
    for (let i = 0; i < 20; i++) assert.equal((await attempt('flooded', 'wrong-password')).statusCode, 429);
    assert.equal(await countRows(ctx.service, "audit_log WHERE action = 'auth.login_blocked' AND actor = 'flooded'", []), 1);
    assert.equal(await countRows(ctx.service, "audit_log WHERE action = 'auth.lockout' AND actor = 'flooded'", []), 1);
  });

  test('five wrong current passwords on a password change lock further attempts with 429', async () => {
    const user = await userAs(admin, 'analyst', 'changer');
    for (let i = 0; i < 5; i++) {
      const wrong = await user.post('/api/auth/password', { current_password: 'not-my-password', new_password: 'a-brand-new-password' });
      assertError(wrong, 400, 'Current password is incorrect');
    }
    const locked = await user.post('/api/auth/password', { current_password: 'changer-password-123', new_password: 'a-brand-new-password' });
    assertError(locked, 429, 'Too many failed login attempts; try again later');
    assert.ok(Number(locked.headers['retry-after']) >= 1);
  });
});

// Brute force under concurrency: a burst of parallel guesses gets no more than five passwords checked before the username locks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { anonymous, describeEachDatabase, loginAdmin, login } from '../helpers/service.js';

describeEachDatabase('login throttling under concurrent attempts', (ctx) => {
  test('twenty parallel wrong passwords: at most five are checked, the rest are 429, then the username is locked', async () => {
    const admin = await loginAdmin(ctx.service);
    const username = `burst-${Date.now()}`;
    assert.equal((await admin.post('/api/users', { username, password: 'the-right-password', role: 'viewer' })).statusCode, 201);

    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => anonymous(ctx.service).post('/api/auth/login', { username, password: `guess-number-${i}` })),
    );
    const checked = answers.filter((r) => r.statusCode === 401);
    const refused = answers.filter((r) => r.statusCode === 429);
    assert.equal(checked.length + refused.length, 20, answers.map((r) => r.statusCode).join(' '));
    assert.ok(checked.length <= 5, `${checked.length} guesses were checked`);
    for (const r of refused) {
      assert.equal(r.data.status_code, 429);
      assert.ok(Number(r.headers['retry-after']) >= 1, `Retry-After ${r.headers['retry-after']}`);
    }

    const locked = await anonymous(ctx.service).post('/api/auth/login', { username, password: 'the-right-password' });
    assert.equal(locked.statusCode, 429);
    assert.ok(Number(locked.headers['retry-after']) > 800, `Retry-After ${locked.headers['retry-after']}`);
    const lockouts = await admin.get(`/api/audit?action=auth.lockout&actor=${username}`);
    assert.equal(lockouts.data.total, 1);
  });

  test('a success clears the count: four failures, a login, four more failures still do not lock', async () => {
    const admin = await loginAdmin(ctx.service);
    const username = `reset-${Date.now()}`;
    await admin.post('/api/users', { username, password: 'the-right-password', role: 'viewer' });
    const fail = () => anonymous(ctx.service).post('/api/auth/login', { username, password: 'wrong-password' });
    for (let i = 0; i < 4; i++) assert.equal((await fail()).statusCode, 401);
    await login(ctx.service, username, 'the-right-password');
    for (let i = 0; i < 4; i++) assert.equal((await fail()).statusCode, 401);
    await login(ctx.service, username, 'the-right-password');
  });
});

// Per-key rate limits from an integration's side: a standard key gets 60 requests a minute and the 61st
// is refused with 429 and Retry-After; the next window opens again; high-tier keys get 300; budgets
// are per key; concurrent requests cannot overspend. The window clock is moved by hand (no waiting).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loginAdmin } from '../helpers/service.js';
import { assertError, userAs } from '../rules/fixtures.js';
import { createKey, describeEachDatabaseWith, keyClient, ManualClock, rateHeaders } from './fixtures.js';

// 10 s into a minute: the window closes in 50 s.
const START = '2031-03-01T12:00:10.000Z';
const clock = new ManualClock(START);

describeEachDatabaseWith('API key rate limits', { rateLimit: { now: clock.now } }, (ctx) => {
  const run = Math.random().toString(36).slice(2, 7);

  test('a standard key gets 60 requests a minute; the 61st answers 429 with Retry-After; the next minute opens again', async () => {
    clock.set(START);
    const viewer = await userAs(await loginAdmin(ctx.service), 'viewer', `rl-viewer-${run}`);
    const key = keyClient(ctx.service, await createKey(viewer));
    for (let i = 1; i <= 60; i++) {
      const res = await key.get(i % 2 ? '/api/external/alerts' : '/api/external/stats');
      assert.equal(res.statusCode, 200, `request ${i}: ${res.body}`);
      assert.deepEqual(rateHeaders(res), { limit: 60, remaining: 60 - i, reset: 50 });
    }
    const refused = await key.get('/api/external/alerts');
    assertError(refused, 429, 'Rate limit exceeded');
    assert.equal(refused.headers['retry-after'], '50');
    assert.deepEqual(rateHeaders(refused), { limit: 60, remaining: 0, reset: 50 });
    assert.equal(refused.headers['x-content-type-options'], 'nosniff');

    clock.advance(45.5);
    const later = await key.get('/api/external/rules');
    assert.equal(later.statusCode, 429, 'still the same window');
    assert.equal(later.headers['retry-after'], '5', 'whole seconds, rounded up');

    clock.advance(5);
    const reopened = await key.get('/api/external/rules');
    assert.equal(reopened.statusCode, 200, reopened.body);
    assert.deepEqual(rateHeaders(reopened), { limit: 60, remaining: 59, reset: 60 });
  });

  test('a refused request answers 429 before anything else, also where the key would get 403', async () => {
    const viewer = await userAs(await loginAdmin(ctx.service), 'viewer', `rl-spent-${run}`);
    const key = keyClient(ctx.service, await createKey(viewer));
    for (let i = 0; i < 60; i++) assert.equal((await key.get('/api/rules')).statusCode, 403);
    const res = await key.get('/api/external/stats');
    assertError(res, 429, 'Rate limit exceeded');
    assert.ok(Number(res.headers['retry-after']) >= 1);
    assertError(await key.post('/api/rules', {}), 429, 'Rate limit exceeded');
  });

  test('a high-tier key gets 300 a minute', async () => {
    const admin = await loginAdmin(ctx.service);
    const key = keyClient(ctx.service, await createKey(admin, { tier: 'high' }));
    for (let i = 1; i <= 300; i++) {
      const res = await key.get('/api/external/stats');
      assert.equal(res.statusCode, 200, `request ${i}`);
      if (i === 1) assert.equal(rateHeaders(res).limit, 300);
    }
    assertError(await key.get('/api/external/stats'), 429, 'Rate limit exceeded');
  });

  test('each key has its own budget, even for one owner', async () => {
    const viewer = await userAs(await loginAdmin(ctx.service), 'viewer', `rl-two-${run}`);
    const first = keyClient(ctx.service, await createKey(viewer));
    const second = keyClient(ctx.service, await createKey(viewer));
    for (let i = 0; i < 60; i++) await first.get('/api/external/stats');
    assert.equal((await first.get('/api/external/stats')).statusCode, 429);
    const other = await second.get('/api/external/stats');
    assert.equal(other.statusCode, 200);
    assert.equal(rateHeaders(other).remaining, 59);
  });

  test('concurrent requests cannot spend more than the budget', async () => {
    const viewer = await userAs(await loginAdmin(ctx.service), 'viewer', `rl-burst-${run}`);
    const key = keyClient(ctx.service, await createKey(viewer));
    const answers = await Promise.all(Array.from({ length: 80 }, () => key.get('/api/external/alerts?page_size=1')));
    const codes = answers.map((a) => a.statusCode);
    assert.equal(codes.filter((c) => c === 200).length, 60, codes.join(','));
    assert.equal(codes.filter((c) => c === 429).length, 20);
    const remaining = answers.filter((a) => a.statusCode === 200).map((a) => rateHeaders(a).remaining).sort((a, b) => a - b);
    assert.deepEqual(remaining, Array.from({ length: 60 }, (_, i) => i), 'each admitted request saw its own count');
  });
});

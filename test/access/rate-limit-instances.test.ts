// Rate limits hold across instances: two instances on one PostgreSQL database spend one budget per key.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loginAdmin } from '../helpers/service.js';
import { describeTwoInstances } from '../helpers/instances.js';
import { assertError } from '../rules/fixtures.js';
import { createKey, keyClient, ManualClock, rateHeaders } from './fixtures.js';

const clock = new ManualClock('2031-03-01T12:00:00.000Z');
const options = { rateLimit: { now: clock.now } };

describeTwoInstances(
  'API key rate limits across instances',
  (instances) => {
    test('two instances share one budget per key', async () => {
      const key = await createKey(await loginAdmin(instances.a));
      const onA = keyClient(instances.a, key);
      const onB = keyClient(instances.b, key);
      for (let i = 1; i <= 60; i++) {
        const res = await (i % 2 ? onA : onB).get('/api/external/stats');
        assert.equal(res.statusCode, 200, `request ${i}: ${res.body}`);
        assert.equal(rateHeaders(res).remaining, 60 - i);
      }
      assertError(await onA.get('/api/external/alerts'), 429, 'Rate limit exceeded');
      assertError(await onB.get('/api/external/alerts'), 429, 'Rate limit exceeded');
      clock.advance(60);
      assert.equal((await onB.get('/api/external/alerts')).statusCode, 200);
      assert.equal(rateHeaders(await onA.get('/api/external/alerts')).remaining, 58);
    });

    test('a key revoked on one instance is refused on the other at once', async () => {
      const admin = await loginAdmin(instances.a);
      const key = await createKey(admin);
      assert.equal((await keyClient(instances.b, key).get('/api/external/rules')).statusCode, 200);
      assert.equal((await admin.delete(`/api/api_keys/${key.id}`)).statusCode, 204);
      assertError(await keyClient(instances.b, key).get('/api/external/rules'), 401, 'Could not validate credentials');
    });
  },
  { a: options, b: options },
);

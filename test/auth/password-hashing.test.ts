// Password hashes: scrypt at the production cost (N 2^15, r 8, p 3) unless the test suite's fast cost is
// chosen explicitly, the cost written into each hash, and verification by the cost a hash was made with
// (so hashes of either cost verify, and a wrong password never does).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashPassword, PASSWORD_HASH_COST, passwordHashCost, verifyPassword } from '../../src/auth/passwords.js';

test('the production cost is the default; only VIGIL_TEST_PASSWORD_HASHING=fast lowers it', () => {
  assert.deepEqual(PASSWORD_HASH_COST, { N: 32768, r: 8, p: 3 });
  assert.equal(passwordHashCost({}), PASSWORD_HASH_COST);
  assert.equal(passwordHashCost({ VIGIL_TEST_PASSWORD_HASHING: 'yes' }), PASSWORD_HASH_COST);
  const fast = passwordHashCost({ VIGIL_TEST_PASSWORD_HASHING: 'fast' });
  assert.ok(fast.N * fast.p < PASSWORD_HASH_COST.N * PASSWORD_HASH_COST.p);
});

test('a hash names its cost and verifies by it, at either cost', async () => {
  const strong = await hashPassword('correct horse battery', PASSWORD_HASH_COST);
  assert.match(strong, /^scrypt\$32768\$8\$3\$[\w-]{22}\$[\w-]{43}$/);
  const weak = await hashPassword('correct horse battery', passwordHashCost({ VIGIL_TEST_PASSWORD_HASHING: 'fast' }));
  assert.match(weak, /^scrypt\$1024\$8\$1\$/);
  for (const hash of [strong, weak]) {
    assert.equal(await verifyPassword('correct horse battery', hash), true);
    assert.equal(await verifyPassword('correct horse batterY', hash), false);
  }
  assert.notEqual(await hashPassword('same', PASSWORD_HASH_COST), await hashPassword('same', PASSWORD_HASH_COST), 'salted');
});

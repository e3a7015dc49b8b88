// Two-factor login across two instances sharing one PostgreSQL database: a temp token from one works on
// the other, a code or a recovery code presented to both at once is accepted by exactly one, and the
// wrong-code budget of a temp token is shared.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeTwoInstances } from '../helpers/instances.js';
import { assertError } from '../rules/fixtures.js';
import { clock, codeFor, enrolledUser, tempToken, verify, wrongCodeFor } from './two-factor-fixtures.js';

describeTwoInstances('two-factor login on two instances', (instances) => {
  test('a temp token from one instance is answered on the other', async () => {
    const user = await enrolledUser(instances.a);
    const res = await verify(instances.b, await tempToken(instances.a, user), codeFor(user.secret));
    assert.equal(res.statusCode, 200, res.body);
    clock.nextStep();
  });

  test('one code sent to both instances at once is accepted by exactly one', async () => {
    const user = await enrolledUser(instances.a);
    for (let round = 0; round < 3; round++) {
      const [onA, onB] = await Promise.all([tempToken(instances.a, user), tempToken(instances.b, user)]);
      const code = codeFor(user.secret);
      const answers = await Promise.all([verify(instances.a, onA, code), verify(instances.b, onB, code)]);
      assert.deepEqual(answers.map((a) => a.statusCode).sort(), [200, 401], `round ${round}`);
      clock.nextStep();
    }
  });

  test('one recovery code sent to both instances at once is accepted by exactly one', async () => {
    const user = await enrolledUser(instances.a);
    const [onA, onB] = await Promise.all([tempToken(instances.a, user), tempToken(instances.b, user)]);
    const answers = await Promise.all([verify(instances.a, onA, user.recoveryCodes[0]), verify(instances.b, onB, user.recoveryCodes[0])]);
    assert.deepEqual(answers.map((a) => a.statusCode).sort(), [200, 401]);
  });

  test('wrong codes on either instance count against one temp token', async () => {
    const user = await enrolledUser(instances.a);
    const temp = await tempToken(instances.a, user);
    const wrong = await Promise.all([0, 1, 2, 3, 4].map((i) => verify(i % 2 ? instances.a : instances.b, temp, wrongCodeFor(user.secret))));
    for (const answer of wrong) assertError(answer, 401, 'Invalid two-factor code');
    assertError(await verify(instances.b, temp, codeFor(user.secret)), 401, 'Could not validate credentials');
  });
});

// How TOTP secrets are kept: encrypted under a key derived from the signing secret (JWT_SECRET), so the
// database alone does not give them away. Another signing secret on the same database cannot read them
// (authenticator codes stop working) while recovery codes, stored as hashes, still let the user in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.js';
import { createService } from '../../src/server.js';
import { ADMIN_PASSWORD, describeEachDatabase } from '../helpers/service.js';
import { assertError } from '../rules/fixtures.js';
import { clock, codeFor, enrolledUser, tempToken, verify } from './two-factor-fixtures.js';

const FIRST_SECRET = 'first-signing-secret-for-two-factor-tests-0123456789';
const OTHER_SECRET = 'other-signing-secret-for-two-factor-tests-9876543210';

describeEachDatabase(
  'two-factor secrets at rest',
  (ctx) => {
    test('the stored secret is sealed: the database holds neither it nor anything that opens without the key', async () => {
      const user = await enrolledUser(ctx.service);
      const [row] = await ctx.service.db.query<{ secret_enc: string }>('SELECT secret_enc FROM user_two_factor WHERE user_id = $1', [user.id]);
      assert.match(row.secret_enc, /^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
      assert.ok(!row.secret_enc.includes(user.secret));
      const settings = await ctx.service.db.query<{ key: string }>('SELECT key FROM settings');
      assert.ok(!settings.some((s) => s.key === 'jwt_secret'), 'with JWT_SECRET set, no signing secret is stored in the database');

      // A secret sealed for one user does not open on another user's row.
      const other = await enrolledUser(ctx.service);
      await ctx.service.db.query('UPDATE user_two_factor SET secret_enc = $2 WHERE user_id = $1', [other.id, row.secret_enc]);
      assertError(await verify(ctx.service, await tempToken(ctx.service, other), codeFor(user.secret)), 401, 'Invalid two-factor code');
      clock.nextStep();
    });

    test('under another signing secret the codes stop working and recovery codes still do', async () => {
      const user = await enrolledUser(ctx.service);
      const other = await createService(loadConfig({ ADMIN_PASSWORD, DATA_DIR: '/nonexistent-test-dir', JWT_SECRET: OTHER_SECRET }), { db: ctx.service.db });
      try {
        assertError(await verify(other, await tempToken(other, user), codeFor(user.secret)), 401, 'Invalid two-factor code');
        const recovered = await verify(other, await tempToken(other, user), user.recoveryCodes[0]);
        assert.equal(recovered.statusCode, 200, recovered.body);
      } finally {
        await other.close();
      }
      clock.nextStep();
      assert.equal((await verify(ctx.service, await tempToken(ctx.service, user), codeFor(user.secret))).statusCode, 200, 'the original key still opens it');
    });
  },
  { JWT_SECRET: FIRST_SECRET },
);

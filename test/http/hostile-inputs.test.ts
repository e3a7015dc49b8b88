// Inputs that once answered 500: a date filter a list does not take, a version number past the
// database's integer range, and a correctly signed token whose session or user id is not a UUID.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase, loginAdmin, Client } from '../helpers/service.js';
import { assertError, createPattern, createRule, sigma, type CreatedPattern } from '../rules/fixtures.js';

describeEachDatabase('hostile inputs answer 4xx, never 500', (ctx) => {
  let admin: Client;
  let pattern: CreatedPattern;

  before(async () => {
    admin = await loginAdmin(ctx.service);
    pattern = await createPattern(admin, { name: 'hostile' });
  });

  test('the field catalogue ignores date filters it does not take, whatever their text', async () => {
    const response = await admin.get(`/api/index_patterns/${pattern.id}/fields?created_after=garbage&created_before=2026-13-45`);
    assert.equal(response.statusCode, 200, response.body);
  });

  test('a rollback to a version past 2^31 - 1 is a 400 naming the field', async () => {
    const rule = await createRule(admin, { yaml_content: sigma() });
    const response = await admin.post(`/api/rules/${rule.id}/rollback`, { version: 2 ** 31 });
    assertError(response, 400, 'Invalid request');
    assert.equal(response.data.errors[0].field, 'body.version');
  });

  test('a signed token whose jti or sub is not a UUID is refused with 401', async () => {
    const tokens = ctx.service.context.tokens;
    for (const claims of [
      { sessionId: 'not-a-uuid', userId: '00000000-0000-4000-8000-000000000000' },
      { sessionId: '00000000-0000-4000-8000-000000000000', userId: "x' OR 1=1" },
    ]) {
      const forged = await tokens.sign({ ...claims, use: 'session' }, 60);
      assertError(await new Client(ctx.service, forged).get('/api/auth/me'), 401, 'Could not validate credentials');
    }
  });
});

// GET /api/auth/session, on both databases: always 200 for a browser, signed in or not (the web UI asks
// it at start, so a signed-out visit logs no failed request), with the user as /api/auth/me answers it
// for a live session (Bearer or cookie); a revoked, forged or malformed credential reads as signed out;
// an API key is refused (403) as on every route outside /api/external.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { anonymous, describeEachDatabase, loginAdmin, type Client } from '../helpers/service.js';

describeEachDatabase('session status', (ctx) => {
  let admin: Client;
  before(async () => {
    admin = await loginAdmin(ctx.service);
  });

  test('signed out: 200 with no user', async () => {
    const res = await anonymous(ctx.service).get('/api/auth/session');
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.data, { signed_in: false, user: null });
    assert.equal(res.headers['cache-control'], 'no-store');
  });

  test('a live session, by Bearer or cookie: the user as /api/auth/me answers it', async () => {
    const me = (await admin.get('/api/auth/me')).data;
    const byBearer = await admin.get('/api/auth/session');
    assert.equal(byBearer.statusCode, 200, byBearer.body);
    assert.deepEqual(byBearer.data, { signed_in: true, user: me });
    const byCookie = await anonymous(ctx.service).get('/api/auth/session', { cookie: `svc_session=${admin.token}` });
    assert.deepEqual(byCookie.data, { signed_in: true, user: me });
  });

  test('revoked, forged and malformed credentials read as signed out', async () => {
    const other = await loginAdmin(ctx.service);
    assert.equal((await other.post('/api/auth/logout')).statusCode, 204);
    const tried: Record<string, string>[] = [{ authorization: `Bearer ${other.token}` }, { cookie: `svc_session=${other.token}` }, { authorization: 'Bearer not-a-token' }, { authorization: 'Basic abc' }];
    for (const headers of tried) {
      const res = await anonymous(ctx.service).get('/api/auth/session', headers);
      assert.equal(res.statusCode, 200, `${JSON.stringify(headers)}: ${res.body}`);
      assert.deepEqual(res.data, { signed_in: false, user: null });
    }
  });

  test('an API key is refused, as outside the external API everywhere', async () => {
    const key = (await admin.post('/api/api_keys', { name: 'status probe' })).data.key as string;
    const res = await anonymous(ctx.service).get('/api/auth/session', { authorization: `Bearer ${key}` });
    assert.equal(res.statusCode, 403, res.body);
  });
});

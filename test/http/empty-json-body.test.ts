// A body-less POST that still carries Content-Type: application/json is accepted as "no body";
// malformed JSON and prototype poisoning are still refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { anonymous, describeEachDatabase, loginAdmin } from '../helpers/service.js';

describeEachDatabase('empty JSON bodies', (ctx) => {
  test('logout with an empty JSON body works; required bodies still fail validation', async () => {
    const admin = await loginAdmin(ctx.service);
    const empty = await admin.request('POST', '/api/auth/logout', '', { 'content-type': 'application/json' });
    assert.equal(empty.statusCode, 204, empty.body);
    const login = await anonymous(ctx.service).request('POST', '/api/auth/login', '', { 'content-type': 'application/json' });
    assert.equal(login.statusCode, 400);
    assert.equal(login.data.status_code, 400);
  });

  test('malformed JSON and __proto__ keys are refused with 400', async () => {
    const bad = await anonymous(ctx.service).request('POST', '/api/auth/login', '{"username":', { 'content-type': 'application/json' });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.data.detail, 'Malformed JSON body');
    const poisoned = await anonymous(ctx.service).request('POST', '/api/auth/login', '{"username":"a","password":"b","__proto__":{"x":1}}', { 'content-type': 'application/json' });
    assert.equal(poisoned.statusCode, 400);
  });
});

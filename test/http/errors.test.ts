// Bad input and the error model: every failure is {detail, status_code[, errors]} with the documented status, never a stack trace, and carries the security headers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_PASSWORD, anonymous, Client, describeEachDatabase, loginAdmin, userWithRole, type Response } from '../helpers/service.js';

const SECURITY_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'content-security-policy': "default-src 'self'",
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

const UNKNOWN_UUID = '7d444840-9dc0-11d1-b245-5ffdce74fad2';

function assertSecurityHeaders(res: Response, label: string): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
    assert.equal(res.headers[name], value, `${label}: header ${name}`);
  }
}

/** The error model: only detail, status_code and (for validation) errors; nothing that looks like a stack. */
function assertErrorBody(res: Response, status: number, label: string, detail?: string): void {
  assert.equal(res.statusCode, status, `${label}: status (body ${res.body})`);
  assert.match(String(res.headers['content-type']), /^application\/json/, `${label}: content type`);
  assert.equal(typeof res.data, 'object', `${label}: JSON body`);
  assert.equal(typeof res.data.detail, 'string', `${label}: detail`);
  assert.equal(res.data.status_code, status, `${label}: status_code`);
  if (detail !== undefined) assert.equal(res.data.detail, detail, `${label}: detail text`);
  for (const key of Object.keys(res.data)) assert.ok(['detail', 'status_code', 'errors'].includes(key), `${label}: unexpected key ${key}`);
  assert.doesNotMatch(res.body, /\bat .+\.(ts|js):\d+|node_modules|\/work\/|stack/i, `${label}: looks like a stack trace`);
  assertSecurityHeaders(res, label);
}

/** A 400 validation answer whose errors name the given field (e.g. `query.page`). */
function assertFieldError(res: Response, field: string, label: string): void {
  assertErrorBody(res, 400, label);
  assert.ok(Array.isArray(res.data.errors), `${label}: errors array (body ${res.body})`);
  for (const e of res.data.errors) {
    assert.equal(typeof e.field, 'string', label);
    assert.equal(typeof e.message, 'string', label);
    assert.ok(e.message.length > 0, label);
  }
  assert.ok(
    res.data.errors.some((e: { field: string }) => e.field === field),
    `${label}: expected an error for ${field}, got ${JSON.stringify(res.data.errors)}`,
  );
}

describeEachDatabase('error model and bad input', (ctx) => {
  let adminSession: Promise<Client> | undefined;
  const admin = () => (adminSession ??= loginAdmin(ctx.service));

  test('malformed JSON is 400 Malformed JSON body, on public and authenticated routes', async () => {
    for (const payload of ['{"username":', '{username: "admin"}', "{'a':1}", '{"a":1}}', 'nul']) {
      const res = await anonymous(ctx.service).post('/api/auth/login', payload);
      assertErrorBody(res, 400, `login ${payload}`, 'Malformed JSON body');
      assert.equal(res.data.errors, undefined);
    }
    const res = await (await admin()).post('/api/users', '{"username": "x", "password": ');
    assertErrorBody(res, 400, 'users', 'Malformed JSON body');
  });

  test('prototype-poisoning bodies are refused with 400', async () => {
    const res = await anonymous(ctx.service).post('/api/auth/login', '{"__proto__":{"admin":true},"username":"a","password":"b"}');
    assertErrorBody(res, 400, '__proto__');
  });

  test('wrong types are 400 with errors naming each field', async () => {
    const res = await anonymous(ctx.service).post('/api/auth/login', { username: 12, password: true });
    assertFieldError(res, 'body.username', 'number username');
    assertFieldError(res, 'body.password', 'boolean password');
    const patch = await (await admin()).patch(`/api/users/${UNKNOWN_UUID}`, { disabled: 'yes' });
    assertFieldError(patch, 'body.disabled', 'string as boolean');
    const role = await (await admin()).post('/api/users', { username: 'typed-user', password: 'long-enough-password', role: 'superuser' });
    assertFieldError(role, 'body.role', 'bad enum');
  });

  test('a body that is not an object is 400', async () => {
    for (const payload of ['[]', 'null', '"text"', '42']) {
      const res = await anonymous(ctx.service).post('/api/auth/login', payload);
      assertErrorBody(res, 400, `body ${payload}`);
    }
  });

  test('missing fields are 400 with errors', async () => {
    const res = await anonymous(ctx.service).post('/api/auth/login', { username: 'admin' });
    assertFieldError(res, 'body.password', 'missing password');
    const created = await (await admin()).post('/api/users', { username: 'no-role-user', password: 'long-enough-password' });
    assertFieldError(created, 'body.role', 'missing role');
  });

  test('unknown fields in strict bodies are 400 with errors', async () => {
    const login = await anonymous(ctx.service).post('/api/auth/login', { username: 'admin', password: ADMIN_PASSWORD, remember: true });
    assertFieldError(login, 'body.remember', 'login extra field');
    const created = await (await admin()).post('/api/users', { username: 'extra-user', password: 'long-enough-password', role: 'viewer', is_admin: true });
    assertFieldError(created, 'body.is_admin', 'create extra field');
    const patched = await (await admin()).patch(`/api/users/${UNKNOWN_UUID}`, { role: 'viewer', username: 'renamed' });
    assertFieldError(patched, 'body.username', 'patch extra field');
    const password = await (await admin()).post('/api/auth/password', { current_password: ADMIN_PASSWORD, new_password: 'another-long-password', force: 1 });
    assertFieldError(password, 'body.force', 'password extra field');
  });

  test('NUL characters in input are 400, not a database error', async () => {
    const client = await admin();
    assertFieldError(await anonymous(ctx.service).post('/api/auth/login', { username: 'ad\u0000min', password: 'whatever-password' }), 'body.username', 'login username');
    assertFieldError(await client.get('/api/users?search=%00'), 'query.search', 'users search');
    assertFieldError(await client.get('/api/audit?actor=a%00b'), 'query.actor', 'audit actor');
    assertFieldError(await client.get('/api/audit?action=x%00'), 'query.action', 'audit action');
  });

  test('bodies over 2 MiB are 413, on public and authenticated routes', async () => {
    const big = JSON.stringify({ username: 'admin', password: 'x'.repeat(2 * 1024 * 1024 + 10) });
    const res = await anonymous(ctx.service).post('/api/auth/login', big);
    assertErrorBody(res, 413, 'login');
    const users = await (await admin()).post('/api/users', JSON.stringify({ username: 'big', password: 'p'.repeat(3 * 1024 * 1024), role: 'viewer' }));
    assertErrorBody(users, 413, 'users');
    // Just under the limit is parsed and validated normally (400 for the over-long password, not 413).
    const under = await anonymous(ctx.service).post('/api/auth/login', JSON.stringify({ username: 'admin', password: 'x'.repeat(2 * 1024 * 1024 - 100) }));
    assertErrorBody(under, 400, 'under the limit');
  });

  test('an id that is not a UUID is 404 User not found, like an unknown id', async () => {
    const client = await admin();
    for (const id of ['not-a-uuid', '123', "1' OR '1'='1", '7d444840-9dc0-11d1-b245-5ffdce74fad', `urn:uuid:${UNKNOWN_UUID}`, `{${UNKNOWN_UUID}}`, UNKNOWN_UUID, UNKNOWN_UUID.toUpperCase()]) {
      const path = `/api/users/${encodeURIComponent(id)}`;
      assertErrorBody(await client.patch(path, { role: 'viewer' }), 404, `PATCH ${id}`, 'User not found');
      assertErrorBody(await client.delete(path), 404, `DELETE ${id}`, 'User not found');
    }
  });

  test(
    'an over-long id is 404 User not found',
    async () => {
      const res = await (await admin()).delete(`/api/users/${'a'.repeat(150)}`);
      assertErrorBody(res, 404, 'long id', 'User not found');
    },
  );

  test('bad pagination, sorting and date filters are 400 with errors, on every list', async () => {
    const client = await admin();
    const cases: Array<[string, string]> = [
      ['page=0', 'query.page'],
      ['page=-1', 'query.page'],
      ['page=abc', 'query.page'],
      ['page=1.5', 'query.page'],
      ['page=', 'query.page'],
      ['page_size=0', 'query.page_size'],
      ['page_size=101', 'query.page_size'],
      ['page_size=abc', 'query.page_size'],
      ['page_size=-5', 'query.page_size'],
      ['sort_by=password_hash', 'query.sort_by'],
      ['sort_by=', 'query.sort_by'],
      ['sort_order=up', 'query.sort_order'],
      ['sort_order=ASC;DROP', 'query.sort_order'],
      ['created_after=yesterday', 'query.created_after'],
      ['created_after=2024-01-01', 'query.created_after'],
      ['created_after=2024-13-01T00:00:00Z', 'query.created_after'],
      ['created_after=2024-02-30T00:00:00Z', 'query.created_after'],
      ['created_after=2024-01-01T00:00:00', 'query.created_after'],
      ['created_after=0000-01-01T00:00:00Z', 'query.created_after'],
      ['created_after=2024-01-01T00:00:00%2B23:59', 'query.created_after'],
      ['created_before=not-a-date', 'query.created_before'],
      ['created_before=9999-12-31T23:59:59-23:59', 'query.created_before'],
    ];
    for (const list of ['/api/users', '/api/audit']) {
      for (const [query, field] of cases) {
        assertFieldError(await client.get(`${list}?${query}`), field, `${list}?${query}`);
      }
    }
    // Several bad parameters are all reported at once.
    const many = await client.get('/api/users?page=0&page_size=500&sort_order=sideways');
    assertFieldError(many, 'query.page', 'many');
    assertFieldError(many, 'query.page_size', 'many');
    assertFieldError(many, 'query.sort_order', 'many');
  });

  test('valid edge values of the list parameters are accepted', async () => {
    const client = await admin();
    for (const query of ['page=1&page_size=1', 'page_size=100', 'sort_order=asc', 'created_after=2024-01-01T00:00:00Z', 'created_before=2999-01-01T00:00:00.123%2B02:00']) {
      const res = await client.get(`/api/users?${query}`);
      assert.equal(res.statusCode, 200, `${query}: ${res.body}`);
    }
  });

  test('unknown /api routes are 404 Not Found, whatever the method and credentials', async () => {
    for (const [method, path] of [
      ['GET', '/api/nope'],
      ['POST', '/api/nope'],
      ['GET', '/api/users/x/y'],
      ['DELETE', '/api'],
      ['GET', '/api/health/extra'],
    ] as const) {
      const res = await anonymous(ctx.service).request(method, path);
      assert.equal(res.statusCode, 404, `${method} ${path}`);
      assert.deepEqual(res.data, { detail: 'Not Found', status_code: 404 }, `${method} ${path}`);
      assertSecurityHeaders(res, `${method} ${path}`);
    }
    const authed = await (await admin()).get('/api/definitely-not-here');
    assert.deepEqual(authed.data, { detail: 'Not Found', status_code: 404 });
  });

  test('a wrong method on an existing path is 405 with Allow', async () => {
    const expectations: Array<[string, string, string[]]> = [
      ['PUT', '/api/users', ['GET', 'POST']],
      ['DELETE', '/api/health', ['GET']],
      ['GET', '/api/auth/login', ['POST']],
      ['PUT', `/api/users/${UNKNOWN_UUID}`, ['PATCH', 'DELETE']],
      ['POST', '/api/audit', ['GET']],
      ['DELETE', '/api/openapi.json', ['GET']],
    ];
    for (const [method, path, allowed] of expectations) {
      const res = await anonymous(ctx.service).request(method as 'GET', path);
      assertErrorBody(res, 405, `${method} ${path}`, 'Method Not Allowed');
      const allow = String(res.headers.allow ?? '').split(/,\s*/);
      for (const m of allowed) assert.ok(allow.includes(m), `${method} ${path}: Allow ${res.headers.allow} lacks ${m}`);
      assert.ok(!allow.includes(method), `${method} ${path}: Allow must not list ${method}`);
    }
  });

  test('401 answers carry WWW-Authenticate and the security headers', async () => {
    const res = await anonymous(ctx.service).get('/api/users');
    assertErrorBody(res, 401, 'no credentials', 'Could not validate credentials');
    assert.equal(res.headers['www-authenticate'], 'Bearer');
  });

  test('security headers are on every response: success, errors, no content and the OpenAPI document', async () => {
    const client = await admin();
    const viewer = await userWithRole(ctx.service, 'viewer');
    const responses: Array<[string, Response]> = [
      ['health', await anonymous(ctx.service).get('/api/health')],
      ['HEAD health', await anonymous(ctx.service).request('HEAD', '/api/health')],
      ['openapi', await anonymous(ctx.service).get('/api/openapi.json')],
      ['me', await client.get('/api/auth/me')],
      ['401', await anonymous(ctx.service).get('/api/auth/me')],
      ['403 role', await viewer.get('/api/users')],
      ['403 csrf', await new Client(ctx.service, client.token).post('/api/users', {})],
      ['404', await anonymous(ctx.service).get('/api/nowhere')],
      ['404 non-api', await anonymous(ctx.service).get('/nowhere')],
      ['405', await anonymous(ctx.service).request('PATCH', '/api/health')],
      ['413', await anonymous(ctx.service).post('/api/auth/login', 'x'.repeat(2 * 1024 * 1024 + 1))],
      ['400', await anonymous(ctx.service).post('/api/auth/login', '{')],
      ['204', await viewer.post('/api/auth/logout')],
    ];
    for (const [label, res] of responses) assertSecurityHeaders(res, label);
    assert.equal(responses[2][1].statusCode, 200);
    assert.equal(responses[12][1].statusCode, 204);
  });

  test(
    'a URL that cannot be decoded is a 400 in the error model with the security headers',
    async () => {
      const res = await anonymous(ctx.service).get('/api/users/%ZZ');
      assertErrorBody(res, 400, 'bad url');
    },
  );
});

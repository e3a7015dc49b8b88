// User administration (admin only): list/search/sort/date filters, create, change, disable, delete, and the audit trail of all of it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { anonymous, type Client, describeEachDatabase, login, loginAdmin, userWithRole } from '../helpers/service.js';

const USER_KEYS = ['auth_method', 'created_at', 'disabled', 'id', 'role', 'two_factor_enabled', 'updated_at', 'username'];
const PASSWORD = 'a-long-enough-password';

describeEachDatabase('users', (ctx) => {
  let adminSession: Promise<Client> | undefined;
  const admin = () => (adminSession ??= loginAdmin(ctx.service));
  const run = Math.random().toString(36).slice(2, 7);
  /** Users created for the list tests, oldest first. */
  const listed: Array<{ id: string; username: string; created_at: string }> = [];
  const prefix = `lst${run}`;

  async function createUser(username: string, role = 'viewer', password = PASSWORD) {
    const res = await (await admin()).post('/api/users', { username, password, role });
    assert.equal(res.statusCode, 201, res.body);
    return res.data as { id: string; username: string; role: string; created_at: string };
  }

  test('create answers 201 with the user and never its password hash', async () => {
    const res = await (await admin()).post('/api/users', { username: `new-${run}`, password: PASSWORD, role: 'analyst' });
    assert.equal(res.statusCode, 201);
    assert.deepEqual(Object.keys(res.data).sort(), USER_KEYS);
    assert.equal(res.data.username, `new-${run}`);
    assert.equal(res.data.role, 'analyst');
    assert.equal(res.data.disabled, false);
    assert.equal(res.data.auth_method, 'local');
    assert.doesNotMatch(res.body, /scrypt|password/);
    const session = await login(ctx.service, `new-${run}`, PASSWORD);
    assert.equal((await session.get('/api/auth/me')).data.role, 'analyst');
  });

  test('create refuses short passwords, bad roles and bad usernames with 400', async () => {
    const client = await admin();
    const short = await client.post('/api/users', { username: `short-${run}`, password: 'elevenchars', role: 'viewer' });
    assert.equal(short.statusCode, 400);
    assert.ok(short.data.errors.some((e: { field: string }) => e.field === 'body.password'), short.body);
    const twelve = await client.post('/api/users', { username: `twelve-${run}`, password: 'twelve-chars', role: 'viewer' });
    assert.equal(twelve.statusCode, 201, 'exactly 12 characters is enough');
    for (const body of [
      { username: `r-${run}`, password: PASSWORD, role: 'root' },
      { username: '', password: PASSWORD, role: 'viewer' },
      { username: 'has space', password: PASSWORD, role: 'viewer' },
    ]) {
      const res = await client.post('/api/users', body);
      assert.equal(res.statusCode, 400, JSON.stringify(body));
      assert.ok(Array.isArray(res.data.errors));
    }
  });

  test('a duplicate username, in any case, is 409', async () => {
    const client = await admin();
    await createUser(`Dup-${run}`);
    for (const username of [`Dup-${run}`, `dup-${run}`, `DUP-${run}`]) {
      const res = await client.post('/api/users', { username, password: PASSWORD, role: 'viewer' });
      assert.equal(res.statusCode, 409, username);
      assert.equal(res.data.status_code, 409);
      assert.equal(typeof res.data.detail, 'string');
    }
    const res = await client.post('/api/users', { username: 'ADMIN', password: PASSWORD, role: 'admin' });
    assert.equal(res.statusCode, 409);
  });

  test('list paginates with pages = ceil(total / page_size)', async () => {
    for (let i = 1; i <= 5; i++) listed.push(await createUser(`${prefix}-${i}`));
    const client = await admin();
    const first = await client.get(`/api/users?search=${prefix}&page_size=2`);
    assert.equal(first.statusCode, 200);
    assert.deepEqual(Object.keys(first.data).sort(), ['items', 'page', 'page_size', 'pages', 'total']);
    assert.equal(first.data.total, 5);
    assert.equal(first.data.page, 1);
    assert.equal(first.data.page_size, 2);
    assert.equal(first.data.pages, 3);
    assert.equal(first.data.items.length, 2);
    const third = await client.get(`/api/users?search=${prefix}&page_size=2&page=3`);
    assert.equal(third.data.items.length, 1);
    const beyond = await client.get(`/api/users?search=${prefix}&page_size=2&page=4`);
    assert.deepEqual(beyond.data, { items: [], total: 5, page: 4, page_size: 2, pages: 3 });
    const seen = new Set([...first.data.items, ...(await client.get(`/api/users?search=${prefix}&page_size=2&page=2`)).data.items, ...third.data.items].map((u: { id: string }) => u.id));
    assert.equal(seen.size, 5, 'pages neither overlap nor skip');
    const exact = await client.get(`/api/users?search=${prefix}&page_size=5`);
    assert.equal(exact.data.pages, 1);
    const empty = await client.get(`/api/users?search=nobody-${run}`);
    assert.deepEqual(empty.data, { items: [], total: 0, page: 1, page_size: 20, pages: 0 });
    const defaults = await client.get('/api/users');
    assert.equal(defaults.data.page, 1);
    assert.equal(defaults.data.page_size, 20);
  });

  test('search is case-insensitive and treats wildcards literally', async () => {
    const client = await admin();
    const upper = await client.get(`/api/users?search=${prefix.toUpperCase()}`);
    assert.equal(upper.data.total, 5);
    const one = await client.get(`/api/users?search=${prefix}-3`);
    assert.deepEqual(one.data.items.map((u: { username: string }) => u.username), [`${prefix}-3`]);
    for (const wildcard of ['%25', '_', `${prefix}%25`]) {
      const res = await client.get(`/api/users?search=${wildcard}`);
      assert.equal(res.statusCode, 200);
      assert.equal(res.data.total, 0, wildcard);
    }
  });

  test('sort_by and sort_order order the list; the default is newest first', async () => {
    const client = await admin();
    const names = (res: { data: { items: Array<{ username: string }> } }) => res.data.items.map((u) => u.username);
    const expected = listed.map((u) => u.username);
    assert.deepEqual(names(await client.get(`/api/users?search=${prefix}`)), [...expected].reverse());
    assert.deepEqual(names(await client.get(`/api/users?search=${prefix}&sort_by=created_at&sort_order=asc`)), expected);
    assert.deepEqual(names(await client.get(`/api/users?search=${prefix}&sort_by=username&sort_order=asc`)), expected);
    assert.deepEqual(names(await client.get(`/api/users?search=${prefix}&sort_by=username&sort_order=desc`)), [...expected].reverse());
  });

  test('created_after and created_before are exclusive bounds', async () => {
    const client = await admin();
    const names = async (query: string) =>
      (await client.get(`/api/users?search=${prefix}&sort_order=asc&${query}`)).data.items.map((u: { username: string }) => u.username);
    const at = (i: number) => encodeURIComponent(listed[i].created_at);
    assert.deepEqual(await names(`created_after=${at(1)}`), listed.slice(2).map((u) => u.username));
    assert.deepEqual(await names(`created_before=${at(3)}`), listed.slice(0, 3).map((u) => u.username));
    assert.deepEqual(await names(`created_after=${at(1)}&created_before=${at(3)}`), [listed[2].username]);
    assert.deepEqual(await names(`created_after=${at(2)}&created_before=${at(2)}`), []);
    assert.deepEqual(await names('created_after=2999-01-01T00:00:00Z'), []);
    assert.deepEqual(await names('created_before=2000-01-01T00:00:00Z'), []);
    // The same instant written with an offset.
    const shifted = new Date(listed[1].created_at);
    const local = `${new Date(shifted.getTime() + 2 * 3600_000).toISOString().slice(0, -1)}+02:00`;
    assert.deepEqual(await names(`created_after=${encodeURIComponent(local)}`), listed.slice(2).map((u) => u.username));
  });

  test('PATCH changes the role, and the change shows at once', async () => {
    const target = await createUser(`role-${run}`, 'viewer');
    const session = await login(ctx.service, target.username, PASSWORD);
    const res = await (await admin()).patch(`/api/users/${target.id}`, { role: 'analyst' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(Object.keys(res.data).sort(), USER_KEYS);
    assert.equal(res.data.role, 'analyst');
    assert.equal((await session.get('/api/auth/me')).data.role, 'analyst');
    const empty = await (await admin()).patch(`/api/users/${target.id}`, {});
    assert.equal(empty.statusCode, 400);
    const badRole = await (await admin()).patch(`/api/users/${target.id}`, { role: 'owner' });
    assert.equal(badRole.statusCode, 400);
    const shortPassword = await (await admin()).patch(`/api/users/${target.id}`, { password: 'short' });
    assert.equal(shortPassword.statusCode, 400);
  });

  test('PATCH password: the new password works, the old one and old sessions do not', async () => {
    const target = await createUser(`pw-${run}`, 'analyst');
    const session = await login(ctx.service, target.username, PASSWORD);
    const res = await (await admin()).patch(`/api/users/${target.id}`, { password: 'the-new-password-1' });
    assert.equal(res.statusCode, 200);
    assert.equal((await session.get('/api/auth/me')).statusCode, 401);
    const old = await anonymous(ctx.service).post('/api/auth/login', { username: target.username, password: PASSWORD });
    assert.equal(old.statusCode, 401);
    await login(ctx.service, target.username, 'the-new-password-1');
  });

  test('disabling revokes sessions and blocks login; re-enabling does not revive old sessions', async () => {
    const target = await createUser(`off-${run}`, 'analyst');
    const session = await login(ctx.service, target.username, PASSWORD);
    const cookieOnly = session.token!;
    const res = await (await admin()).patch(`/api/users/${target.id}`, { disabled: true });
    assert.equal(res.statusCode, 200);
    assert.equal(res.data.disabled, true);
    for (const attempt of [await session.get('/api/auth/me'), await anonymous(ctx.service).get('/api/auth/me', { cookie: `svc_session=${cookieOnly}` })]) {
      assert.equal(attempt.statusCode, 401);
      assert.deepEqual(attempt.data, { detail: 'Could not validate credentials', status_code: 401 });
    }
    const denied = await anonymous(ctx.service).post('/api/auth/login', { username: target.username, password: PASSWORD });
    assert.equal(denied.statusCode, 401);
    assert.deepEqual(denied.data, { detail: 'Incorrect username or password', status_code: 401 });
    const listedDisabled = await (await admin()).get(`/api/users?search=off-${run}&disabled=true`);
    assert.equal(listedDisabled.data.total, 1);

    const enabled = await (await admin()).patch(`/api/users/${target.id}`, { disabled: false });
    assert.equal(enabled.data.disabled, false);
    assert.equal((await session.get('/api/auth/me')).statusCode, 401, 'old session stays revoked');
    const fresh = await login(ctx.service, target.username, PASSWORD);
    assert.equal((await fresh.get('/api/auth/me')).statusCode, 200);
  });

  test('DELETE answers 204; the deleted user can neither use a token nor log in', async () => {
    const target = await createUser(`del-${run}`, 'analyst');
    const session = await login(ctx.service, target.username, PASSWORD);
    const res = await (await admin()).delete(`/api/users/${target.id}`);
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    assert.equal((await session.get('/api/auth/me')).statusCode, 401);
    const relogin = await anonymous(ctx.service).post('/api/auth/login', { username: target.username, password: PASSWORD });
    assert.deepEqual(relogin.data, { detail: 'Incorrect username or password', status_code: 401 });
    const again = await (await admin()).delete(`/api/users/${target.id}`);
    assert.deepEqual(again.data, { detail: 'User not found', status_code: 404 });
    const patched = await (await admin()).patch(`/api/users/${target.id}`, { role: 'viewer' });
    assert.deepEqual(patched.data, { detail: 'User not found', status_code: 404 });
    // The name is free again.
    await createUser(target.username);
  });

  test('an admin cannot delete their own account', async () => {
    const client = await admin();
    const me = (await client.get('/api/auth/me')).data;
    const res = await client.delete(`/api/users/${me.id}`);
    assert.equal(res.statusCode, 400);
    assert.equal(res.data.status_code, 400);
    assert.equal(typeof res.data.detail, 'string');
    assert.equal((await client.get('/api/auth/me')).statusCode, 200);
  });

  test('analysts and viewers get 403 Not enough permissions on every user and audit endpoint', async () => {
    const someone = await createUser(`victim-${run}`);
    for (const role of ['analyst', 'viewer'] as const) {
      const client = await userWithRole(ctx.service, role, `${role}-${run}`);
      const attempts = [
        await client.get('/api/users'),
        await client.post('/api/users', { username: `sneaky-${role}-${run}`, password: PASSWORD, role: 'admin' }),
        await client.patch(`/api/users/${someone.id}`, { role: 'admin' }),
        await client.patch(`/api/users/${(await client.get('/api/auth/me')).data.id}`, { role: 'admin' }),
        await client.delete(`/api/users/${someone.id}`),
        await client.get('/api/audit'),
      ];
      for (const res of attempts) {
        assert.equal(res.statusCode, 403, `${role}: ${res.body}`);
        assert.deepEqual(res.data, { detail: 'Not enough permissions', status_code: 403 });
      }
      assert.equal((await client.get('/api/auth/me')).data.role, role, 'role unchanged');
    }
    const unchanged = await (await admin()).get(`/api/users?search=victim-${run}`);
    assert.equal(unchanged.data.items[0].role, 'viewer');
    const anon = await anonymous(ctx.service).get('/api/users');
    assert.equal(anon.statusCode, 401);
  });

  test('every user change is audited with actor, target and IP, and no secrets', async () => {
    const client = await admin();
    const target = await createUser(`aud-${run}`, 'viewer', 'audited-password-1');
    await client.patch(`/api/users/${target.id}`, { role: 'analyst', password: 'changed-password-1' });
    await client.delete(`/api/users/${target.id}`);
    const trail = await client.get(`/api/audit?target_id=${target.id}&sort_order=asc`);
    assert.equal(trail.statusCode, 200);
    assert.deepEqual(trail.data.items.map((e: { action: string }) => e.action), ['user.create', 'user.update', 'user.delete']);
    for (const entry of trail.data.items) {
      assert.equal(entry.actor, 'admin');
      assert.equal(entry.target_type, 'user');
      assert.equal(typeof entry.ip, 'string');
      assert.ok(!Number.isNaN(Date.parse(entry.created_at)));
    }
    assert.doesNotMatch(trail.body, /audited-password-1|changed-password-1|scrypt/);
  });

  test('the audit log filters by action, actor and exclusive time bounds, and paginates', async () => {
    const client = await admin();
    const byAction = await client.get('/api/audit?action=user.create&page_size=100');
    assert.ok(byAction.data.total >= 5);
    assert.ok(byAction.data.items.every((e: { action: string }) => e.action === 'user.create'));
    const byActor = await client.get(`/api/audit?actor=${prefix}-1`);
    assert.equal(byActor.data.total, 0, 'list users did nothing themselves');
    const logins = await client.get(`/api/audit?actor=analyst-${run}&action=auth.login`);
    assert.equal(logins.data.total, 1);
    assert.equal(logins.data.items[0].actor, `analyst-${run}`);

    const all = await client.get('/api/audit?action=user.create&sort_order=asc&page_size=100');
    const items = all.data.items as Array<{ id: string; created_at: string }>;
    assert.ok(items.length >= 3);
    const pivot = items[1];
    const after = await client.get(`/api/audit?action=user.create&sort_order=asc&page_size=100&created_after=${encodeURIComponent(pivot.created_at)}`);
    assert.ok(!after.data.items.some((e: { id: string }) => e.id === pivot.id || e.id === items[0].id), 'created_after is exclusive');
    assert.equal(after.data.total, items.length - 2);
    const before = await client.get(`/api/audit?action=user.create&sort_order=asc&created_before=${encodeURIComponent(pivot.created_at)}`);
    assert.deepEqual(before.data.items.map((e: { id: string }) => e.id), [items[0].id], 'created_before is exclusive');

    const paged = await client.get('/api/audit?action=user.create&page_size=2');
    assert.equal(paged.data.pages, Math.ceil(paged.data.total / 2));
    const none = await client.get('/api/audit?action=no.such.action');
    assert.deepEqual(none.data, { items: [], total: 0, page: 1, page_size: 20, pages: 0 });
  });
});

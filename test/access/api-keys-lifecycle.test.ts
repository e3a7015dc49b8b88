// API keys from the user's side: creation (format, shown once, stored only as a hash), tiers, listing,
// revocation, expiry, owners who are disabled or deleted, last use, and the audit trail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { anonymous, describeEachDatabase, login, loginAdmin, type Client } from '../helpers/service.js';
import { assertError, userAs } from '../rules/fixtures.js';
import { createKey, KEY_FORMAT, keyClient } from './fixtures.js';

const CREATED_FIELDS = ['created_at', 'expires_at', 'id', 'key', 'last_used_at', 'name', 'owner', 'prefix', 'revoked_at', 'tier'];
const LISTED_FIELDS = CREATED_FIELDS.filter((f) => f !== 'key');

describeEachDatabase('API keys', (ctx) => {
  const run = Math.random().toString(36).slice(2, 7);
  let team: Promise<{ admin: Client; analyst: Client; viewer: Client }> | undefined;
  const cast = () =>
    (team ??= (async () => {
      const admin = await loginAdmin(ctx.service);
      return { admin, analyst: await userAs(admin, 'analyst', `ak-analyst-${run}`), viewer: await userAs(admin, 'viewer', `ak-viewer-${run}`) };
    })());
  const works = async (key: string) => (await keyClient(ctx.service, key).get('/api/external/stats')).statusCode;

  test('creating a key answers 201 with the secret once; only its SHA-256 is stored', async () => {
    const { viewer } = await cast();
    const res = await viewer.post('/api/api_keys', { name: 'SIEM export' });
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(Object.keys(res.data).sort(), CREATED_FIELDS);
    assert.match(res.data.key, KEY_FORMAT);
    assert.equal(res.data.name, 'SIEM export');
    assert.equal(res.data.tier, 'standard');
    assert.equal(res.data.owner, `ak-viewer-${run}`);
    assert.ok(res.data.key.startsWith(res.data.prefix) && res.data.prefix.length < 20, res.data.prefix);
    assert.equal(res.data.expires_at, null);
    assert.equal(res.data.last_used_at, null);
    assert.ok(!Number.isNaN(Date.parse(res.data.created_at)));
    const rows = await ctx.service.db.query('SELECT * FROM api_keys WHERE id = $1', [res.data.id]);
    assert.equal(rows.length, 1);
    assert.ok(!JSON.stringify(rows[0]).includes(res.data.key.slice(15)), 'the secret is not stored');
    assert.equal(rows[0].key_hash, createHash('sha256').update(res.data.key).digest('hex'));
    assert.equal(await works(res.data.key), 200);
    const listed = await viewer.get('/api/api_keys');
    assert.ok(!listed.body.includes(res.data.key.slice(15)), 'the list never shows the secret');
  });

  test('keys are random: two keys differ and a lookalike of a real key is refused', async () => {
    const { viewer } = await cast();
    const a = await createKey(viewer);
    const b = await createKey(viewer);
    assert.notEqual(a.key, b.key);
    const last = a.key.at(-1) === 'A' ? 'B' : 'A';
    assert.equal(await works(a.key.slice(0, -1) + last), 401);
    assert.equal(await works(`${a.key}x`), 401);
    assert.equal(await works(a.key.toUpperCase() === a.key ? a.key.toLowerCase() : a.key.toUpperCase()), 401);
  });

  test('only admins may create high-tier keys', async () => {
    const { admin, analyst, viewer } = await cast();
    for (const client of [analyst, viewer]) {
      assertError(await client.post('/api/api_keys', { name: 'fast', tier: 'high' }), 403, 'Admin role required for a high-tier key');
    }
    assert.equal((await createKey(analyst, { tier: 'standard' })).tier, 'standard');
    assert.equal((await createKey(admin, { tier: 'high' })).tier, 'high');
  });

  test('creation needs a session and its CSRF token, and checks its input', async () => {
    const { viewer } = await cast();
    assertError(await anonymous(ctx.service).post('/api/api_keys', { name: 'x' }), 401, 'Could not validate credentials');
    assertError(await viewer.post('/api/api_keys', { name: 'x' }, { 'x-csrf-token': 'wrong' }), 403, 'CSRF token missing or invalid');
    for (const body of [{}, { name: '' }, { name: '   ' }, { name: 'x'.repeat(101) }, { name: 'x', tier: 'gold' }, { name: 'x', expires_in_days: 0 }, { name: 'x', key: 'svc_ak_mine' }]) {
      const res = await viewer.post('/api/api_keys', body);
      assert.equal(res.statusCode, 400, JSON.stringify(body));
      assert.ok(Array.isArray(res.data.errors), res.body);
    }
    const key = await createKey(viewer);
    assertError(await keyClient(ctx.service, key).post('/api/api_keys', { name: 'from a key' }), 403, 'Not enough permissions');
  });

  test('a user lists only their own keys, an admin every key, never a secret', async () => {
    const { admin, analyst, viewer } = await cast();
    const mine = await createKey(analyst, { name: `mine-${run}` });
    const theirs = await createKey(viewer, { name: `theirs-${run}` });
    const own = await analyst.get('/api/api_keys?page_size=100');
    assert.equal(own.statusCode, 200, own.body);
    assert.ok(own.data.items.every((k: { owner: string }) => k.owner === `ak-analyst-${run}`));
    assert.ok(own.data.items.some((k: { id: string }) => k.id === mine.id));
    assert.deepEqual(Object.keys(own.data.items[0]).sort(), LISTED_FIELDS);
    const all = await admin.get(`/api/api_keys?page_size=100&search=${run}`);
    const ids = all.data.items.map((k: { id: string }) => k.id);
    assert.ok(ids.includes(mine.id) && ids.includes(theirs.id));
    const byOwner = await admin.get(`/api/api_keys?owner=ak-viewer-${run}&page_size=100`);
    assert.ok(byOwner.data.items.length > 0 && byOwner.data.items.every((k: { owner: string }) => k.owner === `ak-viewer-${run}`));
    assert.equal((await analyst.get('/api/api_keys?page_size=101')).statusCode, 400);
  });

  test('the owner revokes a key: 204, it stops working at once, a second revoke is 404', async () => {
    const { viewer } = await cast();
    const key = await createKey(viewer);
    assert.equal(await works(key.key), 200);
    const res = await viewer.delete(`/api/api_keys/${key.id}`);
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    assertError(await keyClient(ctx.service, key).get('/api/external/alerts'), 401, 'Could not validate credentials');
    assertError(await viewer.delete(`/api/api_keys/${key.id}`), 404, 'API key not found');
    const listed = await viewer.get('/api/api_keys?page_size=100');
    assert.ok(!listed.data.items.some((k: { id: string }) => k.id === key.id), 'revoked keys leave the default list');
    const withRevoked = await viewer.get('/api/api_keys?page_size=100&include_revoked=true');
    const revoked = withRevoked.data.items.find((k: { id: string }) => k.id === key.id);
    assert.ok(revoked?.revoked_at, withRevoked.body);
  });

  test("someone else's key is not found for a non-admin (and keeps working); an admin revokes any key", async () => {
    const { admin, analyst, viewer } = await cast();
    const key = await createKey(viewer);
    assertError(await analyst.delete(`/api/api_keys/${key.id}`), 404, 'API key not found');
    assert.equal(await works(key.key), 200);
    assertError(await viewer.delete('/api/api_keys/not-a-uuid'), 404, 'API key not found');
    assert.equal((await admin.delete(`/api/api_keys/${key.id}`)).statusCode, 204);
    assert.equal(await works(key.key), 401);
  });

  test('a key with an expiry says when, and is refused once expired', async () => {
    const { viewer } = await cast();
    const key = await createKey(viewer, { expires_in_days: 30 });
    const days = (Date.parse(String(key.expires_at)) - Date.parse(key.created_at)) / 86_400_000;
    assert.ok(Math.abs(days - 30) < 0.01, String(key.expires_at));
    assert.equal(await works(key.key), 200);
    // Time passes: the expiry is moved into the past.
    await ctx.service.db.query(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [key.id]);
    assertError(await keyClient(ctx.service, key).get('/api/external/rules'), 401, 'Could not validate credentials');
  });

  test("disabling a user revokes their keys at once (enabling them again does not bring the keys back); deleting a user removes them", async () => {
    const { admin } = await cast();
    const created = await admin.post('/api/users', { username: `ak-leaver-${run}`, password: 'leaver-password-123', role: 'analyst' });
    const leaver = await userAs(admin, 'viewer', `ak-leaver2-${run}`);
    const userId = created.data.id as string;
    const first = await login(ctx.service, `ak-leaver-${run}`, 'leaver-password-123');
    const key = await createKey(first);
    assert.equal(await works(key.key), 200);
    assert.equal((await admin.patch(`/api/users/${userId}`, { disabled: true })).statusCode, 200);
    assert.equal(await works(key.key), 401);
    assert.equal((await admin.patch(`/api/users/${userId}`, { disabled: false })).statusCode, 200);
    assert.equal(await works(key.key), 401, 'a revoked key stays revoked');
    const other = await createKey(leaver);
    assert.equal(await works(other.key), 200);
    const me = await leaver.get('/api/auth/me');
    assert.equal((await admin.delete(`/api/users/${me.data.id}`)).statusCode, 204);
    assert.equal(await works(other.key), 401);
  });

  test('last use is recorded, at most once a minute', async () => {
    const { viewer } = await cast();
    const key = await createKey(viewer);
    const lastUsed = async () => {
      const list = await viewer.get('/api/api_keys?page_size=100');
      return list.data.items.find((k: { id: string }) => k.id === key.id)?.last_used_at as string | null;
    };
    assert.equal(await lastUsed(), null);
    await works(key.key);
    const first = await lastUsed();
    assert.ok(first && !Number.isNaN(Date.parse(first)));
    await works(key.key);
    assert.equal(await lastUsed(), first, 'a second use within the minute writes nothing');
    await ctx.service.db.query(`UPDATE api_keys SET last_used_at = now() - interval '2 minutes' WHERE id = $1`, [key.id]);
    await works(key.key);
    assert.ok(Date.parse((await lastUsed())!) > Date.parse(first!) - 1000 && (await lastUsed()) !== first);
  });

  test('creation and revocation are audited, without the secret', async () => {
    const { admin, viewer } = await cast();
    const key = await createKey(viewer, { name: `audited-${run}` });
    assert.equal((await viewer.delete(`/api/api_keys/${key.id}`)).statusCode, 204);
    const log = await admin.get(`/api/audit?target_id=${key.id}&sort_order=asc`);
    assert.equal(log.statusCode, 200, log.body);
    assert.deepEqual(
      log.data.items.map((e: { action: string; actor: string }) => [e.action, e.actor]),
      [
        ['api_key.create', `ak-viewer-${run}`],
        ['api_key.revoke', `ak-viewer-${run}`],
      ],
    );
    assert.ok(!log.body.includes(key.key.slice(15)), 'no secret in the audit log');
  });
});

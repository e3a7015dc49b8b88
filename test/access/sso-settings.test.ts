// Single sign-on settings and their edges: off by default (no provider listed, 404), unknown
// providers, an unreachable provider (502), settings refused at start, off with a warning when the
// issuer comes without its client id, and a sign-in started on one instance and completed on another
// (the state lives in the shared database).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import type { Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { openPostgres } from '../../src/db/postgres.js';
import { createService, type Service } from '../../src/server.js';
import { freePort } from '../cli/vigil-process.js';
import { createPostgresDatabase, openTestDatabase, postgresUnavailable, type TestDatabase } from '../helpers/databases.js';
import { startOidcProvider } from '../helpers/oidc-provider.js';
import { ADMIN_PASSWORD, anonymous, startService } from '../helpers/service.js';
import { assertError } from '../rules/fixtures.js';
import { ACCOUNTS, me, REDIRECT_URI, setCookie, ssoEnv, ssoSignIn, VIGIL_CLIENT } from './sso-fixtures.js';

describe('single sign-on when it is not configured', () => {
  let service: Service;
  before(async () => {
    service = await startService('pglite');
  });
  after(() => service.close());

  it('lists no provider, and its endpoints answer 404', async () => {
    const providers = await anonymous(service).get('/api/auth/sso/providers');
    assert.equal(providers.statusCode, 200);
    assert.deepEqual(providers.data, []);
    assertError(await anonymous(service).get('/api/auth/sso/login?provider=oidc'), 404, 'Single sign-on is not configured');
    assertError(await anonymous(service).get('/api/auth/sso/callback?code=a&state=b'), 404, 'Single sign-on is not configured');
  });
});

describe('single sign-on with a provider that cannot be reached', () => {
  let service: Service;
  before(async () => {
    const port = await freePort();
    service = await startService('pglite', { OIDC_ISSUER: `http://127.0.0.1:${port}`, OIDC_CLIENT_ID: 'vigil', OIDC_CLIENT_SECRET: 'secret' });
  });
  after(() => service.close());

  it('answers 502 with a clear message, and names unknown providers and a missing one', async () => {
    assertError(await anonymous(service).get('/api/auth/sso/login?provider=oidc'), 502, 'The identity provider could not be reached; try again later');
    assertError(await anonymous(service).get('/api/auth/sso/login?provider=saml'), 404, 'Unknown single sign-on provider');
    assert.equal((await anonymous(service).get('/api/auth/sso/login')).statusCode, 400);
    assert.equal((await anonymous(service).get(`/api/auth/sso/login?provider=${'x'.repeat(65)}`)).statusCode, 400);
  });
});

describe('single sign-on as a public client (no secret, PKCE only)', () => {
  let service: Service;
  let provider: Awaited<ReturnType<typeof startOidcProvider>>;
  before(async () => {
    provider = await startOidcProvider({
      clients: [{ client_id: 'vigil-public', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' }],
      accounts: ACCOUNTS,
    });
    const env: Record<string, string> = { ...ssoEnv(provider), OIDC_CLIENT_ID: 'vigil-public' };
    delete env.OIDC_CLIENT_SECRET;
    service = await startService('pglite', env);
  });
  after(async () => {
    await service?.close();
    await provider?.close();
  });

  it('signs a user in', async () => {
    const signIn = await ssoSignIn(service, provider, 'bob-sub');
    assert.equal(signIn.callback.statusCode, 302, signIn.callback.body);
    const who = (await me(service, signIn.session ?? '')).data;
    assert.deepEqual([who.username, who.role, who.auth_method], ['bob', 'admin', 'sso']);
  });
});

describe('single sign-on settings', () => {
  const base = { OIDC_ISSUER: 'https://idp.example.com/realms/soc', OIDC_CLIENT_ID: 'vigil' };
  const refused = (env: Record<string, string>, message: RegExp) => assert.throws(() => loadConfig(env), (e: unknown) => e instanceof ConfigError && message.test(e.message));

  it('derives the redirect URI from PUBLIC_URL and accepts a discovery URL as the issuer', () => {
    const config = loadConfig({ ...base, OIDC_ISSUER: 'https://idp.example.com/realms/soc/.well-known/openid-configuration', PUBLIC_URL: 'https://vigil.example.com/' });
    assert.equal(config.oidc.issuer, 'https://idp.example.com/realms/soc');
    assert.equal(config.oidc.redirectUri, 'https://vigil.example.com/api/auth/sso/callback');
    assert.equal(config.oidc.roleClaim, 'groups');
    assert.equal(config.oidc.defaultRole, 'viewer');
    assert.equal(config.oidc.scopes, 'openid email profile');
    assert.equal(loadConfig({ ...base, OIDC_REDIRECT_URI: 'https://sso.example.com/cb' }).oidc.redirectUri, 'https://sso.example.com/cb');
  });

  it('refuses plain http away from localhost, a bad role map or default role', () => {
    refused({ ...base, OIDC_ISSUER: 'http://idp.example.com' }, /OIDC_ISSUER must be an https:\/\/ URL/);
    refused({ ...base, OIDC_ISSUER: 'not a url' }, /OIDC_ISSUER is not a valid URL/);
    refused({ ...base, OIDC_ROLE_MAP: 'admins=admin' }, /OIDC_ROLE_MAP entry 'admins=admin' must be group:role/);
    refused({ ...base, OIDC_ROLE_MAP: 'admins:root' }, /OIDC_ROLE_MAP entry 'admins:root'/);
    refused({ ...base, OIDC_DEFAULT_ROLE: 'root' }, /OIDC_DEFAULT_ROLE must be admin, analyst or viewer/);
    refused({ ...base, OIDC_REDIRECT_URI: '/relative' }, /OIDC_REDIRECT_URI is not a valid URL/);
    // Group names may contain ':' (the last one separates the role).
    assert.doesNotThrow(() => loadConfig({ ...base, OIDC_ROLE_MAP: 'urn:groups:soc:analyst, /admins:admin' }));
  });
});

describe('single sign-on with the issuer alone', () => {
  let service: Service | undefined;
  let db: TestDatabase | undefined;
  const log: Array<{ level: number; msg: string }> = [];
  before(async () => {
    db = await openTestDatabase('pglite');
    const config = loadConfig({ ADMIN_PASSWORD, DATA_DIR: '/nonexistent-test-dir', OIDC_ISSUER: 'https://idp.example.com/realms/soc' });
    const stream = { write: (line: string) => void log.push(JSON.parse(line) as { level: number; msg: string }) };
    service = await createService(config, { db: db.db, logger: { level: 'warn', stream } });
  });
  after(async () => {
    await service?.close();
    await db?.drop();
  });

  it('starts with single sign-on off and a warning naming the missing settings', async () => {
    const warnings = log.filter((line) => line.level === 40).map((line) => line.msg);
    assert.equal(warnings.length, 1, JSON.stringify(log));
    assert.match(warnings[0], /^Single sign-on is off: OIDC_ISSUER is set but OIDC_CLIENT_ID and OIDC_CLIENT_SECRET are not\./);
    const providers = await anonymous(service!).get('/api/auth/sso/providers');
    assert.deepEqual([providers.statusCode, providers.data], [200, []]);
    assertError(await anonymous(service!).get('/api/auth/sso/login?provider=oidc'), 404, 'Single sign-on is not configured');
  });

  it('names only what is missing, and the client id without an issuer too', () => {
    const warnings = (env: Record<string, string>) => loadConfig(env).warnings;
    assert.match(warnings({ OIDC_ISSUER: 'https://idp.example.com', OIDC_CLIENT_SECRET: 's' })[0], /OIDC_ISSUER is set but OIDC_CLIENT_ID is not\./);
    assert.match(warnings({ OIDC_CLIENT_ID: 'vigil' })[0], /^Single sign-on is off: OIDC_CLIENT_ID is set but OIDC_ISSUER is not\./);
    // Off, so its other settings are not checked either; fully set or not set at all: no warning.
    assert.equal(warnings({ OIDC_ISSUER: 'not a url' }).length, 1);
    assert.deepEqual(warnings({ OIDC_ISSUER: 'https://idp.example.com', OIDC_CLIENT_ID: 'vigil' }), []);
    assert.deepEqual(warnings({}), []);
  });
});

describe('single sign-on across instances [postgres]', async () => {
  const reason = await postgresUnavailable();
  if (reason) {
    it('skipped', { skip: reason }, () => {});
    return;
  }
  const provider = await startOidcProvider({ clients: [VIGIL_CLIENT], accounts: ACCOUNTS });
  let database: { url: string; drop(): Promise<void> };
  const connections: Database[] = [];
  const services: Service[] = [];
  before(async () => {
    database = await createPostgresDatabase();
    const config = loadConfig({ ADMIN_PASSWORD, DATA_DIR: '/nonexistent-test-dir', ...ssoEnv(provider) });
    for (let i = 0; i < 2; i++) {
      const db = await openPostgres(database.url);
      connections.push(db);
      if (i === 0) await migrate(db);
      services.push(await createService(config, { db }));
    }
  });
  after(async () => {
    for (const service of services) await service.close();
    for (const db of connections) await db.close();
    await database?.drop();
    await provider.close();
  });

  it('completes on instance B a sign-in started on instance A, once', async () => {
    const [a, b] = services;
    const start = await anonymous(a).get('/api/auth/sso/login?provider=oidc');
    const stateCookie = setCookie(start, 'svc_sso_state')?.value;
    const authUrl = new URL(String(start.headers.location));
    authUrl.searchParams.set('login_hint', 'bob-sub');
    const back = await provider.authorize(authUrl);
    const callback = await anonymous(b).get(back.pathname + back.search, { cookie: `svc_sso_state=${stateCookie}` });
    assert.equal(callback.statusCode, 302, callback.body);
    const session = setCookie(callback, 'svc_session')?.value ?? '';
    assert.equal((await me(a, session)).data.username, 'bob');
    const replay = await anonymous(a).get(back.pathname + back.search, { cookie: `svc_sso_state=${stateCookie}` });
    assert.equal(replay.statusCode, 400);
    // Both instances find the same user by (issuer, subject).
    const again = await ssoSignIn(a, provider, 'bob-sub');
    assert.equal((await me(b, again.session ?? '')).data.id, (await me(a, session)).data.id);
  });
});

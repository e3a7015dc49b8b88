// Shared setup of the single sign-on tests: the provider's clients and accounts, the service
// settings that point at it, and one sign-in played from the browser's side.
import assert from 'node:assert/strict';
import type { Service } from '../../src/server.js';
import { anonymous, type Response } from '../helpers/service.js';
import type { TestProvider } from '../helpers/oidc-provider.js';

export const REDIRECT_URI = 'http://127.0.0.1:8080/api/auth/sso/callback';
export const VIGIL_CLIENT = { client_id: 'vigil', client_secret: 'vigil-client-secret-for-the-sso-tests', redirect_uris: [REDIRECT_URI] };
export const OTHER_CLIENT = { client_id: 'other-app', client_secret: 'other-client-secret-for-the-sso-tests', redirect_uris: [REDIRECT_URI] };

/** Accounts at the provider (the key is the subject). */
export const ACCOUNTS: Record<string, Record<string, unknown>> = {
  'alice-sub': { preferred_username: 'alice', email: 'alice@example.com', email_verified: true, groups: ['soc-analysts', 'staff'] },
  'bob-sub': { preferred_username: 'bob', email: 'bob@example.com', email_verified: true, groups: ['staff', 'vigil-admins', 'soc-analysts'] },
  'carol-sub': { preferred_username: 'carol', email: 'carol@example.com', email_verified: true },
  'dave-sub': { preferred_username: 'dave', email: 'dave@example.com', email_verified: true, groups: ['soc-analysts'] },
  'erin-sub': { email: 'erin+soc@example.com', email_verified: true, groups: ['soc-analysts'] },
  'frank-sub': { preferred_username: 'frank', email: 'frank@example.com', email_verified: false, groups: ['vigil-admins'] },
  'grace-sub': { preferred_username: 'grace', email: 'grace@example.com', groups: ['soc-analysts'] },
  'local-twin-sub': { preferred_username: 'localuser', email: 'localuser@example.com', email_verified: true, groups: ['vigil-admins'] },
  'mallory-sub': { preferred_username: 'mallory', email: 'mallory@example.com', email_verified: true },
  'henry-sub': { preferred_username: 'henry', email: 'henry@example.com', email_verified: true, groups: 'vigil-admins' },
  'ivy-sub': { preferred_username: '../Ivy Admin', email_verified: false },
  'zoe-sub': { preferred_username: 'zoe', email: 'zoe@example.com', email_verified: true, groups: ['soc-analysts'] },
};

export function ssoEnv(provider: TestProvider): Record<string, string> {
  return {
    OIDC_ISSUER: provider.issuer,
    OIDC_CLIENT_ID: VIGIL_CLIENT.client_id,
    OIDC_CLIENT_SECRET: VIGIL_CLIENT.client_secret,
    OIDC_SCOPES: 'openid email profile groups',
    OIDC_ROLE_MAP: 'vigil-admins:admin, soc-analysts:analyst',
    OIDC_PROVIDER_NAME: 'Test IdP',
  };
}

/** The value of a cookie the response sets, and its attributes. */
export function setCookie(response: Response, name: string): { value: string; attributes: string } | undefined {
  const header = response.headers['set-cookie'];
  const lines = header === undefined ? [] : Array.isArray(header) ? header : [header];
  for (const line of lines) {
    if (line.startsWith(`${name}=`)) {
      const semicolon = line.indexOf(';');
      return { value: line.slice(name.length + 1, semicolon < 0 ? undefined : semicolon), attributes: line };
    }
  }
  return undefined;
}

export interface SignIn {
  start: Response;
  authUrl: URL;
  stateCookie: string;
  callbackPath: string;
  callback: Response;
  /** The session token set by the callback, when it succeeded. */
  session?: string;
}

/**
 * Signs `account` in as a browser would: asks the service for the provider's URL, signs in at the
 * provider (after `editAuthUrl` may change the request), and brings the answer back to the service.
 */
export async function ssoSignIn(service: Service, provider: TestProvider, account: string, editAuthUrl?: (url: URL) => void): Promise<SignIn> {
  const start = await anonymous(service).get('/api/auth/sso/login?provider=oidc');
  assert.equal(start.statusCode, 302, start.body);
  const stateCookie = setCookie(start, 'svc_sso_state')?.value;
  assert.ok(stateCookie, 'the sign-in start sets the state cookie');
  const authUrl = new URL(String(start.headers.location));
  authUrl.searchParams.set('login_hint', account);
  editAuthUrl?.(authUrl);
  const back = await provider.authorize(authUrl);
  assert.equal(back.origin + back.pathname, REDIRECT_URI);
  const callbackPath = back.pathname + back.search;
  const callback = await anonymous(service).get(callbackPath, { cookie: `svc_sso_state=${stateCookie}` });
  return { start, authUrl, stateCookie, callbackPath, callback, session: setCookie(callback, 'svc_session')?.value };
}

/** GET /api/auth/me with the session cookie, as the web UI does after the redirect. */
export function me(service: Service, session: string): Promise<Response> {
  return anonymous(service).get('/api/auth/me', { cookie: `svc_session=${session}` });
}

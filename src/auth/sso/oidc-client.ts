// The relying-party side of OpenID Connect (through openid-client): discovers the provider, builds
// the authorization request (code flow, PKCE S256, state, nonce) and turns a callback into a
// verified identity (state, nonce, issuer, audience, ID token signature, userinfo subject checked).
import * as client from 'openid-client';
import { HttpError } from '../../http/errors.js';
import type { LoginState } from './login-states.js';

export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret?: string;
  redirectUri: string;
  scopes: string;
}

/** Who signed in, as the provider vouches: its issuer, their subject and the other claims. */
export interface VerifiedIdentity {
  issuer: string;
  subject: string;
  claims: Record<string, unknown>;
}

/** Provider metadata and keys are discovered again after this long, so rotations are followed. */
const DISCOVERY_MAX_AGE_MS = 60 * 60 * 1000;
/** Each request to the provider gives up after this many seconds. */
const PROVIDER_TIMEOUT_SECONDS = 10;
/** Claims describing the token itself; userinfo never overrides them. */
const TOKEN_CLAIMS = new Set(['iss', 'sub', 'aud', 'exp', 'iat', 'nbf', 'nonce', 'azp', 'at_hash', 'c_hash', 'auth_time', 'sid', 'jti']);

export const PROVIDER_UNREACHABLE = 'The identity provider could not be reached; try again later';

export class OidcClient {
  #discovered?: { at: number; config: Promise<client.Configuration> };

  constructor(readonly settings: OidcSettings) {}

  /** The provider's authorization endpoint with this sign-in's parameters. */
  async authorizationUrl(login: LoginState): Promise<URL> {
    const config = await this.#configuration();
    return client.buildAuthorizationUrl(config, {
      redirect_uri: this.settings.redirectUri,
      scope: scopesWithOpenid(this.settings.scopes),
      response_type: 'code',
      code_challenge: await client.calculatePKCECodeChallenge(login.code_verifier),
      code_challenge_method: 'S256',
      state: login.state,
      nonce: login.nonce,
    });
  }

  /** Redeems the code of a callback (`currentUrl` as the browser arrived) for a verified identity. */
  async complete(currentUrl: URL, login: LoginState): Promise<VerifiedIdentity> {
    const config = await this.#configuration();
    try {
      const tokens = await client.authorizationCodeGrant(config, currentUrl, {
        pkceCodeVerifier: login.code_verifier,
        expectedState: login.state,
        expectedNonce: login.nonce,
        idTokenExpected: true,
      });
      const idToken = tokens.claims();
      if (!idToken) throw new HttpError(401, 'Single sign-on failed: the provider sent no ID token');
      const claims: Record<string, unknown> = { ...idToken };
      if (config.serverMetadata().userinfo_endpoint && tokens.access_token) {
        const userinfo = await client.fetchUserInfo(config, tokens.access_token, idToken.sub);
        for (const [name, value] of Object.entries(userinfo)) if (!TOKEN_CLAIMS.has(name)) claims[name] = value;
      }
      return { issuer: idToken.iss, subject: idToken.sub, claims };
    } catch (error) {
      throw providerError(error);
    }
  }

  #configuration(): Promise<client.Configuration> {
    const now = Date.now();
    if (!this.#discovered || now - this.#discovered.at > DISCOVERY_MAX_AGE_MS) {
      const config = this.#discover();
      this.#discovered = { at: now, config };
      // A failed discovery is not kept: the next sign-in tries again.
      config.catch(() => {
        if (this.#discovered?.config === config) this.#discovered = undefined;
      });
    }
    return this.#discovered.config;
  }

  async #discover(): Promise<client.Configuration> {
    const { issuer, clientId, clientSecret } = this.settings;
    const url = new URL(issuer);
    // Plain http is only accepted for a provider on localhost (checked when the configuration is read).
    const execute = url.protocol === 'http:' ? [client.allowInsecureRequests, client.enableNonRepudiationChecks] : [client.enableNonRepudiationChecks];
    try {
      return await client.discovery(
        url,
        clientId,
        clientSecret ? { client_secret: clientSecret } : undefined,
        clientSecret ? client.ClientSecretBasic(clientSecret) : client.None(),
        { execute, timeout: PROVIDER_TIMEOUT_SECONDS },
      );
    } catch (error) {
      // Unreachable, or its discovery document is broken or names another issuer: a provider problem.
      const failure = new HttpError(502, PROVIDER_UNREACHABLE);
      failure.cause = error;
      throw failure;
    }
  }
}

function scopesWithOpenid(scopes: string): string {
  const list = scopes.split(/\s+/).filter(Boolean);
  return (list.includes('openid') ? list : ['openid', ...list]).join(' ');
}

/** The answer for a failure talking to the provider: 502 when it is unreachable or broken, 401 when it refused or its answer failed a check. */
function providerError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof client.AuthorizationResponseError) {
    return new HttpError(401, `Single sign-on failed: the identity provider answered ${short(error.error)}`);
  }
  if (error instanceof client.ResponseBodyError) {
    if (error.status >= 500) return new HttpError(502, PROVIDER_UNREACHABLE);
    return new HttpError(401, `Single sign-on failed: the identity provider refused the authorization code (${short(error.error)})`);
  }
  if (error instanceof client.ClientError) {
    if (error.code === 'OAUTH_RESPONSE_IS_NOT_CONFORM' || error.code === 'OAUTH_RESPONSE_IS_NOT_JSON') {
      return new HttpError(502, PROVIDER_UNREACHABLE);
    }
    const cause = error.cause instanceof Error ? error.cause.message : error.message;
    return new HttpError(401, `Single sign-on failed: ${short(cause)}`);
  }
  // fetch failures (connection refused, DNS, timeout) and anything else from the network.
  return new HttpError(502, PROVIDER_UNREACHABLE);
}

function short(text: string): string {
  return [...text.slice(0, 200)].map((ch) => (ch.charCodeAt(0) < 0x20 ? ' ' : ch)).join('');
}

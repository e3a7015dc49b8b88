// A real OpenID provider (oidc-provider) for the single sign-on tests, run as a child process by
// oidc-provider.ts. Its configuration comes as JSON in OIDC_TEST_PROVIDER; it prints "ready" once it
// listens. Sign-in is automatic: the interaction page logs in the account named by the request's
// login_hint and grants the requested scopes (an unknown hint is refused with access_denied). Without
// a login_hint (a browser sent by the service as is) the page is a form asking for the account, which
// a browser test fills in.
// POST /__test/tamper makes the next token response carry an ID token whose claims are changed and
// re-signed (with the provider's own key, or with `foreignKey` another one), to test what the
// service refuses.
import { createServer, type IncomingMessage } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, decodeJwt, type JWK } from 'jose';
import Provider, { type ClientMetadata, type Configuration, type InteractionResults } from 'oidc-provider';

interface Settings {
  port: number;
  clients: ClientMetadata[];
  accounts: Record<string, Record<string, unknown>>;
}

interface Tamper {
  claims?: Record<string, unknown>;
  foreignKey?: boolean;
}

const settings = JSON.parse(process.env.OIDC_TEST_PROVIDER ?? '{}') as Settings;
const issuer = `http://127.0.0.1:${settings.port}`;
const KID = 'test-signing-key';

const { privateKey } = await generateKeyPair('RS256', { extractable: true });
const { privateKey: foreignKey } = await generateKeyPair('RS256', { extractable: true });
const signingJwk: JWK = { ...(await exportJWK(privateKey)), kid: KID, alg: 'RS256', use: 'sig' };

let tamper: Tamper | undefined;

const configuration: Configuration = {
  clients: settings.clients.map((c) => ({
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
    ...c,
  })),
  jwks: { keys: [signingJwk] },
  cookies: { keys: ['cookie-signing-key-for-the-sso-tests'] },
  claims: {
    openid: ['sub'],
    email: ['email', 'email_verified'],
    profile: ['preferred_username', 'name'],
    groups: ['groups'],
  },
  scopes: ['openid', 'email', 'profile', 'groups'],
  pkce: { required: () => true },
  features: { devInteractions: { enabled: false } },
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  async findAccount(_ctx, id) {
    const claims = settings.accounts[id];
    if (!claims) return undefined;
    return { accountId: id, claims: async () => ({ sub: id, ...claims }) };
  },
};

const provider = new Provider(issuer, configuration);

// Re-signs the ID token of the next token response when a tamper is pending.
provider.use(async (ctx, next) => {
  await next();
  const body = ctx.body as { id_token?: string } | undefined;
  if (ctx.path !== '/token' || !tamper || !body?.id_token) return;
  const change = tamper;
  tamper = undefined;
  const payload = { ...decodeJwt(body.id_token), ...change.claims };
  body.id_token = await new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid: KID, typ: 'JWT' }).sign(change.foreignKey ? foreignKey : privateKey);
});

async function readText(request: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of request) text += chunk;
  return text;
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const text = await readText(request);
  return text ? JSON.parse(text) : {};
}

/** The provider's sign-in page for a browser: one field naming the account (its subject). */
function loginForm(action: string): string {
  return `<!doctype html><html lang="en"><head><title>Test IdP sign-in</title></head><body><main><h1>Test IdP</h1>
<form method="post" action="${action}"><label>Account <input name="account" autocomplete="username"></label> <button type="submit">Continue</button></form></main></body></html>`;
}

const handle = provider.callback();

const server = createServer((request, response) => {
  void (async () => {
    const path = new URL(request.url ?? '/', issuer).pathname;
    if (request.method === 'POST' && path === '/__test/tamper') {
      tamper = (await readJson(request)) as Tamper;
      response.writeHead(204).end();
      return;
    }
    if (path.startsWith('/interaction/')) {
      const details = await provider.interactionDetails(request, response);
      let accountId = String(details.params.login_hint ?? '') || (details.prompt.name === 'login' ? '' : (details.session?.accountId ?? ''));
      if (!accountId && details.prompt.name === 'login') {
        if (request.method !== 'POST') {
          response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(loginForm(path));
          return;
        }
        accountId = new URLSearchParams(await readText(request)).get('account') ?? '';
      }
      let result: InteractionResults;
      if (!settings.accounts[accountId]) {
        result = { error: 'access_denied', error_description: 'unknown test account' };
      } else if (details.prompt.name === 'login') {
        result = { login: { accountId } };
      } else {
        const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) });
        grant.addOIDCScope(String(details.params.scope));
        result = { consent: { grantId: await grant.save() } };
      }
      await provider.interactionFinished(request, response, result, { mergeWithLastSubmission: true });
      return;
    }
    handle(request, response);
  })().catch((error: unknown) => {
    console.error(error);
    if (!response.headersSent) response.writeHead(500).end(String(error));
  });
});

server.listen(settings.port, '127.0.0.1', () => console.log('ready'));
// The test process holds our stdin: when it ends (even by a crash), so do we.
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();

// Starts a real OpenID provider (oidc-provider, see oidc-provider-main.ts) in a child process on a
// free local port, and plays the browser's part of a sign-in: follows the provider's redirects with
// a cookie jar until it sends the browser back to the client's redirect URI.
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../cli/vigil-process.js';
import { repoRoot } from '../sigma/corpus-helpers.js';
import { childLoader, projectModule } from './child-node.js';

export interface TestClient {
  client_id: string;
  /** Absent for a public client (token_endpoint_auth_method `none`). */
  client_secret?: string;
  redirect_uris: string[];
  token_endpoint_auth_method?: 'client_secret_basic' | 'none';
}

export interface TestProvider {
  issuer: string;
  /** Follows an authorization URL through the (automatic) sign-in; answers the URL the provider sends the browser back to. */
  authorize(url: URL): Promise<URL>;
  /** Makes the next token response carry an ID token with these claims changed (re-signed; with `foreignKey`, by a key the provider does not publish). */
  tamperNextIdToken(change: { claims?: Record<string, unknown>; foreignKey?: boolean }): Promise<void>;
  close(): Promise<void>;
}

const MAIN = projectModule('test/helpers/oidc-provider-main.ts');

export async function startOidcProvider(options: { clients: TestClient[]; accounts: Record<string, Record<string, unknown>> }): Promise<TestProvider> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [...childLoader, MAIN], {
    cwd: repoRoot,
    env: { ...process.env, NODE_ENV: 'test', OIDC_TEST_PROVIDER: JSON.stringify({ port, ...options }) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  await waitForReady(child);

  return {
    issuer,
    async authorize(url) {
      const jar = new Map<string, string>();
      let next = url;
      for (let hop = 0; hop < 10; hop++) {
        if (next.origin !== issuer) return next;
        const response = await fetch(next, {
          redirect: 'manual',
          headers: jar.size ? { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } : {},
        });
        for (const line of response.headers.getSetCookie()) {
          const [pair] = line.split(';');
          const eq = pair.indexOf('=');
          const value = pair.slice(eq + 1);
          if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') jar.delete(pair.slice(0, eq));
          else jar.set(pair.slice(0, eq), value);
        }
        const location = response.headers.get('location');
        if (!location) throw new Error(`the provider answered ${response.status} at ${next.pathname}: ${(await response.text()).slice(0, 500)}`);
        next = new URL(location, next);
      }
      throw new Error('the provider redirected too many times');
    },
    async tamperNextIdToken(change) {
      const response = await fetch(`${issuer}/__test/tamper`, { method: 'POST', body: JSON.stringify(change) });
      if (response.status !== 204) throw new Error(`tamper failed: ${response.status}`);
    },
    close: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
}

function waitForReady(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('ready')) {
        child.stdout?.off('data', onData);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`the OpenID provider exited (${code}) before it was ready:\n${output.slice(-2000)}`)));
  });
}

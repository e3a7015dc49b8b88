// Browser-test harness of the web UI: a real `vigil serve` process on a free port with a fresh data
// directory, Debian's Chromium driven through playwright-core, and the checks every page gets (no
// console error, no page error, no Content-Security-Policy violation, no serious or critical axe-core
// finding), with the set-up every browser test shares: a page open on the console, signing in,
// sending events with an ingest token. Screenshots go to .artifacts/ui/ (git-ignored).
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type ConsoleMessage, type Page } from 'playwright-core';
import { freePort, vigilArgv } from '../cli/vigil-process.js';
import { repoRoot } from '../sigma/corpus-helpers.js';

/** The browser: Debian's Chromium, or the executable CHROMIUM_PATH names (another distribution's path). */
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const ARTIFACTS = join(repoRoot, '.artifacts', 'ui');
export const ADMIN_PASSWORD = 'admin-password-for-ui-tests';

/** Why the browser tests cannot run here, or null. With CI=true a missing browser is a failure instead. */
export function browserMissing(): string | null {
  if (existsSync(CHROMIUM)) return null;
  const reason = `${CHROMIUM} is not installed (apt-get install -y chromium)`;
  if (process.env.CI === 'true') throw new Error(`browser tests cannot run in CI: ${reason}`);
  return reason;
}

export interface RunningServer {
  url: string;
  stop(): Promise<void>;
}

export interface ServerOptions {
  /** The port to listen on (a free one by default), for settings that must name it beforehand. */
  port?: number;
  /** More environment settings (OIDC_ISSUER, NOTIFY_ALLOW_PRIVATE, a DATABASE_URL, …). */
  env?: Record<string, string>;
}

/** Builds the UI if its sources changed, then starts `vigil serve` and waits until it answers. */
export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const build = spawnSync(process.execPath, [join(repoRoot, 'scripts/build.mjs'), '--if-stale', '--ui'], { cwd: repoRoot, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`the UI build failed:\n${build.stdout}\n${build.stderr}`);
  const port = options.port ?? (await freePort());
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-ui-e2e-'));
  // The embedded database in the fresh data directory, unless options.env names a DATABASE_URL.
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, ADMIN_USERNAME: 'admin', ADMIN_PASSWORD };
  delete env.DATABASE_URL;
  Object.assign(env, options.env);
  const child: ChildProcess = spawn(process.execPath, vigilArgv(['serve']), { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (output += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`vigil serve exited (${child.exitCode}):\n${output}`);
    try {
      const res = await fetch(`${url}/api/health`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`vigil serve did not answer within 120 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    url,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const LAUNCH_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS });
}

/** Records what must never happen on a page: console errors, uncaught errors, CSP violations. */
export class PageProblems {
  readonly problems: string[] = [];
  /** Console errors expected at a given moment (an answer the test provokes on purpose). */
  private allowed: RegExp[] = [];

  constructor(page: Page) {
    page.on('console', (message: ConsoleMessage) => {
      if (message.type() !== 'error' && message.type() !== 'warning') return;
      const text = `${message.text()} @ ${message.location().url}`;
      if (message.type() === 'warning' && !/Content.Security.Policy|Refused/i.test(text)) return;
      if (this.allowed.some((re) => re.test(text))) return;
      this.problems.push(`console ${message.type()}: ${text}`);
    });
    page.on('pageerror', (error) => this.problems.push(`page error: ${error.message}`));
  }

  allow(pattern: RegExp): void {
    this.allowed.push(pattern);
  }
}

/** Installed before any page script: collects securitypolicyviolation events (the page cannot see them otherwise). */
export const CSP_LISTENER = `
  window.__cspViolations = [];
  document.addEventListener('securitypolicyviolation', (e) => {
    window.__cspViolations.push(e.violatedDirective + ' ' + (e.blockedURI || 'inline') + ' ' + (e.sourceFile || '') + ':' + e.lineNumber);
  });
`;

export async function cspViolations(page: Page): Promise<string[]> {
  return (await page.evaluate('window.__cspViolations || []')) as string[];
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeFinding {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/** Runs axe-core in the page (evaluated through the DevTools protocol, so the page's CSP does not block it). */
export async function axeFindings(page: Page): Promise<AxeFinding[]> {
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.evaluate(axeSource);
  return (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) })))`)) as AxeFinding[];
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/**
 * Waits until a page expression is true, evaluated through the DevTools protocol: Playwright's own
 * waitForFunction compiles its predicate inside the page, which the page's CSP (rightly) refuses.
 */
export async function waitUntil(page: Page, expression: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await page.evaluate(expression))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${expression}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface BrowserPageOptions {
  /** The page's default timeout for every wait (30 s by default). */
  timeout?: number;
}

export interface BrowserPage {
  browser: Browser;
  page: Page;
  problems: PageProblems;
  /** Screenshot, then no CSP violation, no console or page error so far, no serious or critical axe finding. */
  checkPage(name: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Launches the browser with one page (1366×900, CSP violations collected) whose problems are recorded.
 * Opening the console signed out asks GET /api/auth/session (200), so no failed request is allowed for it.
 */
export async function openPage(server: RunningServer, options: BrowserPageOptions = {}): Promise<BrowserPage> {
  const browser = await launchBrowser();
  let page: Page;
  try {
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    await context.addInitScript(CSP_LISTENER);
    page = await context.newPage();
  } catch (error) {
    await browser.close();
    throw error;
  }
  page.setDefaultTimeout(options.timeout ?? 30_000);
  const problems = new PageProblems(page);
  return { browser, page, problems, checkPage: (name) => checkPage(page, problems, name), close: () => browser.close() };
}

export interface ConsoleSession extends BrowserPage {
  server: RunningServer;
}

/** Starts a server and opens a page for it (see openPage); close() ends both. */
export async function openConsole(options: ServerOptions & BrowserPageOptions = {}): Promise<ConsoleSession> {
  const server = await startServer(options);
  let opened: BrowserPage;
  try {
    opened = await openPage(server, options);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return {
    ...opened,
    server,
    async close() {
      await opened.close();
      await server.stop();
    },
  };
}

/** The checks of every page: nothing went wrong so far and axe finds nothing serious. The screenshot comes first. */
export async function checkPage(page: Page, problems: PageProblems, name: string): Promise<void> {
  await screenshot(page, name);
  assert.deepEqual(await cspViolations(page), [], `CSP violations on ${name}`);
  assert.deepEqual(problems.problems, [], `console or page errors on ${name}`);
  const findings = await axeFindings(page);
  assert.deepEqual(findings, [], `accessibility findings on ${name}: ${JSON.stringify(findings, null, 2)}`);
}

/** Signs in on the sign-in page shown; by default waits for the Alerts page that follows. */
export async function signIn(page: Page, username: string, password: string, options: { waitForAlerts?: boolean } = {}): Promise<void> {
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  if (options.waitForAlerts ?? true) await page.getByRole('heading', { name: 'Alerts' }).waitFor();
}

/** Sends events to an index pattern with its ingest token; the answer must be 200. */
export async function sendEvents(url: string, pattern: string, token: string, events: object[]): Promise<{ accepted: number; alerts_created: number }> {
  const res = await fetch(`${url}/api/logs/${pattern}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(events),
  });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return JSON.parse(text) as { accepted: number; alerts_created: number };
}

/** The admin's API through fetch (bearer token and CSRF token), for setting up what a browser test needs. */
export interface AdminApi {
  /** The bearer token, the CSRF token and the JSON content type, sent with every request. */
  headers: Record<string, string>;
  /** GET; the answer must be 200 (its text the message otherwise); returns the parsed JSON. */
  get<T = Record<string, string>>(path: string): Promise<T>;
  /** POST of a JSON body; the answer must be 2xx (its status and text the message otherwise); returns the parsed JSON. */
  post<T = Record<string, string>>(path: string, body: unknown): Promise<T>;
  /** Any request with these headers (init.headers add to or replace them), whatever its answer, for the tests that check the status. */
  raw(path: string, init?: Omit<RequestInit, 'headers'> & { headers?: Record<string, string> }): Promise<Response>;
}

/** Signs in as the admin through the API (the answer must be 200) and reads the CSRF token. */
export async function adminApi(serverUrl: string): Promise<AdminApi> {
  const login = await fetch(`${serverUrl}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }) });
  assert.equal(login.status, 200, await login.clone().text());
  const { access_token: access } = (await login.json()) as { access_token: string };
  const { csrf_token: csrf } = (await (await fetch(`${serverUrl}/api/auth/csrf`, { headers: { authorization: `Bearer ${access}` } })).json()) as { csrf_token: string };
  const headers = { authorization: `Bearer ${access}`, 'x-csrf-token': csrf, 'content-type': 'application/json' };
  const raw: AdminApi['raw'] = (path, init = {}) => fetch(serverUrl + path, { ...init, headers: { ...headers, ...init.headers } });
  return {
    headers,
    raw,
    async get<T>(path: string) {
      const res = await raw(path);
      const text = await res.text();
      assert.equal(res.status, 200, text);
      return JSON.parse(text) as T;
    },
    async post<T>(path: string, body: unknown) {
      const res = await raw(path, { method: 'POST', body: JSON.stringify(body) });
      const text = await res.text();
      assert.ok(res.ok, `POST ${path}: ${res.status} ${text}`);
      return JSON.parse(text) as T;
    },
  };
}

/**
 * A JSON request from the page with its own session, as the console makes it (the CSRF token read
 * first): the status and the answer (parsed when it is JSON), whatever the status.
 */
export async function pageRequest<T = unknown>(page: Page, method: string, path: string, body: unknown): Promise<{ status: number; body: T }> {
  const answer = (await page.evaluate(`(async () => {
    const { csrf_token } = await (await fetch('/api/auth/csrf')).json();
    const res = await fetch(${JSON.stringify(path)}, { method: ${JSON.stringify(method)}, headers: { 'content-type': 'application/json', 'x-csrf-token': csrf_token },
      body: ${JSON.stringify(JSON.stringify(body))} });
    return { status: res.status, text: await res.text() };
  })()`)) as { status: number; text: string };
  let parsed: unknown = answer.text;
  try {
    parsed = JSON.parse(answer.text);
  } catch {
    // not JSON: the text as it is
  }
  return { status: answer.status, body: parsed as T };
}

/** What the console itself keeps in the browser: the theme and the queue position the detail page steps through. */
const CONSOLE_STORAGE = ['vigil.theme', 'vigil.alert-list-position'];

/**
 * What the page keeps in localStorage and sessionStorage beyond the console's own preferences, and
 * whether any stored value holds the given secret (a session cookie's value): both must stay empty.
 */
export async function foreignStorage(page: Page, secret?: string): Promise<{ keys: string[]; holdsSecret: boolean }> {
  const entries = (await page.evaluate(`[localStorage, sessionStorage].flatMap((s) => Object.keys(s).map((k) => [k, s.getItem(k) ?? '']))`)) as [string, string][];
  return {
    keys: entries.map(([k]) => k).filter((k) => !CONSOLE_STORAGE.includes(k)),
    holdsSecret: !!secret && entries.some(([k, v]) => k.includes(secret) || v.includes(secret)),
  };
}

/** The text as a regular expression that matches it literally. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

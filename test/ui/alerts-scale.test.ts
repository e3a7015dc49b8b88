// The alert queue at 100,000 alerts in a real browser against a real server (embedded database):
// 100,000 alerts raised through ordinary ingest (five deployed rules, one per severity, each event
// matching one), then the queue is opened, filtered, sorted by severity, paged, an alert opened and
// left, and more events arrive while the page is open: the "N new alerts — show" bar appears and the
// list is not read again until it is clicked; the dashboard follows a burst of alerts with a few
// reads of its figures. Each step prints how long the table took to show; there
// are no timed assertions (the numbers are for docs/ui.md), only that each step shows the right rows.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page, Request } from 'playwright-core';
import { adminApi, ADMIN_PASSWORD, browserMissing, openPage, screenshot, sendEvents, startServer, waitUntil, type BrowserPage, type PageProblems, type RunningServer } from './browser.js';

const missing = browserMissing();

/** SCALE_ALERTS=5000 gives a quick run of the same steps while working on the test (a multiple of 500). */
const ALERTS = Number(process.env.SCALE_ALERTS ?? 100_000);
const BATCH = 5_000;
const LEVELS = ['critical', 'high', 'medium', 'low', 'informational'] as const;

/** Event i: one of the five kinds (so one rule matches it), a host, a user and an address that repeat. */
function event(i: number): Record<string, unknown> {
  return {
    Kind: LEVELS[i % LEVELS.length],
    Seq: i,
    Computer: `host-${String(i % 500).padStart(3, '0')}`,
    User: `user-${i % 1000}`,
    SourceIp: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
    Message: `scale event ${i}`,
  };
}

const rule = (level: string) => `title: Scale ${level}
status: test
logsource:
  product: scale
detection:
  selection:
    Kind: ${level}
  condition: selection
level: ${level}
`;

describe('web UI: the alert queue at 100,000 alerts', { skip: missing ?? false, timeout: 600_000 }, () => {
  let server: RunningServer;
  let ui: BrowserPage;
  let page: Page;
  let problems: PageProblems;
  let ingestToken = '';
  /** List reads (GET /api/alerts?…) the page made, newest last. */
  const listReads: string[] = [];
  const timings: [string, number][] = [];

  const ingest = async (events: object[]) => (await sendEvents(server.url, 'scale', ingestToken, events)).alerts_created;

  /** Runs a step and records how long it took until `ready` held. */
  async function timed(step: string, action: () => Promise<unknown>, ready: () => Promise<unknown>): Promise<number> {
    const start = performance.now();
    await action();
    await ready();
    const ms = Math.round(performance.now() - start);
    timings.push([step, ms]);
    console.log(`time to table: ${step}: ${ms} ms`);
    return ms;
  }

  /** The list shows this total and this page, and its rows are drawn. */
  async function listShows(total: number, pageNumber: number) {
    await page.getByText(`${total.toLocaleString('en-US')} alerts`, { exact: true }).waitFor();
    const pager = page.getByRole('navigation', { name: 'Pages' });
    await pager.getByText(`of ${Math.ceil(total / 50).toLocaleString('en-US')}`, { exact: true }).waitFor();
    await waitUntil(page, `document.querySelector('nav[aria-label="Pages"] input')?.value === '${pageNumber}'`);
    await waitUntil(page, `document.querySelectorAll('tbody tr[data-alert-id]').length === 50`);
  }

  const rowIds = async () => (await page.evaluate(`[...document.querySelectorAll('tbody tr[data-alert-id]')].map((r) => r.dataset.alertId)`)) as string[];
  const severities = async () => (await page.evaluate(`[...document.querySelectorAll('tbody tr[data-alert-id] td:nth-child(2)')].map((td) => td.textContent.trim())`)) as string[];

  before(async () => {
    server = await startServer();
    const api = await adminApi(server.url);
    ingestToken = (await api.post('/api/index_patterns', { name: 'scale', is_default: true })).ingest_token;
    for (const level of LEVELS) await api.post('/api/rules', { yaml_content: rule(level), deploy: true });

    // Seeding: batches of 5,000 events, two requests at a time.
    const start = performance.now();
    let created = 0;
    const batches = Array.from({ length: ALERTS / BATCH }, (_, b) => Array.from({ length: BATCH }, (_, k) => event(b * BATCH + k)));
    for (let b = 0; b < batches.length; b += 2) created += (await Promise.all(batches.slice(b, b + 2).map(ingest))).reduce((a, n) => a + n, 0);
    const seconds = (performance.now() - start) / 1000;
    console.log(`seeding: ${created} alerts from ${ALERTS} events in ${seconds.toFixed(1)} s (${Math.round(ALERTS / seconds)} events/s)`);
    assert.equal(created, ALERTS);

    ({ page, problems } = ui = await openPage(server, { timeout: 60_000 }));
    page.on('request', (request: Request) => {
      const url = new URL(request.url());
      if (url.pathname === '/api/alerts') listReads.push(url.search);
    });
  });

  after(async () => {
    if (timings.length) console.log(`time to table, all steps: ${timings.map(([s, ms]) => `${s} ${ms} ms`).join('; ')}`);
    await ui?.close();
    await server?.stop();
  });

  test('signs in and shows the first page of 100,000 alerts, newest first', async () => {
    await page.goto(server.url + '/');
    try {
      await page.getByLabel('Username').waitFor();
    } catch (error) {
      await screenshot(page, 'scale-00-no-sign-in');
      console.log('page text:', await page.evaluate('document.body.innerText'), problems.problems);
      throw error;
    }
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await timed(
      'sign in to the first page',
      () => page.getByRole('button', { name: 'Sign in' }).click(),
      () => listShows(ALERTS, 1),
    );
    await timed(
      'reload /alerts',
      () => page.goto(server.url + '/alerts'),
      () => listShows(ALERTS, 1),
    );
    await ui.checkPage('scale-01-alerts');
  });

  test('filters by status and by severity', async () => {
    await timed(
      'status filter (new)',
      () => page.getByLabel('Status').selectOption('new'),
      () => listShows(ALERTS, 1),
    );
    assert.match(page.url(), /status=new/);
    await timed(
      'severity filter (high)',
      () => page.getByLabel('Severity').selectOption('high'),
      () => listShows(ALERTS / 5, 1),
    );
    assert.deepEqual(new Set(await severities()), new Set(['high']));
    await timed(
      'severity filter removed',
      () => page.getByLabel('Severity').selectOption(''),
      () => listShows(ALERTS, 1),
    );
  });

  test('searches the free text', async () => {
    // host-042 is on every 500th event: 200 alerts.
    const hostMatches = ALERTS / 500;
    await page.getByLabel('Search').fill('host-042');
    await timed(
      'search "host-042"',
      () => page.getByRole('button', { name: 'Search', exact: true }).click(),
      async () => {
        await page.getByText(`${hostMatches} alerts`, { exact: true }).waitFor();
        await waitUntil(page, `document.querySelectorAll('tbody tr[data-alert-id]').length === ${Math.min(50, hostMatches)}`);
      },
    );
    const hosts = (await page.evaluate(`[...document.querySelectorAll('tbody tr[data-alert-id] td:nth-child(8) .cell-text')].map((td) => td.textContent)`)) as string[];
    assert.deepEqual(new Set(hosts), new Set(['host-042']));
    await page.getByLabel('Search').fill('');
    await timed(
      'search cleared',
      () => page.getByRole('button', { name: 'Search', exact: true }).click(),
      () => listShows(ALERTS, 1),
    );
  });

  test('sorts by severity and goes to page 2', async () => {
    await timed(
      'sort by severity',
      () => page.getByRole('button', { name: /^Severity/ }).click(),
      async () => {
        await waitUntil(page, `location.search.includes('sort_by=severity')`);
        await listShows(ALERTS, 1);
        await waitUntil(page, `[...document.querySelectorAll('tbody tr[data-alert-id] td:nth-child(2)')].every((td) => td.textContent.trim() === 'critical')`);
      },
    );
    const firstPage = await rowIds();
    await timed(
      'page 2',
      () => page.getByRole('button', { name: 'Next' }).click(),
      async () => {
        await listShows(ALERTS, 2);
        await waitUntil(page, `document.querySelector('tbody tr[data-alert-id]').dataset.alertId !== ${JSON.stringify(firstPage[0])}`);
      },
    );
    const secondPage = await rowIds();
    assert.equal(secondPage.filter((id) => firstPage.includes(id)).length, 0, 'page 2 shows other alerts');
    assert.deepEqual(new Set(await severities()), new Set(['critical']));
    assert.match(page.url(), /page=2/);
    await ui.checkPage('scale-02-severity-page-2');
  });

  test('opens an alert and comes back to the same page', async () => {
    const ids = await rowIds();
    await timed(
      'open an alert',
      () => page.locator('tbody tr').nth(3).getByRole('link').click(),
      () => page.getByRole('heading', { name: 'Scale critical' }).waitFor(),
    );
    assert.match(page.url(), new RegExp(`/alerts/${ids[3]}$`));
    await timed(
      'back to the list',
      () => page.goBack(),
      async () => {
        await listShows(ALERTS, 2);
        await waitUntil(page, `document.querySelector('tbody tr[data-alert-id]').dataset.alertId === ${JSON.stringify(ids[0])}`);
      },
    );
    assert.deepEqual(await rowIds(), ids);
  });

  test('announces alerts arriving while the page is open without reading the list again', async () => {
    const ids = await rowIds();
    const readsBefore = listReads.length;
    // Seven events: seven alerts (status new passes the filter in use).
    assert.equal(await ingest(Array.from({ length: 7 }, (_, k) => event(ALERTS + k))), 7);
    await timed(
      'live arrivals announced',
      async () => undefined,
      () => page.getByRole('button', { name: '7 new alerts — show' }).waitFor(),
    );
    assert.equal(listReads.length, readsBefore, `the list was read again: ${listReads.slice(readsBefore).join(', ')}`);
    assert.deepEqual(await rowIds(), ids, 'the rows under the cursor stay');
    await ui.checkPage('scale-03-new-alerts-bar');
    await timed(
      'show the new alerts',
      () => page.getByRole('button', { name: '7 new alerts — show' }).click(),
      () => listShows(ALERTS + 7, 1),
    );
    assert.ok(listReads.length > readsBefore, 'the click reads the list');
    assert.equal(await page.getByRole('button', { name: /new alerts? — show/ }).count(), 0);
  });

  test('the dashboard shows the figures and the ingest rate at this volume', async () => {
    await timed(
      'dashboard',
      () => page.getByRole('link', { name: 'Dashboard' }).click(),
      () => page.getByRole('img', { name: new RegExp(`^Events received per hour over the last 24 hours: ${(ALERTS + 7).toLocaleString('en-US')} in all`) }).waitFor(),
    );
    await page.locator('.figure', { hasText: 'Alerts in total' }).getByText((ALERTS + 7).toLocaleString('en-US'), { exact: true }).waitFor();
    // The shift figures: the open alerts per assignee (all unassigned here) and the oldest open alert.
    await page.getByRole('table', { name: 'Open alerts per assignee' }).getByRole('link', { name: 'Unassigned' }).waitFor();
    await page.locator('.figure', { hasText: 'Oldest open alert' }).waitFor();
    await ui.checkPage('scale-04-dashboard');
  });

  test('the open dashboard follows a burst of 5,000 alerts reading its figures at most once per two seconds', async () => {
    const statsReads: string[] = [];
    const count = (request: Request) => {
      if (new URL(request.url()).pathname === '/api/stats') statsReads.push(request.url());
    };
    page.on('request', count);
    const start = performance.now();
    assert.equal(await ingest(Array.from({ length: BATCH }, (_, k) => event(ALERTS + 7 + k))), BATCH);
    await page.locator('.figure', { hasText: 'Alerts in total' }).getByText((ALERTS + 7 + BATCH).toLocaleString('en-US'), { exact: true }).waitFor();
    page.off('request', count);
    const elapsed = performance.now() - start;
    console.log(`dashboard: ${BATCH} alerts followed in ${Math.round(elapsed)} ms with ${statsReads.length} reads of /api/stats`);
    // The page waits two seconds after a change before it reads again, so it can have read at most
    // once per two seconds of the burst (plus the read under way when it began).
    assert.ok(statsReads.length >= 1, 'the figures were read again');
    assert.ok(statsReads.length <= Math.floor(elapsed / 2000) + 2, `${statsReads.length} reads of /api/stats in ${Math.round(elapsed)} ms`);
  });
});

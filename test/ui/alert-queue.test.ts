// The alert queue in a real browser against a real server: the event-time column (short text, the ISO
// time on hover, the full time for screen readers), sorting by event time, the event-time filter
// (presets and absolute From/To), the histogram above the table (bars from GET /api/alerts/histogram,
// a bar narrowing the list), compact one-line rows at 1280×800 (20 or more visible, long values cut with
// the whole text on hover), the column chooser kept over a reload, filters from a cell's value (button
// and Alt+click; the rule's link still opens the alert), the host/user/source IP/index pattern filters,
// the pager's first/last/go-to-page, the place kept when an alert is opened and left (cursor row,
// selection, filters and page), j/k after clicks, and the shortcuts dialog (? opens, Escape closes).
// Every state passes checkPage (axe, CSP, console, screenshot).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { adminApi, ADMIN_PASSWORD, browserMissing, openConsole, sendEvents, signIn, waitUntil, type AdminApi, type ConsoleSession, type RunningServer } from './browser.js';

const missing = browserMissing();
const HOUR = 3600_000;
const NOW = Date.now();
const LONG_USER = 'svc-' + 'very-long-service-account-name-'.repeat(4) + 'end';

const rule = (level: string) => `title: Queue ${level}
status: test
logsource:
  product: queue
detection:
  selection:
    Kind: ${level}
  condition: selection
level: ${level}
`;

/**
 * 120 alerts: 100 high ones whose events happened over the last 50 hours (one every 30 minutes, on
 * hosts ws-0..ws-4), 20 low ones ten days ago (host db-01); one high alert carries a very long user.
 */
const EVENTS = [
  ...Array.from({ length: 100 }, (_, i) => ({
    Kind: 'high',
    '@timestamp': new Date(NOW - i * 30 * 60_000 - 60_000).toISOString(),
    Computer: `ws-${i % 5}`,
    User: i === 7 ? LONG_USER : `user-${i % 4}`,
    SourceIp: `10.1.0.${i % 7}`,
    Seq: i,
  })),
  ...Array.from({ length: 20 }, (_, i) => ({ Kind: 'low', '@timestamp': new Date(NOW - 10 * 24 * HOUR - i * 60_000).toISOString(), Computer: 'db-01', User: 'svc', Seq: 200 + i })),
];

interface Listed {
  items: { id: string; event_time: string; host?: string; user?: string }[];
  total: number;
}

describe('the alert queue in a browser', { skip: missing ?? false, timeout: 400_000 }, () => {
  let ui: ConsoleSession, server: RunningServer, page: Page;
  let api: AdminApi;

  const rows = () => page.locator('tbody tr[data-alert-id]');
  const rowIds = async () => (await page.evaluate('[...document.querySelectorAll("tbody tr[data-alert-id]")].map((r) => r.dataset.alertId)')) as string[];
  const rowCountIs = (n: number) => waitUntil(page, `document.querySelectorAll("tbody tr[data-alert-id]").length === ${n}`);
  const activeRow = async () => (await page.evaluate('document.activeElement?.closest("tr")?.getAttribute("data-alert-id") ?? null')) as string | null;
  const headerTexts = async () => (await page.evaluate('[...document.querySelectorAll("thead th")].map((th) => th.textContent.trim())')) as string[];

  before(async () => {
    ({ server, page } = ui = await openConsole({ timeout: 60_000 }));
    api = await adminApi(server.url);
    const token = (await api.post('/api/index_patterns', { name: 'queue', is_default: true })).ingest_token;
    for (const level of ['high', 'low']) await api.post('/api/rules', { yaml_content: rule(level), deploy: true });
    assert.equal((await sendEvents(server.url, 'queue', token, EVENTS)).alerts_created, EVENTS.length);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(server.url + '/');
    await signIn(page, 'admin', ADMIN_PASSWORD);
  });
  after(() => ui?.close());

  test('event time: a column with the ISO time on hover, sorting, presets and an absolute range', async () => {
    await page.goto(`${server.url}/alerts`);
    await rowCountIs(50);
    assert.ok((await headerTexts()).includes('Event time'));
    const newest = await api.get<Listed>('/api/alerts?page_size=1');
    const cell = rows().first().locator('td.col-event_time time, td time').first();
    assert.equal(await cell.getAttribute('title'), newest.items[0].event_time, 'the exact ISO time on hover');
    assert.equal(await cell.getAttribute('datetime'), newest.items[0].event_time);
    assert.match((await cell.locator('.visually-hidden').textContent())!, /\d{2}:\d{2}:\d{2}/, 'the full time for screen readers');
    await ui.checkPage('90-queue-event-time');

    await page.getByRole('button', { name: /^Event time/ }).click();
    await page.waitForURL(/sort_by=event_time&sort_order=desc/);
    const byEvent = await api.get<Listed>('/api/alerts?sort_by=event_time&sort_order=desc&page_size=50');
    await waitUntil(page, `document.querySelector("tbody tr[data-alert-id]")?.dataset.alertId === ${JSON.stringify(byEvent.items[0].id)}`);
    await page.getByRole('button', { name: /^Event time/ }).click();
    await page.waitForURL(/sort_order=asc/);
    const oldest = await api.get<Listed>('/api/alerts?sort_by=event_time&sort_order=asc&page_size=1');
    await waitUntil(page, `document.querySelector("tbody tr[data-alert-id]")?.dataset.alertId === ${JSON.stringify(oldest.items[0].id)}`);
    assert.equal(await page.locator('th[aria-sort="ascending"]').textContent(), 'Event time ▲');

    await page.getByLabel('Event time range').selectOption('24h');
    await page.waitForURL(/range=24h/);
    await page.getByText('48 alerts', { exact: true }).waitFor();
    await page.getByLabel('Event time range').selectOption('7d');
    await page.getByText('100 alerts', { exact: true }).waitFor();

    // An absolute range, typed as local times: the ten hours from 30 to 20 hours ago.
    const local = (ms: number) => {
      const d = new Date(ms);
      const pad = (n: number) => String(n).padStart(2, '0');
      return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
    };
    const from = Math.floor((NOW - 30 * HOUR) / 60_000) * 60_000;
    const to = Math.floor((NOW - 20 * HOUR) / 60_000) * 60_000;
    await page.getByLabel('From', { exact: true }).fill(local(from));
    await page.waitForURL(/event_after=/);
    assert.doesNotMatch(page.url(), /range=/, 'a typed bound replaces the preset');
    await page.getByLabel('To', { exact: true }).fill(local(to));
    await page.waitForURL(/event_before=/);
    const expected = await api.get<Listed>(`/api/alerts?event_after=${new Date(from).toISOString()}&event_before=${new Date(to).toISOString()}`);
    assert.equal(expected.total, 20);
    await page.getByText('20 alerts', { exact: true }).waitFor();
    await rowCountIs(20);
    assert.equal(await page.getByLabel('Event time range').inputValue(), 'custom');
    await ui.checkPage('91-queue-event-range');
    await page.reload();
    await rowCountIs(20);
    assert.equal(await page.getByLabel('From', { exact: true }).inputValue(), local(from), 'the range is kept in the URL');
  });

  test('the histogram counts the filtered alerts over event time; a bar narrows the list', async () => {
    await page.goto(`${server.url}/alerts?range=7d`);
    const chart = page.getByRole('img', { name: /^100 alerts by event time/ });
    await chart.waitFor();
    const bars = await page.evaluate('[...document.querySelectorAll(".histogram rect.bar")].map((r) => [r.getAttribute("height"), r.querySelector("title").textContent])') as [string, string][];
    assert.ok(bars.length > 10 && bars.length <= 60, `${bars.length} bars`);
    const counted = bars.reduce((sum, [, title]) => sum + Number(/: ([\d,]+) alert/.exec(title)![1].replace(/,/g, '')), 0);
    assert.equal(counted, 100, 'the bars hold every alert of the range');
    assert.equal(await page.locator('.histogram [style]').count(), 0, 'no inline style');
    await ui.checkPage('92-queue-histogram');

    // The chart follows the filters.
    await page.getByLabel('Host', { exact: true }).fill('ws-1');
    await page.getByLabel('Host', { exact: true }).press('Enter');
    await page.waitForURL(/host=ws-1/);
    await page.getByRole('img', { name: /^20 alerts by event time/ }).waitFor();

    // The last bar with alerts: the list shows exactly its alerts.
    const last = page.locator('.histogram rect.bar:not(.empty)').last();
    const title = (await last.locator('title').textContent())!;
    const inBar = Number(/: (\d+) alert/.exec(title)![1]);
    await last.click();
    await page.waitForURL(/event_before=/);
    await page.getByText(`${inBar} alert${inBar === 1 ? '' : 's'}`, { exact: true }).waitFor();
    await rowCountIs(inBar);
  });

  test('compact rows: 20 or more one-line rows visible at 1280×800; long values cut, whole on hover', async () => {
    await page.goto(`${server.url}/alerts`);
    await rowCountIs(50);
    const geometry = (await page.evaluate(`(() => {
      const rows = [...document.querySelectorAll('tbody tr[data-alert-id]')];
      return { visible: rows.filter((r) => r.getBoundingClientRect().bottom <= window.innerHeight).length, tallest: Math.max(...rows.map((r) => r.getBoundingClientRect().height)), scrollX: document.documentElement.scrollWidth > window.innerWidth };
    })()`)) as { visible: number; tallest: number; scrollX: boolean };
    assert.ok(geometry.visible >= 20, `${geometry.visible} rows visible`);
    assert.ok(geometry.tallest <= 30, `rows are one line (${geometry.tallest} px)`);
    await ui.checkPage('93-queue-compact');

    await page.goto(`${server.url}/alerts?user=${encodeURIComponent(LONG_USER)}`);
    await rowCountIs(1);
    const user = rows().first().locator(`.cell-text[title="${LONG_USER}"]`);
    assert.equal(await user.textContent(), LONG_USER);
    assert.ok(await user.evaluate((el) => el.scrollWidth > el.clientWidth), 'the long user is cut with an ellipsis');
  });

  test('the column chooser hides and shows columns, kept over a reload', async () => {
    await page.goto(`${server.url}/alerts`);
    await rowCountIs(50);
    await page.getByText('Columns', { exact: true }).click();
    const chooser = page.getByRole('group', { name: 'Columns shown' });
    await chooser.getByLabel('Source IP').uncheck();
    await chooser.getByLabel('Index pattern').check();
    await waitUntil(page, '![...document.querySelectorAll("thead th")].some((th) => th.textContent.startsWith("Source IP"))');
    assert.ok((await headerTexts()).includes('Index pattern'));
    await ui.checkPage('94-queue-columns');
    await page.reload();
    await rowCountIs(50);
    let headers = await headerTexts();
    assert.ok(!headers.some((h) => h.startsWith('Source IP')) && headers.includes('Index pattern'), `kept: ${headers.join(', ')}`);
    await page.getByText('Columns', { exact: true }).click();
    await page.getByRole('button', { name: 'Default columns' }).click();
    await waitUntil(page, '[...document.querySelectorAll("thead th")].some((th) => th.textContent.startsWith("Source IP"))');
    headers = await headerTexts();
    assert.ok(!headers.includes('Index pattern'));
    await page.getByText('Columns', { exact: true }).click();
  });

  test('filters from a cell: the button, Alt+click, and the visible entity filters; the rule link still opens', async () => {
    await page.goto(`${server.url}/alerts?severity=high`);
    await rowCountIs(50);
    const first = rows().first();
    const host = (await first.locator('td').filter({ has: page.getByRole('button', { name: /^Only alerts with host / }) }).locator('.cell-text').textContent())!;
    await first.hover();
    await first.getByRole('button', { name: `Only alerts with host ${host}` }).click();
    await page.waitForURL(new RegExp(`host=${host}`));
    await rowCountIs(20);
    assert.equal(await page.getByLabel('Host', { exact: true }).inputValue(), host, 'the filter box shows the value');
    await ui.checkPage('95-queue-pivot');

    const user = (await rows().first().locator('td').filter({ has: page.getByRole('button', { name: /^Only alerts with user / }) }).locator('.cell-text').textContent())!;
    await rows().first().locator('td').filter({ has: page.getByRole('button', { name: /^Only alerts with user / }) }).click({ modifiers: ['Alt'] });
    await page.waitForURL(new RegExp(`user=${user}`));
    const expected = await api.get<Listed>(`/api/alerts?severity=high&host=${host}&user=${user}`);
    await page.getByText(`${expected.total} alert${expected.total === 1 ? '' : 's'}`, { exact: true }).waitFor();

    // The visible filters: a source IP typed, then an index pattern.
    await page.goto(`${server.url}/alerts`);
    await page.getByLabel('Source IP', { exact: true }).fill('10.1.0.3');
    await page.getByLabel('Index pattern', { exact: true }).fill('queue');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL(/source_ip=10.1.0.3/);
    assert.match(page.url(), /index_pattern=queue/);
    const byIp = await api.get<Listed>('/api/alerts?source_ip=10.1.0.3&index_pattern=queue');
    await page.getByText(`${byIp.total} alerts`, { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByText('120 alerts', { exact: true }).waitFor();

    // The rule's own link opens the alert.
    const id = (await rows().first().getAttribute('data-alert-id'))!;
    await rows().first().getByRole('link').click();
    await page.waitForURL(new RegExp(`/alerts/${id}$`));
  });

  test('the pager goes to the last page, the first, and a page typed', async () => {
    await page.goto(`${server.url}/alerts`);
    await rowCountIs(50);
    const pager = page.getByRole('navigation', { name: 'Pages' });
    await pager.getByText('of 3', { exact: true }).waitFor();
    await pager.getByRole('button', { name: 'Last' }).click();
    await page.waitForURL(/page=3/);
    await rowCountIs(20);
    await ui.checkPage('96-queue-last-page');
    await pager.getByRole('button', { name: 'First' }).click();
    await page.waitForURL((url) => !url.search.includes('page='));
    await rowCountIs(50);
    await pager.getByLabel('Page').fill('2');
    await pager.getByRole('button', { name: 'Go' }).click();
    await page.waitForURL(/page=2/);
    await rowCountIs(50);
  });

  test('the place is kept: back from an alert finds the filters, page, cursor row and selection', async () => {
    await page.goto(`${server.url}/alerts?severity=high&page=2`);
    await rowCountIs(50);
    const ids = await rowIds();
    await rows().nth(1).getByRole('checkbox').check();
    await rows().nth(4).getByRole('checkbox').check();
    // j works right after a click on a checkbox.
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    assert.equal(await activeRow(), ids[6]);
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`/alerts/${ids[6]}$`));
    await page.getByRole('heading', { name: 'Queue high' }).waitFor();

    await page.goBack();
    await page.waitForURL(/severity=high&page=2$/);
    await waitUntil(page, `document.activeElement?.dataset?.alertId === ${JSON.stringify(ids[6])}`);
    assert.ok(await rows().nth(1).getByRole('checkbox').isChecked());
    assert.ok(await rows().nth(4).getByRole('checkbox').isChecked());
    assert.equal(await page.locator('tbody tr.cursor').getAttribute('data-alert-id'), ids[6]);
    await page.getByRole('form', { name: 'Change the selected alerts' }).getByText('2 selected').waitFor();
    await page.keyboard.press('k');
    assert.equal(await activeRow(), ids[5]);
    await ui.checkPage('97-queue-place-kept');

    // The alert's own "← Alerts" link returns to the same list and place too.
    await page.keyboard.press('o');
    await page.waitForURL(new RegExp(`/alerts/${ids[5]}$`));
    await page.getByRole('link', { name: '← Alerts' }).click();
    await page.waitForURL(/\/alerts\?severity=high&page=2$/);
    await waitUntil(page, `document.activeElement?.dataset?.alertId === ${JSON.stringify(ids[5])}`);
    assert.ok(await rows().nth(4).getByRole('checkbox').isChecked());
  });

  test('j/k work after clicks anywhere; ? opens the shortcuts, Escape closes them', async () => {
    await page.goto(`${server.url}/alerts?severity=high`);
    await rowCountIs(50);
    const ids = await rowIds();
    await page.getByRole('button', { name: /^Rule/ }).click();
    await page.waitForURL(/sort_by=rule_title/);
    await page.keyboard.press('j');
    assert.ok(await activeRow(), 'a sort button clicked, then j: a row has the focus');
    await page.locator('.histogram svg').click({ position: { x: 2, y: 2 } }).catch(() => undefined);
    await page.goto(`${server.url}/alerts?severity=high`);
    await rowCountIs(50);
    await rows().nth(3).locator('td').nth(2).click();
    await page.keyboard.press('j');
    assert.equal(await activeRow(), ids[4], 'a row clicked, then j: the next row');
    await page.getByRole('heading', { name: 'Alerts' }).click();
    await page.keyboard.press('k');
    assert.equal(await activeRow(), ids[3], 'the page clicked, then k: the row before');
    // A list just chosen from: j still moves (no status starts with j), and the choice stays.
    await page.getByLabel('Status').selectOption('new');
    await page.waitForURL(/status=new/);
    await rowCountIs(50);
    await page.getByLabel('Status').focus();
    await page.keyboard.press('j');
    assert.ok(await activeRow(), 'a list chosen from, then j: a row has the focus');
    assert.equal(await page.getByLabel('Status').inputValue(), 'new');
    // Typing in a text box is not navigation.
    await page.getByLabel('Search').fill('j');
    await page.getByLabel('Search').press('j');
    assert.equal(await page.getByLabel('Search').inputValue(), 'jj');
    await page.getByLabel('Search').fill('');

    await rows().nth(2).click();
    await page.keyboard.press('?');
    const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await dialog.waitFor();
    await dialog.getByText('Select or unselect the alert under the cursor').waitFor();
    await ui.checkPage('98-queue-shortcuts');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    assert.equal(await activeRow(), ids[2], 'the focus returns to the row');
    await page.keyboard.press('j');
    assert.equal(await activeRow(), ids[3]);
    await page.getByRole('button', { name: /^Shortcuts/ }).click();
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'hidden' });
  });
});

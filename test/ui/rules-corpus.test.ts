// The rules page with the whole SigmaHQ corpus imported (every folder: about 4,000 rule files), in a real browser against a
// real server: the list, a text search, a severity filter, the last page and a sort are all answered by
// the server page by page and kept in the URL. The time from each action to the table showing its answer
// is printed (measured, not asserted); the page passes the usual checks (no console error, no CSP
// violation, no serious or critical axe finding).
// Reads the shared corpus.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { zipSync } from 'fflate';
import type { Page } from 'playwright-core';
import { rulesRoot, yamlFiles } from '../sigma/corpus-helpers.js';
import { adminApi, ADMIN_PASSWORD, browserMissing, openPage, signIn, startServer, type BrowserPage, type RunningServer } from './browser.js';

const missing = browserMissing();

/** Signs in through the API and imports every rule file of the corpus (all its folders) as one zip, not deployed. */
async function importCorpus(url: string): Promise<{ files: number; created: number; failed: number; seconds: number }> {
  const api = await adminApi(url);
  const files: Record<string, Uint8Array> = {};
  for (const path of yamlFiles(rulesRoot)) files[relative(rulesRoot, path)] = readFileSync(path);
  const started = performance.now();
  const res = await api.raw('/api/rules/import', {
    method: 'POST',
    headers: { 'content-type': 'application/zip' },
    body: Buffer.from(zipSync(files, { level: 1 })),
  });
  const text = await res.text();
  assert.equal(res.status, 200, text.slice(0, 500));
  const answer = JSON.parse(text) as { created: number; failed: unknown[] };
  return { files: Object.keys(files).length, created: answer.created, failed: answer.failed.length, seconds: (performance.now() - started) / 1000 };
}

describe('rules page with the SigmaHQ corpus', { skip: missing ?? false }, () => {
  let server: RunningServer;
  let ui: BrowserPage;
  let page: Page;
  let imported = 0;
  const timings: string[] = [];

  before(async () => {
    server = await startServer();
    const result = await importCorpus(server.url);
    imported = result.created;
    console.log(`imported ${result.created} of ${result.files} corpus rule files (${result.failed} refused) in ${result.seconds.toFixed(1)} s`);
    ({ page } = ui = await openPage(server, { timeout: 60_000 }));
    await page.goto(server.url + '/');
    await signIn(page, 'admin', ADMIN_PASSWORD);
  });

  after(async () => {
    if (timings.length) console.log(`rules page with ${imported} rules, time to table:\n  ${timings.join('\n  ')}`);
    await ui?.close();
    await server?.stop();
  });

  /** The table's state as the page shows it: loading or not, the rows and the total. */
  async function table(): Promise<{ busy: boolean; rows: number; total: number; url: string; titles: string[]; severities: string[] }> {
    return (await page.evaluate(`(() => {
      const wrap = document.querySelector('.table-wrap');
      const rows = [...document.querySelectorAll('.table-wrap tbody tr')];
      const total = Number((document.querySelector('.page-head .muted')?.textContent ?? '').replace(/[^0-9]/g, '')) || 0;
      return {
        busy: !wrap || wrap.getAttribute('aria-busy') === 'true',
        rows: rows.length,
        total,
        url: location.pathname + location.search,
        titles: rows.map((r) => r.querySelector('td a')?.textContent ?? ''),
        severities: rows.map((r) => r.querySelector('.badge')?.textContent ?? ''),
      };
    })()`)) as Awaited<ReturnType<typeof table>>;
  }

  /** Runs an action and measures until the table shows an answer for which `done` holds (polled every 10 ms). */
  async function timed(step: string, action: () => Promise<unknown>, done: (t: Awaited<ReturnType<typeof table>>) => boolean) {
    const started = performance.now();
    await action();
    const deadline = Date.now() + 60_000;
    let state = await table();
    while (state.busy || !done(state)) {
      if (Date.now() > deadline) throw new Error(`${step}: the table did not show the answer: ${JSON.stringify(state).slice(0, 500)}`);
      await new Promise((r) => setTimeout(r, 10));
      state = await table();
    }
    const ms = performance.now() - started;
    timings.push(`${step.padEnd(44)} ${ms.toFixed(0).padStart(6)} ms  (${state.rows} rows of ${state.total.toLocaleString('en')})`);
    return state;
  }

  test('lists, searches, filters, pages to the end and sorts the whole corpus on the server', async () => {
    assert.ok(imported > 3500, `the corpus gave ${imported} rules`);
    let state = await timed('open /rules', () => page.getByRole('link', { name: 'Rules', exact: true }).click(), (t) => t.url.startsWith('/rules') && t.rows === 50);
    assert.equal(state.total, imported);

    state = await timed(
      'search "powershell"',
      async () => {
        await page.getByRole('searchbox', { name: 'Search' }).fill('powershell');
        await page.getByRole('button', { name: 'Search' }).click();
      },
      (t) => t.url.includes('q=powershell') && t.total < imported,
    );
    assert.ok(state.total > 50, `a common word matches many rules (${state.total})`);
    assert.ok(state.rows === 50);

    state = await timed('severity high (with the search)', async () => void (await page.getByLabel('Severity').selectOption('high')), (t) => t.url.includes('severity=high'));
    assert.ok(state.rows > 0 && state.severities.every((s) => s === 'high'), JSON.stringify(state.severities));
    const filtered = state.total;
    const { total: withTag } = await timed(
      'tag attack.t1059.001 (with both)',
      async () => {
        await page.getByLabel('Tag', { exact: true }).fill('attack.t1059.001');
        await page.getByRole('button', { name: 'Search' }).click();
      },
      (t) => t.url.includes('tag=attack.t1059.001'),
    );
    assert.ok(withTag > 0 && withTag < filtered, `the tag narrows the list (${withTag} of ${filtered})`);
    await page.getByLabel('Tag', { exact: true }).fill('');
    await timed('tag cleared', () => page.getByRole('button', { name: 'Search' }).click(), (t) => !t.url.includes('tag=') && t.total === filtered);
    await page.reload();
    state = await timed('reload with the filters in the URL', async () => {}, (t) => t.rows > 0);
    assert.equal(state.total, filtered);
    assert.equal(await page.getByRole('searchbox', { name: 'Search' }).inputValue(), 'powershell');
    await ui.checkPage('30-rules-corpus-filtered');

    state = await timed('clear the filters', () => page.goto(server.url + '/rules').then(() => undefined), (t) => t.total === imported);
    const pages = Math.ceil(imported / 50);
    state = await timed('last page', () => page.getByRole('button', { name: 'Last' }).click(), (t) => t.url.includes(`page=${pages}`));
    assert.equal(state.rows, imported - (pages - 1) * 50);
    assert.equal(await page.getByLabel('Page', { exact: true }).inputValue(), String(pages));

    state = await timed('sort by title (from the last page)', () => page.getByRole('button', { name: 'Title' }).click(), (t) => t.url.includes('sort_by=title') && !t.url.includes('page='));
    // Descending by title (first letters only: the database's collation orders punctuation its own way).
    const initials = state.titles.map((t) => t.toLowerCase().replace(/[^a-z]/g, '').charAt(0));
    assert.deepEqual(initials, [...initials].sort().reverse(), JSON.stringify(state.titles));

    state = await timed('go to page 40', async () => {
      await page.getByLabel('Page', { exact: true }).fill('40');
      await page.getByRole('button', { name: 'Go' }).click();
    }, (t) => t.url.includes('page=40'));
    assert.equal(state.rows, 50);

    state = await timed('100 per page', async () => void (await page.getByLabel('Per page').selectOption('100')), (t) => t.url.includes('page_size=100') && t.rows === 100);
    await ui.checkPage('31-rules-corpus-sorted');

    // A shared link past the end says so, and Last goes back to the end.
    await page.goto(server.url + '/rules?page=999');
    await page.getByText(`Page 999 is past the last page (${pages}).`).waitFor();
    state = await timed('last page from past the end', () => page.getByRole('button', { name: 'Last' }).click(), (t) => t.url.includes(`page=${pages}`) && t.rows > 0);
    assert.equal(state.rows, imported - (pages - 1) * 50);
  });
});

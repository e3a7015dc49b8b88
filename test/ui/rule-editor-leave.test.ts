// The rule editor in a real browser: a validation error of a long rule is marked at the line it belongs
// to (a block-scalar description, comments and lists before it), and unsaved YAML is not lost by
// leaving: a link inside the console asks first (staying keeps the text; leaving goes), Back asks too,
// and closing or reloading the page gets the browser's own question (beforeunload). Saved text, an
// untouched new rule and a created rule leave without a question. Each state passes checkPage.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Dialog, Page } from 'playwright-core';
import { ADMIN_PASSWORD, browserMissing, openConsole, signIn, waitUntil, type ConsoleSession, type RunningServer } from './browser.js';

const missing = browserMissing();

/** A rule whose level is on line 20, after a block scalar, comments, a list and a nested detection. */
const LONG_RULE = `title: Encoded PowerShell
id: 5f3b2a57-3c39-4d8e-9b64-0c3b4d0b9d11
description: |
  PowerShell started with an encoded command,
  which hides what it runs.
# The parent does not matter here.
author: Vigil tests
tags:
  - attack.execution
  - attack.t1059.001
logsource:
  product: windows
  category: process_creation
detection:
  selection:
    Image|endswith: '\\powershell.exe'
    CommandLine|contains:
      - ' -enc '
      - ' -EncodedCommand '
  condition: selection
level: high
`;

/** Each broken rule, the field the server names, and the 1-based line it must be marked at. */
const CASES: { name: string; yaml: string; line: number }[] = [
  { name: 'an unknown level', yaml: LONG_RULE.replace('level: high', 'level: urgent'), line: 21 },
  { name: 'an unknown modifier', yaml: LONG_RULE.replace('CommandLine|contains:', 'CommandLine|containz:'), line: 17 },
  { name: 'a condition naming a missing selection', yaml: LONG_RULE.replace('condition: selection', 'condition: selection and filter'), line: 20 },
  { name: 'a bad tag in the list', yaml: LONG_RULE.replace('  - attack.t1059.001', '  - "not a tag"'), line: 10 },
  { name: 'a character the server refuses (DEL) in the description', yaml: LONG_RULE.replace('which hides what it runs.', 'which hides \u007f what it runs.'), line: 5 },
  {
    name: 'an unknown level in the second document of a collection',
    yaml: `action: global\ntitle: Shared title\nlogsource:\n  product: windows\n---\ndetection:\n  selection:\n    EventID: 1\n  condition: selection\nlevel: urgent\n`,
    line: 10,
  },
  { name: 'a logsource that is not a mapping', yaml: LONG_RULE.replace('logsource:\n  product: windows\n  category: process_creation', 'logsource: windows\n\n'), line: 11 },
];

describe('rule editor: errors at their lines, unsaved text kept', { skip: missing ?? false, timeout: 300_000 }, () => {
  let ui: ConsoleSession, server: RunningServer, page: Page;

  before(async () => {
    ({ server, page } = ui = await openConsole());
    ui.problems.allow(/status of 4(00|22) .*\/api\/rules\/test$/);
    await page.goto(server.url + '/');
    await signIn(page, 'admin', ADMIN_PASSWORD);
  });
  after(() => ui?.close());

  const editor = () => page.getByLabel('Sigma YAML');
  const markedLines = async () => (await page.locator('.yaml-gutter-line.has-error').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-line'))))) as number[];
  const highlightedLines = async () =>
    (await page.locator('.yaml-highlight .yaml-line').evaluateAll((els) => els.flatMap((e, i) => (e.classList.contains('has-error') ? [i + 1] : [])))) as number[];

  for (const c of CASES) {
    test(`${c.name} is marked at line ${c.line}`, async () => {
      if (!page.url().endsWith('/rules/new')) {
        await page.goto(server.url + '/rules/new');
      }
      // From a valid text first, so the marks waited for are those of this case.
      await editor().fill(LONG_RULE);
      await page.getByText('Valid Sigma rule').waitFor();
      await editor().fill(c.yaml);
      await waitUntil(page, `document.querySelectorAll('.yaml-gutter-line.has-error').length > 0 && !document.querySelector('.yaml-editor.stale')`, 10_000);
      await page.locator('#rule-check li').first().waitFor();
      const listed = (await page.locator('#rule-check li').allTextContents()).join(' | ');
      assert.deepEqual(await markedLines(), [c.line], listed);
      assert.deepEqual(await highlightedLines(), [c.line], listed);
      assert.match(listed, new RegExp(`^Line ${c.line}\\b`), listed);
    });
  }

  /** Whether a beforeunload event now would make the browser ask (a handler called preventDefault). */
  const unloadAsks = () => page.evaluate(`(() => { const e = new Event('beforeunload', { cancelable: true }); window.dispatchEvent(e); return e.defaultPrevented; })()`) as Promise<boolean>;

  test('unsaved YAML: a link asks first, staying keeps the text, leaving goes; Back asks too', async () => {
    // Into the editor through the console, so that Back stays in the page.
    await page.goto(server.url + '/rules');
    await page.getByRole('link', { name: 'New rule' }).click();
    await editor().waitFor();
    assert.equal(await unloadAsks(), false, 'the untouched template leaves without a question');
    await editor().fill(LONG_RULE);
    await page.getByText('Valid Sigma rule').waitFor();
    assert.equal(await unloadAsks(), true, 'a reload or a closed tab gets the browser\'s question');

    const questions: string[] = [];
    page.once('dialog', (d: Dialog) => {
      questions.push(d.message());
      void d.dismiss();
    });
    await page.getByRole('link', { name: 'Alerts', exact: true }).click();
    await waitUntil(page, `true`);
    assert.deepEqual(questions, ['The rule has unsaved changes. Leave without saving them?']);
    assert.match(page.url(), /\/rules\/new$/, 'staying keeps the page');
    assert.equal(await editor().inputValue(), LONG_RULE, 'and the text');
    await ui.checkPage('25-rule-editor-unsaved-stay');

    // Back: the browser moves, the console asks, and staying puts the editor's address back.
    const asked = new Promise<void>((resolve) =>
      page.once('dialog', (d: Dialog) => {
        questions.push(d.type());
        void d.dismiss().then(resolve);
      }),
    );
    await page.evaluate('history.back()');
    await asked;
    await waitUntil(page, `location.pathname === '/rules/new'`);
    assert.deepEqual(questions.slice(1), ['confirm']);
    assert.equal(await editor().inputValue(), LONG_RULE);

    page.once('dialog', (d: Dialog) => void d.accept());
    await page.getByRole('link', { name: 'Rules', exact: true }).click();
    await page.waitForURL(/\/rules$/);
    await page.getByRole('link', { name: 'New rule' }).waitFor();
  });

  test('saved text and a created rule leave without a question; a saved rule edited asks again', async () => {
    await page.goto(server.url + '/rules/new');
    await editor().fill(LONG_RULE);
    await page.getByText('Valid Sigma rule').waitFor();
    let asked = 0;
    const count = (d: Dialog) => {
      asked++;
      void d.accept();
    };
    page.on('dialog', count);
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.waitForURL(/\/rules\/[0-9a-f-]{36}$/);
    await page.getByRole('heading', { name: 'Encoded PowerShell' }).waitFor();
    assert.equal(asked, 0, 'creating moves to the rule without a question');
    assert.equal(await unloadAsks(), false);

    await editor().fill(LONG_RULE.replace('level: high', 'level: medium'));
    assert.equal(await unloadAsks(), true, 'an edit of the saved rule is unsaved again');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText(/Saved as version 2/).waitFor();
    await waitUntil(page, `document.getElementById('rule-yaml').value.includes('level: medium')`);
    // The saved version becomes the editor's baseline when the page has taken the server's answer in.
    const settled = Date.now() + 5_000;
    while ((await unloadAsks()) && Date.now() < settled) await new Promise((r) => setTimeout(r, 100));
    assert.equal(await unloadAsks(), false, 'saved');
    await page.getByRole('link', { name: 'Alerts', exact: true }).click();
    await page.getByRole('heading', { name: 'Alerts' }).waitFor();
    assert.equal(asked, 0);
    page.off('dialog', count);
  });
});

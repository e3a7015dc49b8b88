// The rule editor in a real browser against a real server: the YAML is highlighted (keys, Sigma modifiers,
// strings, numbers, comments), a syntax error typed into it is marked at its line at once (gutter marker,
// line highlight, the message at the end of the line, and in the announced list under the editor), a
// validation error from the server's check (a missing `condition`) is placed at the line it belongs to, and
// fixing either clears it. The problem list moves the caret to the line; Tab indents and Escape then Tab
// leaves. No console error, no CSP violation, no serious or critical axe finding; screenshots in .artifacts/ui/.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { ADMIN_PASSWORD, browserMissing, openConsole, pageRequest, signIn, waitUntil, type ConsoleSession, type RunningServer } from './browser.js';

const missing = browserMissing();

const RULE = `title: Encoded PowerShell
status: test
# a comment line
logsource:
  category: process_creation
  product: windows
detection:
  selection:
    Image|endswith: '\\powershell.exe'
    EventID: 4688
  condition: selection
level: high
`;
const CONDITION_LINE = 11;
const DETECTION_LINE = 7;

describe('rule editor in a browser', { skip: missing ?? false }, () => {
  let ui: ConsoleSession, server: RunningServer, page: Page;
  let savedRuleId = '';

  before(async () => {
    ({ server, page } = ui = await openConsole());
    // The check of a broken rule answers 400 (syntax) or 422 (validation), which the browser logs.
    ui.problems.allow(/status of 4(00|22) .*\/api\/rules\/test$/);
    await page.goto(server.url + '/');
    await signIn(page, 'admin', ADMIN_PASSWORD);
  });
  after(() => ui?.close());

  const editor = () => page.getByLabel('Sigma YAML');
  /** Line numbers of the gutter lines marked as having a problem. */
  const markedLines = async () => (await page.locator('.yaml-gutter-line.has-error').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-line'))))) as number[];
  /** 1-based numbers of the highlighted lines (the copy under the textarea) marked as having a problem. */
  const highlightedLines = async () =>
    (await page.locator('.yaml-highlight .yaml-line').evaluateAll((els) => els.flatMap((e, i) => (e.classList.contains('has-error') ? [i + 1] : [])))) as number[];

  /** Puts the caret at the start of a 1-based line. */
  async function caretAtLine(line: number) {
    await editor().focus();
    await page.evaluate(`(() => {
      const el = document.getElementById('rule-yaml');
      const lines = el.value.split('\\n');
      const at = lines.slice(0, ${line - 1}).reduce((n, l) => n + l.length + 1, 0);
      el.setSelectionRange(at, at);
    })()`);
  }

  test('the YAML is highlighted with classes for keys, modifiers, strings, numbers and comments', async () => {
    await page.getByRole('link', { name: 'Rules', exact: true }).click();
    await page.getByRole('link', { name: 'New rule' }).click();
    await editor().fill(RULE);
    await page.getByText('Valid Sigma rule').waitFor();
    const texts = async (cls: string) => (await page.locator(`.yaml-highlight .${cls}`).allTextContents()) as string[];
    assert.ok((await texts('y-key')).includes('title'));
    assert.ok((await texts('y-key')).includes('Image'));
    assert.deepEqual(await texts('y-modifier'), ['|endswith']);
    assert.ok((await texts('y-string')).includes("'\\powershell.exe'"));
    assert.deepEqual(await texts('y-number'), ['4688']);
    assert.deepEqual(await texts('y-comment'), ['# a comment line']);
    // The highlighted copy holds exactly the text of the textarea, line for line.
    const copy = (await page.locator('.yaml-highlight .yaml-line').allTextContents()) as string[];
    assert.deepEqual(copy, RULE.split('\n'));
    // The textarea grows with its text (no scrollbar of its own), so it stays over the copy.
    const fits = await page.evaluate(`(() => { const a = document.getElementById('rule-yaml'); const h = document.querySelector('.yaml-highlight');
      return a.scrollHeight <= a.clientHeight + 1 && Math.abs(a.getBoundingClientRect().height - h.getBoundingClientRect().height) < 1; })()`);
    assert.equal(fits, true);
    assert.deepEqual(await markedLines(), []);
    await ui.checkPage('20-rule-editor-highlighted');
  });

  test('a bad indentation typed into the editor is marked at its line at once; removing it clears the mark', async () => {
    await caretAtLine(CONDITION_LINE);
    await page.keyboard.type(' ');
    // The local parse places it without waiting for the server.
    await waitUntil(page, `document.querySelectorAll('.yaml-gutter-line.has-error').length > 0`, 2_000);
    assert.deepEqual(await markedLines(), [CONDITION_LINE]);
    assert.deepEqual(await highlightedLines(), [CONDITION_LINE]);
    assert.match((await page.locator('.yaml-line.has-error .yaml-inline-error').textContent())!, /All mapping items must start at the same column/);
    // The character at the reported column (1) is underlined.
    assert.equal(await page.locator('.yaml-line.has-error .yaml-error-at').count(), 1);
    assert.equal(await editor().getAttribute('aria-invalid'), 'true');
    const item = page.locator('#rule-check li').first();
    assert.match((await item.textContent())!, new RegExp(`^Line ${CONDITION_LINE}, column 1: All mapping items`));
    assert.equal(await page.locator('#rule-check').getAttribute('aria-live'), 'polite');
    await ui.checkPage('21-rule-editor-bad-indentation');

    // The error's button puts the caret on its line (the list is reachable with the keyboard).
    await page.getByRole('button', { name: `Line ${CONDITION_LINE}, column 1` }).focus();
    await page.keyboard.press('Enter');
    const caret = (await page.evaluate(`(() => { const el = document.activeElement; return el.id + ':' + (el.value.slice(0, el.selectionStart).split('\\n').length); })()`)) as string;
    assert.equal(caret, `rule-yaml:${CONDITION_LINE}`);

    await page.keyboard.press('Delete');
    await page.getByText('Valid Sigma rule').waitFor();
    assert.deepEqual(await markedLines(), []);
    assert.equal(await editor().inputValue(), RULE);
  });

  test("a validation error of the server's check (no condition) is shown at its line, and typing the fix clears it", async () => {
    await editor().fill(RULE.replace('  condition: selection\n', ''));
    await page.getByText('condition is required').first().waitFor();
    assert.deepEqual(await markedLines(), [DETECTION_LINE]);
    assert.deepEqual(await highlightedLines(), [DETECTION_LINE]);
    assert.match((await page.locator('#rule-check li').first().textContent())!, new RegExp(`^Line ${DETECTION_LINE} detection\\.condition: condition is required`));
    assert.match((await page.locator('.yaml-line.has-error .yaml-inline-error').textContent())!, /condition is required/);
    await ui.checkPage('22-rule-editor-validation-error');

    // Typed back at the end of the detection: Enter keeps the indentation of the line above.
    await caretAtLine(DETECTION_LINE + 3);
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    assert.match(await editor().inputValue(), /4688\n {4}\nlevel/);
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Backspace');
    await page.keyboard.type('condition: selection');
    await page.getByText('Valid Sigma rule').waitFor();
    assert.deepEqual(await markedLines(), []);
    assert.equal(await editor().inputValue(), RULE);
  });

  test('Tab indents inside the editor; Escape then Tab moves on', async () => {
    await caretAtLine(1);
    await page.keyboard.press('Tab');
    assert.match(await editor().inputValue(), /^ {2}title:/);
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Backspace');
    assert.equal(await editor().inputValue(), RULE);
    await page.keyboard.press('Escape');
    await page.keyboard.press('Tab');
    assert.notEqual(await page.evaluate('document.activeElement.id'), 'rule-yaml');
    await page.getByText('Valid Sigma rule').waitFor();
  });

  test('a long rule (3,000 values) is highlighted and checked; its problem list scrolls the editor to the line', async () => {
    const values = Array.from({ length: 3000 }, (_, i) => `      - 'C:\\Tools\\tool-${i}.exe'`).join('\n');
    const long = RULE.replace("    Image|endswith: '\\powershell.exe'", `    Image|endswith:\n${values}`);
    // Set as a paste would set it (typing 100 kB through the page's insertText is slow in any textarea).
    await page.evaluate(`(() => {
      const el = document.getElementById('rule-yaml');
      Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set.call(el, ${JSON.stringify(long)});
      el.dispatchEvent(new Event('input', { bubbles: true }));
    })()`);
    await page.getByText('Valid Sigma rule').waitFor();
    await waitUntil(page, `!document.querySelector('.yaml-editor.stale') && document.querySelectorAll('.yaml-highlight .yaml-line').length === ${long.split('\n').length}`);
    const condition = long.split('\n').findIndex((l) => l.startsWith('  condition:')) + 1;
    assert.ok(condition > 3000);
    // A key typed at the end: the copy catches up and the problem is placed at its line.
    await caretAtLine(condition);
    await page.keyboard.type(' ');
    await waitUntil(page, `document.querySelectorAll('.yaml-gutter-line.has-error').length > 0 && !document.querySelector('.yaml-editor.stale')`, 10_000);
    assert.deepEqual(await markedLines(), [condition]);
    await page.evaluate(`document.querySelector('.yaml-editor').scrollTop = 0`);
    await page.getByRole('button', { name: `Line ${condition}, column 1` }).click();
    assert.ok(((await page.evaluate(`document.querySelector('.yaml-editor').scrollTop`)) as number) > 1000, 'the editor scrolled to the line');
    assert.equal(await page.evaluate('document.activeElement.id'), 'rule-yaml');
    await page.keyboard.press('Delete');
    await page.getByText('Valid Sigma rule').waitFor();
    assert.deepEqual(await markedLines(), []);
  });

  test('a rule with more versions or exceptions than a page lists them 50 at a time', async () => {
    await editor().fill(RULE);
    await page.getByText('Valid Sigma rule').waitFor();
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('heading', { name: 'Encoded PowerShell' }).waitFor();
    const id = page.url().split('/').pop()!;
    savedRuleId = id;
    // 51 more versions through the API, with the page's own session.
    const saved = await page.evaluate(`(async () => {
      const { csrf_token } = await (await fetch('/api/auth/csrf')).json();
      let ok = 0;
      for (let i = 1; i <= 51; i++) {
        const res = await fetch('/api/rules/${id}', { method: 'PUT', headers: { 'content-type': 'application/json', 'x-csrf-token': csrf_token },
          body: JSON.stringify({ yaml_content: ${JSON.stringify(RULE)}.replace('status: test', 'status: test\\ndescription: edit ' + i) }) });
        if (res.ok) ok++;
      }
      return ok;
    })()`);
    assert.equal(saved, 51);
    await page.reload();
    await page.getByRole('tab', { name: 'History' }).click();
    await page.getByText(/^v52 /).waitFor();
    assert.equal(await page.locator('ol.versions > li').count(), 50);
    await page.getByRole('button', { name: 'Show older versions (2 more)' }).click();
    await page.getByText(/^v1 /).waitFor();
    assert.equal(await page.locator('ol.versions > li').count(), 52);
    assert.equal(await page.getByRole('button', { name: /Show older versions/ }).count(), 0);

    // Exceptions: 51 of them are two pages of the Exceptions tab.
    const created = await page.evaluate(`(async () => {
      const { csrf_token } = await (await fetch('/api/auth/csrf')).json();
      let ok = 0;
      for (let i = 1; i <= 51; i++) {
        const res = await fetch('/api/rules/${id}/exceptions', { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': csrf_token },
          body: JSON.stringify({ field: 'User', operator: 'equals', value: 'user-' + i, reason: 'known account ' + i }) });
        if (res.ok) ok++;
      }
      return ok;
    })()`);
    assert.equal(created, 51);
    await page.getByRole('tab', { name: 'Exceptions' }).click();
    await page.getByRole('cell', { name: 'user-50', exact: true }).waitFor();
    assert.equal(await page.locator('[role="tabpanel"] tbody tr').count(), 50);
    await page.getByRole('navigation', { name: 'Exception pages' }).getByRole('button', { name: 'Next' }).click();
    await page.getByRole('cell', { name: 'user-51', exact: true }).waitFor();
    assert.equal(await page.locator('[role="tabpanel"] tbody tr').count(), 1);
    await page.getByRole('button', { name: 'Delete' }).last().click();
    await page.getByRole('cell', { name: 'user-50', exact: true }).waitFor();
    await ui.checkPage('24-rule-exceptions-paged');
    await page.goto(server.url + '/rules/new');
  });

  test('the editor in the dark theme, with an error, passes the same checks', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await editor().fill(RULE.replace('  condition:', '   condition:'));
    await waitUntil(page, `document.querySelectorAll('.yaml-gutter-line.has-error').length > 0`, 2_000);
    assert.deepEqual(await markedLines(), [CONDITION_LINE]);
    await ui.checkPage('23-rule-editor-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  test('a viewer reads the rule highlighted, without editing, checking or a trapped Tab', async () => {
    const made = await pageRequest(page, 'POST', '/api/users', { username: 'reader', password: 'reader-password-123', role: 'viewer' });
    assert.equal(made.status, 201);
    await page.getByRole('button', { name: 'Log out' }).click();
    await signIn(page, 'reader', 'reader-password-123');
    await page.goto(`${server.url}/rules/${savedRuleId}`);
    await page.getByRole('heading', { name: 'Encoded PowerShell' }).waitFor();
    assert.equal(await editor().getAttribute('readonly'), '');
    assert.ok((await page.locator('.yaml-highlight .y-key').count()) > 5);
    assert.equal(await page.getByRole('button', { name: 'Save', exact: true }).count(), 0);
    await editor().focus();
    await page.keyboard.press('Tab');
    assert.notEqual(await page.evaluate('document.activeElement.id'), 'rule-yaml');
    // Past the check's half second after the last change: no check was asked for.
    await page.waitForTimeout(1_000);
    assert.equal(await page.evaluate(`performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/api/rules/test')).length`), 0);
    await ui.checkPage('25-rule-viewer');
  });
});

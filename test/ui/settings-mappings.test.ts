// Settings → an index pattern's field mappings in a real browser against a real server: create a
// pattern, ingest events with its token, read the field catalogue and filter it, map a catalogue field
// in one click, see the API's validation error at its row, apply a preset and see what it maps, save,
// reload and find it all kept; a viewer reads the same page without any way to change it. Every page
// is checked for console errors, CSP violations and serious/critical accessibility findings;
// screenshots go to .artifacts/ui/.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { ADMIN_PASSWORD, browserMissing, openConsole, pageRequest, sendEvents, signIn, waitUntil, type ConsoleSession, type PageProblems, type RunningServer } from './browser.js';

const missing = browserMissing();
const VIEWER_PASSWORD = 'viewer-password-for-ui-tests';

const EVENTS = [
  {
    '@timestamp': '2026-01-01T10:00:00Z',
    event: { code: '1' },
    process: { executable: 'C:\\Windows\\System32\\whoami.exe', command_line: 'whoami /all' },
    user: { name: 'alice' },
  },
  {
    '@timestamp': '2026-01-01T10:01:00Z',
    event: { code: '1' },
    process: { executable: 'C:\\Windows\\System32\\cmd.exe', command_line: 'cmd /c dir' },
    user: { name: 'bob' },
  },
];

const LINUX_RULE = `title: Root whoami
status: test
logsource:
  product: linux
  category: process_creation
detection:
  selection:
    CommandLine|contains: whoami
    User: root
  condition: selection
level: low
`;

describe('field mappings and the field catalogue in a browser', { skip: missing ?? false }, () => {
  let ui: ConsoleSession, server: RunningServer, page: Page, problems: PageProblems;
  before(async () => ({ server, page, problems } = ui = await openConsole()));
  after(() => ui?.close());

  const catalogue = () => page.getByRole('region', { name: 'Field catalogue' });
  const sigmaInput = (n: number) => page.getByLabel(`Sigma field of mapping ${n}`, { exact: true });
  const eventInput = (n: number) => page.getByLabel(`Event field of mapping ${n}`, { exact: true });
  const mappingForm = () => page.getByRole('form', { name: 'Field mappings' });
  const fieldsNobodyMaps = () => page.getByRole('combobox', { name: /^Fields nobody maps/ });

  test('creates a pattern and ingests events with its token', async () => {
    await page.goto(server.url + '/');
    await signIn(page, 'admin', ADMIN_PASSWORD);
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Index patterns' }).waitFor();
    const form = page.getByRole('form', { name: 'New index pattern' });
    await form.getByLabel('Name', { exact: true }).fill('applogs');
    await form.getByRole('button', { name: 'Create index pattern' }).click();
    const token = (await page.getByLabel('Token', { exact: true }).textContent())!.trim();
    assert.match(token, /^svc_it_/);
    await page.getByRole('button', { name: 'I have copied it' }).click();

    assert.equal((await sendEvents(server.url, 'applogs', token, EVENTS)).accepted, 2);
    await ui.checkPage('30-index-patterns');
  });

  test('the field catalogue lists the fields of the ingested events, with counts, and filters them', async () => {
    await page.getByRole('link', { name: 'applogs', exact: true }).click();
    await page.getByRole('heading', { name: 'Field mappings of applogs' }).waitFor();
    const row = catalogue().getByRole('row', { name: /process\.command_line/ });
    await row.waitFor();
    assert.equal(await row.getByRole('cell').nth(1).textContent(), '2');
    assert.equal(await catalogue().getByRole('cell', { name: 'user.name', exact: true }).count(), 1);
    await page.getByText('This pattern has no mappings of its own').waitFor();
    // "Read by": with no mapping, each field is read by the Sigma field of its own name.
    assert.equal(await catalogue().getByRole('row', { name: /user\.name/ }).getByRole('cell').nth(3).textContent(), 'user.name (same name)');

    await catalogue().getByLabel('Filter fields').fill('process');
    await catalogue().getByRole('status').filter({ hasText: '2 field(s)' }).waitFor();
    assert.equal(await catalogue().getByRole('cell', { name: 'user.name', exact: true }).count(), 0);
    await catalogue().getByRole('cell', { name: 'process.executable', exact: true }).waitFor();
    await ui.checkPage('31-field-catalogue');
  });

  test('maps a catalogue field in one click; an error of the API is shown at its row', async () => {
    await catalogue().getByRole('button', { name: 'Map a Sigma field to process.command_line' }).click();
    // The new row is prefilled and its Sigma field has the focus, ready to be typed over.
    assert.equal(await eventInput(1).inputValue(), 'process.command_line');
    assert.equal(await sigmaInput(1).inputValue(), 'command_line');
    assert.equal(await page.evaluate('document.activeElement && document.activeElement.getAttribute("aria-label")'), 'Sigma field of mapping 1');
    await page.keyboard.type('CommandLine');
    assert.equal(await sigmaInput(1).inputValue(), 'CommandLine');
    await catalogue().getByRole('row', { name: /process\.command_line/ }).getByText('CommandLine').waitFor();

    await page.getByRole('button', { name: 'Add mapping' }).click();
    await sigmaInput(2).fill('Image');
    await eventInput(2).fill('x'.repeat(300));
    problems.allow(/status of 400 .*\/api\/index_patterns\/[0-9a-f-]+$/);
    await page.getByRole('button', { name: 'Save mappings' }).click();
    await page.getByRole('alert').filter({ hasText: 'see the marked rows' }).waitFor();
    const errorRow = page.getByRole('row').filter({ has: eventInput(2) });
    await errorRow.getByText(/256 characters/).waitFor();
    assert.equal(await eventInput(2).getAttribute('aria-invalid'), 'true');
    // The focus moves to the field in error.
    assert.equal(await page.evaluate('document.activeElement && document.activeElement.getAttribute("aria-label")'), 'Event field of mapping 2');
    assert.equal(await eventInput(1).getAttribute('aria-invalid'), null);
    await ui.checkPage('32-field-mappings-error');

    await eventInput(2).fill('process.executable');
    assert.equal(await errorRow.getByText(/256 characters/).count(), 0);
    assert.equal(await eventInput(2).getAttribute('aria-invalid'), null);
  });

  test('applies a preset, shows what it maps, saves, and keeps it all after a reload', async () => {
    await page.getByRole('combobox', { name: /^Preset/ }).selectOption('ecs-windows');
    const presetView = page.getByRole('region', { name: 'What ecs-windows maps' });
    await presetView.waitFor();
    await presetView.getByLabel("Filter the preset's mappings").fill('ParentImage');
    await presetView.getByRole('cell', { name: 'process.parent.executable', exact: true }).waitFor();
    await presetView.getByLabel("Filter the preset's mappings").fill('Image');
    // The pattern's own mapping of Image wins over the preset's, and the preset view says so.
    await presetView.getByRole('row', { name: /^Image pattern maps it/ }).waitFor();
    await page.getByText('Unsaved changes').waitFor();
    await ui.checkPage('33-field-mappings-preset');

    await page.getByRole('button', { name: 'Save mappings' }).click();
    await page.getByRole('status').filter({ hasText: 'Field mappings saved' }).waitFor();
    assert.equal(await page.getByText('Unsaved changes').count(), 0);

    await page.reload();
    await page.getByRole('heading', { name: 'Field mappings of applogs' }).waitFor();
    await sigmaInput(2).waitFor();
    assert.equal(await page.getByRole('combobox', { name: /^Preset/ }).inputValue(), 'ecs-windows');
    assert.deepEqual(
      [await sigmaInput(1).inputValue(), await eventInput(1).inputValue(), await sigmaInput(2).inputValue(), await eventInput(2).inputValue()],
      ['CommandLine', 'process.command_line', 'Image', 'process.executable'],
    );
    // The API holds the same.
    const id = page.url().split('/').pop()!;
    const stored = (await page.evaluate(`fetch('/api/index_patterns/${id}').then((r) => r.json())`)) as { preset: string; field_mappings: unknown[] };
    assert.equal(stored.preset, 'ecs-windows');
    assert.deepEqual(stored.field_mappings, [
      { sigma_field: 'CommandLine', target_field: 'process.command_line' },
      { sigma_field: 'Image', target_field: 'process.executable' },
    ]);
    // The list of patterns shows the preset and the number of mappings.
    await page.getByRole('link', { name: '← Index patterns' }).click();
    const listRow = page.getByRole('row', { name: /applogs/ });
    await listRow.getByRole('cell', { name: 'ecs-windows' }).waitFor();
    await page.getByRole('link', { name: 'applogs', exact: true }).click();
    await sigmaInput(1).waitFor();

    // Removing a row and discarding brings the saved mappings back.
    await page.getByRole('button', { name: 'Remove mapping 1' }).click();
    assert.equal(await sigmaInput(2).count(), 0);
    await mappingForm().getByRole('button', { name: 'Discard changes' }).click();
    assert.equal(await sigmaInput(2).inputValue(), 'Image');

    await page.emulateMedia({ colorScheme: 'dark' });
    await ui.checkPage('34-field-mappings-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  test('a change that would break a deployed rule is refused with the reason, nothing saved, and the missing mapping one click away', async () => {
    // A Linux rule deployed on the pattern reads User, which neither the pattern nor the preset maps.
    const created = await pageRequest<{ status: string }>(page, 'POST', '/api/rules', { yaml_content: LINUX_RULE, index_pattern: 'applogs', deploy: true });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.status, 'deployed');

    await fieldsNobodyMaps().selectOption('none');
    await page.getByRole('button', { name: 'Save mappings' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: /deployed rule 'Root whoami'/ });
    await refusal.waitFor();
    assert.match((await refusal.textContent())!, /User/);
    await ui.checkPage('35-field-mappings-refused');
    const id = page.url().split('/').pop()!;
    const read = () => page.evaluate(`fetch('/api/index_patterns/${id}').then((r) => r.json())`) as Promise<{ default_mapping: string; field_mappings: unknown[] }>;
    assert.equal((await read()).default_mapping, 'identity');

    // The refusal offers to map the field it names; with that mapping the change goes through.
    await page.getByRole('button', { name: 'Add a mapping for User' }).click();
    assert.equal(await sigmaInput(3).inputValue(), 'User');
    assert.equal(await page.evaluate('document.activeElement && document.activeElement.getAttribute("aria-label")'), 'Event field of mapping 3');
    await page.keyboard.type('user.name');
    await page.getByRole('button', { name: 'Save mappings' }).click();
    await page.getByRole('status').filter({ hasText: 'Field mappings saved' }).waitFor();
    const stored = await read();
    assert.equal(stored.default_mapping, 'none');
    assert.deepEqual(stored.field_mappings.at(-1), { sigma_field: 'User', target_field: 'user.name' });
  });

  test("changes the pattern's other settings without losing unsaved mapping edits", async () => {
    await sigmaInput(1).fill('CommandLineText');
    await page.getByText('Unsaved changes').waitFor();
    const form = page.getByRole('form', { name: 'Settings of applogs' });
    await form.getByLabel('Retention (days)').fill('30');
    const hosts = form.getByLabel('Host fields');
    await hosts.fill('agent.hostname\n' + (await hosts.inputValue()));
    await form.getByRole('button', { name: 'Save settings' }).click();
    await form.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
    // The mapping being edited is still there, still unsaved.
    assert.equal(await sigmaInput(1).inputValue(), 'CommandLineText');
    await page.getByText('Unsaved changes').waitFor();
    await ui.checkPage('36-pattern-settings');
    await mappingForm().getByRole('button', { name: 'Discard changes' }).click();
    assert.equal(await sigmaInput(1).inputValue(), 'CommandLine');

    await page.reload();
    await page.getByRole('heading', { name: 'Field mappings of applogs' }).waitFor();
    assert.equal(await form.getByLabel('Retention (days)').inputValue(), '30');
    assert.match(await form.getByLabel('Host fields').inputValue(), /^agent\.hostname\nhost\.name\n/);
    const id = page.url().split('/').pop()!;
    const stored = (await page.evaluate(`fetch('/api/index_patterns/${id}').then((r) => r.json())`)) as { retention_days: number; entity_fields: { host: string[] }; field_mappings: unknown[] };
    assert.equal(stored.retention_days, 30);
    assert.equal(stored.entity_fields.host[0], 'agent.hostname');
    assert.equal(stored.field_mappings.length, 3);
  });

  test('sets the log sources and placeholder values of the pattern, kept after a reload', async () => {
    const form = page.getByRole('form', { name: 'Log sources and placeholders of applogs' });
    await form.getByRole('button', { name: 'Add log source' }).click();
    // A deployed rule of this pattern reads Linux events: a scope without Linux is refused, with the reason.
    await form.getByLabel('Product of log source 1').fill('windows');
    await form.getByRole('button', { name: 'Save log sources and placeholders' }).click();
    await form.getByText(/outside/).first().waitFor();
    await form.getByRole('button', { name: 'Add log source' }).click();
    await form.getByLabel('Product of log source 2').fill('linux');
    await form.getByRole('button', { name: 'Add placeholder' }).click();
    await form.getByLabel('Name of placeholder 1').fill('%admin_users%');
    await form.getByLabel('Values of placeholder 1').fill('alice\nroot*');
    await form.getByRole('button', { name: 'Save log sources and placeholders' }).click();
    await form.getByText('Log sources and placeholders saved.').waitFor();

    await page.reload();
    await page.getByRole('heading', { name: 'Field mappings of applogs' }).waitFor();
    assert.equal(await form.getByLabel('Product of log source 1').inputValue(), 'windows');
    assert.equal(await form.getByLabel('Name of placeholder 1').inputValue(), 'admin_users');
    assert.equal(await form.getByLabel('Values of placeholder 1').inputValue(), 'alice\nroot*');
    const id = page.url().split('/').pop()!;
    const stored = (await page.evaluate(`fetch('/api/index_patterns/${id}').then((r) => r.json())`)) as { logsource_scope: unknown; placeholders: unknown };
    assert.deepEqual(stored.logsource_scope, [{ product: 'windows' }, { product: 'linux' }]);
    assert.deepEqual(stored.placeholders, { admin_users: ['alice', 'root*'] });
    await ui.checkPage('36b-pattern-scope');

    // Back to any log source, so the rest of the suite is unaffected.
    await form.getByRole('button', { name: 'Remove log source 2' }).click();
    await form.getByRole('button', { name: 'Remove log source 1' }).click();
    await form.getByRole('button', { name: 'Save log sources and placeholders' }).click();
    await form.getByText('Log sources and placeholders saved.').waitFor();
  });

  test('an unsaved mapping edit asks before another page of the console; staying keeps it', async () => {
    await page.getByRole('button', { name: 'Add mapping' }).click();
    const n = await page.getByRole('textbox', { name: /^Sigma field of mapping/ }).count();
    await sigmaInput(n).fill('ParentImage');
    await eventInput(n).fill('process.parent.executable');
    const asked: string[] = [];
    page.once('dialog', (d) => {
      asked.push(d.message());
      void d.dismiss();
    });
    await page.getByRole('link', { name: 'Users' }).click();
    await waitUntil(page, 'true');
    assert.deepEqual(asked, ['Leave without saving the changed mappings?']);
    assert.equal(await sigmaInput(n).inputValue(), 'ParentImage', 'staying keeps the edit');
    assert.equal(await page.evaluate(`(() => { const e = new Event('beforeunload', { cancelable: true }); window.dispatchEvent(e); return e.defaultPrevented; })()`), true);
    // Removed again: nothing left unsaved, and the links go without a question.
    await page.getByRole('button', { name: `Remove mapping ${n}` }).click();
    assert.equal(await page.evaluate(`(() => { const e = new Event('beforeunload', { cancelable: true }); window.dispatchEvent(e); return e.defaultPrevented; })()`), false);
  });

  test('a viewer reads the mappings and the catalogue but has no way to change them', async () => {
    await page.getByRole('link', { name: 'Users' }).click();
    const form = page.getByRole('form', { name: 'New user' });
    await form.getByLabel('Username').fill('vera');
    await form.getByLabel('Password (12+ characters)').fill(VIEWER_PASSWORD);
    await form.getByLabel('Role').selectOption('viewer');
    await form.getByRole('button', { name: 'Create user' }).click();
    await page.getByRole('cell', { name: 'vera', exact: true }).waitFor();

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await signIn(page, 'vera', VIEWER_PASSWORD);
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('link', { name: 'applogs', exact: true }).click();
    await page.getByRole('heading', { name: 'Field mappings of applogs' }).waitFor();
    await page.getByRole('cell', { name: 'CommandLine', exact: true }).waitFor();
    await catalogue().getByRole('cell', { name: 'user.name', exact: true }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Save mappings' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Add mapping' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: /^Map a Sigma field/ }).count(), 0);
    assert.equal(await page.getByRole('textbox', { name: /of mapping/ }).count(), 0);
    assert.equal(await page.getByRole('combobox', { name: /^Preset/ }).isDisabled(), true);
    assert.equal(await page.getByLabel('Retention (days)').isDisabled(), true);
    assert.equal(await page.getByRole('button', { name: 'Save settings' }).count(), 0);
    await ui.checkPage('37-field-mappings-viewer');
  });
});

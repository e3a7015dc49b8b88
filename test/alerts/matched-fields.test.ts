// Where an alert's matched fields sit in its stored event, for every preset's event shape
// (GET /api/alerts/{id}/context, matched_fields): one Sigma process_creation rule per index pattern, a
// whoami event in the shape the preset reads (evtx_dump's nested Security 4688, Winlogbeat/ECS Sysmon,
// Winlogbeat raw, NXLog, Sentinel WindowsEvent, flat Sysmon), and the paths of the stored event that
// the rule's (mapped, reshaped) field names stand for.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase, type Client } from '../helpers/service.js';
import { createPattern, createRule, ingest, setUpTeam, type Json } from '../rules/fixtures.js';

const RULE = `title: Whoami all groups
status: test
logsource:
  product: windows
  category: process_creation
detection:
  selection:
    Image|endswith: '\\whoami.exe'
    CommandLine|contains: '/all'
  provider:
    Provider_Name|contains: 'Microsoft-Windows'
  condition: selection and provider
level: medium
`;

const WHOAMI = 'C:\\Windows\\System32\\whoami.exe';
const SYSMON = 'Microsoft-Windows-Sysmon/Operational';

interface Case {
  preset: string;
  event: Record<string, unknown>;
  /** matched field → stored paths */
  paths: Record<string, string[]>;
}

const CASES: Case[] = [
  {
    preset: 'windows-thor',
    event: {
      Event: {
        System: {
          Provider: { '#attributes': { Name: 'Microsoft-Windows-Security-Auditing' } },
          EventID: 4688,
          Channel: 'Security',
          Computer: 'ws-1',
          TimeCreated: { '#attributes': { SystemTime: '2026-11-10T12:00:00.000Z' } },
        },
        EventData: { NewProcessName: WHOAMI, CommandLine: 'whoami /all', NewProcessId: '0x1a4', ProcessId: '0x100' },
      },
    },
    paths: { NewProcessName: ['Event.EventData.NewProcessName'], CommandLine: ['Event.EventData.CommandLine'], Provider_Name: ['Event.System.Provider.#attributes.Name'] },
  },
  {
    preset: 'sigma-native',
    event: {
      Event: {
        System: { Provider: { '#attributes': { Name: 'Microsoft-Windows-Sysmon' } }, EventID: { '#text': 1 }, Channel: SYSMON, Computer: 'ws-2' },
        EventData: { Image: WHOAMI, CommandLine: 'whoami /all', ProcessId: 420 },
      },
    },
    paths: { Image: ['Event.EventData.Image'], CommandLine: ['Event.EventData.CommandLine'], Provider_Name: ['Event.System.Provider.#attributes.Name'] },
  },
  {
    preset: 'ecs-windows',
    event: {
      '@timestamp': '2026-11-10T12:00:00Z',
      event: { code: '1' },
      host: { name: 'ws-3' },
      winlog: { channel: SYSMON, provider_name: 'Microsoft-Windows-Sysmon', event_data: { RuleName: '-' } },
      process: { executable: WHOAMI, command_line: 'whoami /all', pid: 420, entity_id: '{a}' },
    },
    paths: { 'process.executable': ['process.executable'], 'process.command_line': ['process.command_line'], 'winlog.provider_name': ['winlog.provider_name'] },
  },
  {
    preset: 'winlogbeat-raw',
    event: {
      '@timestamp': '2026-11-10T12:00:00Z',
      winlog: { event_id: 1, channel: SYSMON, provider_name: 'Microsoft-Windows-Sysmon', event_data: { Image: WHOAMI, CommandLine: 'whoami /all' } },
    },
    paths: { 'winlog.event_data.Image': ['winlog.event_data.Image'], 'winlog.event_data.CommandLine': ['winlog.event_data.CommandLine'], 'winlog.provider_name': ['winlog.provider_name'] },
  },
  {
    preset: 'nxlog-windows',
    event: { EventTime: '2026-11-10 12:00:00', Hostname: 'ws-5', SourceName: 'Microsoft-Windows-Sysmon', Channel: SYSMON, EventID: 1, Image: WHOAMI, CommandLine: 'whoami /all' },
    paths: { Image: ['Image'], CommandLine: ['CommandLine'], Provider_Name: ['SourceName'] },
  },
  {
    preset: 'sentinel-windows-event',
    event: {
      TimeGenerated: '2026-11-10T12:00:00Z',
      Provider: 'Microsoft-Windows-Sysmon',
      Channel: SYSMON,
      Computer: 'ws-6',
      EventID: 1,
      EventData: JSON.stringify({ Image: WHOAMI, CommandLine: 'whoami /all' }),
    },
    paths: { Image: ['EventData'], CommandLine: ['EventData'], Provider_Name: ['Provider'] },
  },
];

describeEachDatabase('matched fields at their places in the stored event', (ctx) => {
  let viewer: Client;
  const alerts = new Map<string, string>();

  before(async () => {
    let admin: Client, analyst: Client;
    ({ admin, analyst, viewer } = await setUpTeam(ctx.service, 'mia', 'max', { name: 'plain' }));
    for (const c of CASES) {
      const pattern = await createPattern(admin, { name: `p-${c.preset}`, preset: c.preset });
      await createRule(analyst, { yaml_content: RULE, index_pattern: pattern.name, deploy: true });
      const answer = await ingest(ctx.service, pattern, [c.event]);
      assert.equal(answer.data.alerts_created, 1, `${c.preset}: ${answer.body}`);
      const [row] = await ctx.service.db.query<{ id: string }>('SELECT id FROM alerts WHERE index_pattern = $1', [pattern.name]);
      alerts.set(c.preset, row.id);
    }
  });

  for (const c of CASES) {
    test(`${c.preset}: each matched field with its stored paths`, async () => {
      const response = await viewer.get(`/api/alerts/${alerts.get(c.preset)}/context`);
      assert.equal(response.statusCode, 200, response.body);
      const fields = (response.data as Json).matched_fields as { field: string; value: unknown; paths: string[] }[];
      assert.deepEqual(Object.fromEntries(fields.map((f) => [f.field, f.paths])), c.paths);
      for (const f of fields) assert.notEqual(f.value, undefined);
    });
  }
});

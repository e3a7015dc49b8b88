// Pipelines, continued: which mappings a rule gets. thor.yml's log source rewrites (an antivirus rule is a
// Windows Defender rule, a 4688 process creation a Security one), the user's own mappings winning over a
// preset's, and absence (`null`, `exists: false`) of a field mapped to several fields.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildPipeline, getPreset, parseRule, unmappedFields } from '../../src/sigma/index.js';
import type { Pipeline } from '../../src/sigma/index.js';
import { compile, ruleText } from './helpers.js';

const DEFENDER = 'Microsoft-Windows-Windows Defender/Operational';

test('an antivirus rule (no product) is a Windows Defender rule under the Winlogbeat presets, as thor.yml rewrites it', () => {
  const rule = `sel:\n    Signature|contains: Mimikatz\ncondition: sel`;
  for (const preset of ['ecs-windows', 'winlogbeat-raw']) {
    const m = compile(rule, getPreset(preset), 'category: antivirus');
    const event = { event: { code: '1116' }, winlog: { channel: DEFENDER, event_id: 1116, event_data: { 'Threat Name': 'HackTool:Win32/Mimikatz' } } };
    assert.equal(m.match(event), true, preset);
    assert.equal(m.match({ ...event, event: { code: '5007' }, winlog: { ...event.winlog, event_id: 5007 } }), false, preset);
    assert.equal(m.match({ ...event, winlog: { ...event.winlog, channel: 'System' } }), false, preset);
    // The flat fields of an unmapped rule are not where these presets look.
    assert.equal(m.match({ EventID: 1116, Channel: DEFENDER, ThreatName: 'HackTool:Win32/Mimikatz' }), false, preset);
  }
  const thor = compile(rule, getPreset('windows-thor'), 'category: antivirus');
  assert.equal(thor.match({ EventID: 1116, Channel: DEFENDER, ThreatName: 'HackTool:Win32/Mimikatz' }), true);
});

test('ecs-windows: the Security 4688 alternative of a process_creation rule takes the Security mappings; ps_classic_* the classic PowerShell ones', () => {
  const ecs = getPreset('ecs-windows');
  const m = compile(`sel:\n    SubjectUserName: bob\ncondition: sel`, ecs, 'category: process_creation\n    product: windows');
  assert.equal(m.match({ event: { code: '4688' }, winlog: { channel: 'Security' }, user: { name: 'bob' } }), true);
  assert.equal(m.match({ event: { code: '1' }, winlog: { channel: 'Microsoft-Windows-Sysmon/Operational', event_data: { SubjectUserName: 'bob' } } }), true);
  assert.equal(m.match({ event: { code: '1' }, winlog: { channel: 'Microsoft-Windows-Sysmon/Operational' }, user: { name: 'bob' } }), false);
  const ps = compile(`sel:\n    HostVersion|startswith: '5.'\ncondition: sel`, ecs, 'category: ps_classic_start\n    product: windows');
  const e400 = { event: { code: '400' }, winlog: { channel: 'Windows PowerShell' } };
  assert.equal(ps.match({ ...e400, powershell: { process: { executable_version: '5.1' } } }), true);
  assert.equal(ps.match({ ...e400, winlog: { ...e400.winlog, event_data: { HostVersion: '5.1' } } }), false);
});

test("an index pattern's own mappings win over the preset's, scoped ones included, for rules of every log source", () => {
  const spec = (defaultMapping: Pipeline['defaultMapping'], mappings: Record<string, string>): Pipeline =>
    buildPipeline({ preset: 'ecs-windows', defaultMapping, fieldMappings: Object.entries(mappings).map(([sigmaField, t]) => ({ sigmaField, targetFields: [t] })) });
  const p = spec({ prefix: 'winlog.event_data.' }, { CommandLine: 'my.cmdline', 'c-uri': 'url.original', Image: 'proc.path' });
  const sysmon1 = { event: { code: '1' }, winlog: { channel: 'Microsoft-Windows-Sysmon/Operational' } };
  const pc = compile(`sel:\n    CommandLine|contains: whoami\ncondition: sel`, p, 'category: process_creation\n    product: windows');
  assert.equal(pc.match({ ...sysmon1, my: { cmdline: 'whoami /all' } }), true);
  assert.equal(pc.match({ ...sysmon1, process: { command_line: 'whoami /all' } }), false);
  // The 4688 alternative renames Image to NewProcessName; the user's mapping of Image still decides.
  const img = compile(`sel:\n    Image|endswith: '\\cmd.exe'\ncondition: sel`, p, 'category: process_creation\n    product: windows');
  assert.equal(img.match({ event: { code: '4688' }, winlog: { channel: 'Security' }, proc: { path: 'C:\\cmd.exe' } }), true);
  const web = compile(`sel:\n    c-uri|contains: /admin\ncondition: sel`, p, 'category: webserver');
  assert.equal(web.match({ url: { original: '/admin/login' } }), true);
  assert.equal(web.match({ 'c-uri': '/admin/login' }), false);
  // Outside the preset's scope, `none` leaves only the user's mappings.
  const strict = spec('none', { User: 'user.name' });
  const parse = (detection: string, logsource: string) => {
    const parsed = parseRule(ruleText(detection, logsource));
    assert.ok(parsed.ok);
    return parsed.rule;
  };
  assert.deepEqual(unmappedFields(parse(`sel:\n    User: root\n    exe: /bin/sh\ncondition: sel`, 'product: linux\n    service: auditd'), strict), ['exe']);
  // Inside it, the preset's table and scoped mappings count as mapped.
  const proc = parse(`sel:\n    CommandLine|contains: x\n    OriginalFileName: y.exe\n    Hashes|contains: z\ncondition: sel`, 'category: process_creation\n    product: windows');
  assert.deepEqual(unmappedFields(proc, strict), ['Hashes']);
  assert.deepEqual(unmappedFields(proc, spec({ prefix: 'winlog.event_data.' }, {})), []);
});

test('a field mapped to several fields is null, or does not exist, only when none of them holds a value', () => {
  const ecs = getPreset('ecs-windows');
  const e4688 = (parent: Record<string, string>) => ({ event: { code: '4688' }, winlog: { channel: 'Security' }, process: { parent } });
  const isNull = compile(`sel:\n    ParentImage: null\ncondition: sel`, ecs, 'category: process_creation\n    product: windows');
  assert.equal(isNull.match(e4688({ executable: 'C:\\evil.exe' })), false);
  assert.equal(isNull.match(e4688({ name: 'evil.exe' })), false);
  assert.equal(isNull.match(e4688({})), true);
  const missing = compile(`sel:\n    ParentImage|exists: false\ncondition: sel`, ecs, 'category: process_creation\n    product: windows');
  assert.equal(missing.match(e4688({ executable: 'C:\\evil.exe' })), false);
  assert.equal(missing.match(e4688({})), true);
  // Listed with other values: null (in no field) or the value (in any field).
  const either = compile(`sel:\n    ParentImage:\n        - null\n        - 'C:\\evil.exe'\ncondition: sel`, ecs, 'category: process_creation\n    product: windows');
  assert.equal(either.match(e4688({ name: 'C:\\evil.exe' })), true);
  assert.equal(either.match(e4688({ name: 'good.exe' })), false);
  assert.equal(either.match(e4688({})), true);
  const custom = buildPipeline({ defaultMapping: 'identity', fieldMappings: [{ sigmaField: 'F', targetFields: ['a', 'b'] }] });
  const present = compile(`sel:\n    F|exists: true\ncondition: sel`, custom);
  assert.equal(present.match({ b: 1 }), true);
  assert.equal(present.match({}), false);
  const notNull = compile(`sel:\n    F: null\ncondition: not sel`, custom);
  assert.equal(notNull.match({ a: 'x' }), true);
  assert.equal(notNull.match({ c: 'x' }), false);
});

test('the default prefix keeps names that start with a word and a dot, as pySigma tells them (`^\\w+\\.`)', () => {
  const p = buildPipeline({ defaultMapping: { prefix: 'winlog.event_data.' }, fieldMappings: [] });
  assert.equal(compile(`sel:\n    host.name: h\ncondition: sel`, p).match({ host: { name: 'h' } }), true);
  assert.equal(compile(`sel:\n    Mon_1.x: h\ncondition: sel`, p).match({ Mon_1: { x: 'h' } }), true);
  const dashed = compile(`sel:\n    a-b.c: h\ncondition: sel`, p);
  assert.equal(dashed.match({ winlog: { event_data: { 'a-b': { c: 'h' } } } }), true);
  assert.equal(dashed.match({ 'a-b': { c: 'h' } }), false);
});

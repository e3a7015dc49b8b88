// `vigil scan` with the options an index pattern has: --scope (log sources the events come from),
// --placeholders (values of %placeholder% names), --map (field mappings before the preset's), and the
// presets for NXLog and Sentinel events. Run as a real process over rules and events written here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseScanArgs, UsageError } from '../../src/cli/scan-args.js';
import { vigil } from './vigil-process.js';

const tmp = mkdtempSync(join(tmpdir(), 'vigil-scan-options-'));

function rule(title: string, logsource: string, detection: string): string {
  return `title: ${title}\nlogsource:\n${logsource}\ndetection:\n${detection}\nlevel: high\n`;
}

const rulesDir = join(tmp, 'rules');
mkdirSync(rulesDir);
const RULES: Record<string, string> = {
  'windows_whoami.yml': rule('Windows whoami', '    product: windows\n    category: process_creation', "    sel:\n        Image|endswith: '\\whoami.exe'\n    condition: sel"),
  'generic_whoami.yml': rule('Generic whoami', '    category: process_creation', "    sel:\n        Image|endswith: '\\whoami.exe'\n    condition: sel"),
  'zeek_rdp.yml': rule('Zeek RDP not internal', '    product: zeek\n    service: rdp', "    internal:\n        id.orig_h|cidr: '10.0.0.0/8'\n    condition: not internal"),
  'proxy_uri.yml': rule('Proxy whoami', '    category: proxy', "    sel:\n        c-uri|contains: 'whoami'\n    condition: sel"),
  'admin_users.yml': rule('Admin user', '    product: windows\n    category: process_creation', "    sel:\n        User|expand: '%Admins%'\n    condition: sel"),
};
for (const [name, text] of Object.entries(RULES)) writeFileSync(join(rulesDir, name), text);

const whoami = { EventID: 1, Channel: 'Microsoft-Windows-Sysmon/Operational', Image: 'C:\\Windows\\System32\\whoami.exe', User: 'CORP\\adm-bob' };
const eventsFile = join(tmp, 'events.ndjson');
writeFileSync(eventsFile, [whoami, { ...whoami, Image: 'C:\\Windows\\System32\\cmd.exe', User: 'CORP\\carol' }].map((e) => JSON.stringify(e)).join('\n') + '\n');

const titles = (stdout: string): string[] =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => `${JSON.parse(l).event}:${JSON.parse(l).rule_title}`)
    .sort();

test('--scope leaves out rules of other log sources and counts them in a warning and the summary', async () => {
  const placeholders = join(tmp, 'ph.yml');
  writeFileSync(placeholders, "Admins:\n  - 'CORP\\adm-*'\n");
  const all = await vigil(['scan', '--rules', rulesDir, '--events', eventsFile, '--pipeline', 'windows-thor', '--placeholders', placeholders]);
  assert.equal(all.code, 0, all.stderr);
  assert.deepEqual(titles(all.stdout), ['0:Admin user', '0:Generic whoami', '0:Windows whoami', '0:Zeek RDP not internal', '1:Zeek RDP not internal']);
  const scoped = await vigil(['scan', '--rules', rulesDir, '--events', eventsFile, '--pipeline', 'windows-thor', '--placeholders', placeholders, '--scope', 'product:windows']);
  assert.equal(scoped.code, 0, scoped.stderr);
  assert.deepEqual(titles(scoped.stdout), ['0:Admin user', '0:Generic whoami', '0:Windows whoami']);
  assert.match(scoped.stderr, /warning: 2 rules left out: their log source is outside --scope \(product: windows\)/);
  assert.match(scoped.stderr, /3 rules loaded .*0 rules rejected, 2 rules out of scope, 3 matches/);
  // Two log sources (repeated option); attributes of one log source separated by commas.
  const two = await vigil(['scan', '--rules', rulesDir, '--events', eventsFile, '--placeholders', placeholders, '--scope=product:windows,service:sysmon', '--scope', 'category:proxy']);
  assert.equal(two.code, 0, two.stderr);
  assert.match(two.stderr, /warning: 1 rules left out: their log source is outside --scope \(product: windows, service: sysmon; category: proxy\)/);
});

test('--placeholders gives %name% values from YAML or JSON; without them such rules are rejected with the reason', async () => {
  const json = join(tmp, 'ph.json');
  writeFileSync(json, JSON.stringify({ Admins: ['corp\\ADM-bob'] }));
  const withJson = await vigil(['scan', '--rules', join(rulesDir, 'admin_users.yml'), '--events', eventsFile, '--placeholders', json]);
  assert.equal(withJson.code, 0, withJson.stderr);
  assert.deepEqual(titles(withJson.stdout), ['0:Admin user']);
  const single = join(tmp, 'single.yml');
  writeFileSync(single, "Admins: 'CORP\\carol'\n");
  assert.deepEqual(titles((await vigil(['scan', '--rules', join(rulesDir, 'admin_users.yml'), '--events', eventsFile, '--placeholders', single])).stdout), ['1:Admin user']);
  const without = await vigil(['scan', '--rules', rulesDir, '--events', eventsFile]);
  assert.equal(without.code, 0, without.stderr);
  assert.match(without.stderr, /rule rejected: .*admin_users\.yml: .*placeholder %Admins% has no values/);
});

test('a placeholders file that cannot be used is a usage error naming the problem', async () => {
  const cases: Array<[string, string, RegExp]> = [
    ['list.yml', '- a\n- b\n', /expected a mapping of placeholder names to values/],
    ['empty.yml', 'Admins: []\n', /'Admins' needs a value or a list of values/],
    ['nested.json', '{"Admins": [{"a": 1}]}', /'Admins' needs a value/],
    ['broken.json', '{"Admins": ', /not valid JSON/],
    ['broken.yml', 'Admins: [a\n', /YAML/],
  ];
  for (const [name, text, message] of cases) {
    writeFileSync(join(tmp, name), text);
    const r = await vigil(['scan', '--rules', rulesDir, '--events', eventsFile, '--placeholders', join(tmp, name)]);
    assert.equal(r.code, 2, `${name}: ${r.stderr}`);
    assert.match(r.stderr, message, name);
  }
  const missing = await vigil(['scan', '--rules', rulesDir, '--events', eventsFile, '--placeholders', join(tmp, 'nope.yml')]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /--placeholders .*nope\.yml: no such file/);
});

test('--map maps Sigma fields onto event fields, with a preset too', async () => {
  const ecs = join(tmp, 'ecs.ndjson');
  writeFileSync(ecs, JSON.stringify({ event: { code: 1 }, winlog: { channel: 'Microsoft-Windows-Sysmon/Operational' }, proc: { path: 'C:\\Windows\\System32\\whoami.exe' } }) + '\n');
  const target = join(rulesDir, 'windows_whoami.yml');
  const plain = await vigil(['scan', '--rules', target, '--events', ecs, '--map', 'Image=proc.path']);
  assert.deepEqual(titles(plain.stdout), ['0:Windows whoami'], plain.stderr);
  const unmapped = await vigil(['scan', '--rules', target, '--events', ecs, '--pipeline', 'ecs-windows']);
  assert.deepEqual(titles(unmapped.stdout), [], 'ecs-windows reads process.executable');
  const withPreset = await vigil(['scan', '--rules', target, '--events', ecs, '--pipeline', 'ecs-windows', '--map', 'Image=process.executable', '--map=Image=proc.path']);
  assert.equal(withPreset.code, 0, withPreset.stderr);
  assert.deepEqual(titles(withPreset.stdout), ['0:Windows whoami'], 'the preset log source conditions still hold (event.code, winlog.channel)');
});

test('--pipeline nxlog-windows and sentinel-windows-event scan those shapes', async () => {
  const service = rule(
    'PsExec service',
    '    product: windows\n    service: system',
    "    sel:\n        Provider_Name: 'Service Control Manager'\n        EventID: 7045\n        ServiceName: PSEXESVC\n    condition: sel",
  );
  const ruleFile = join(tmp, 'psexec_service.yml');
  writeFileSync(ruleFile, service);
  const nxlog = join(tmp, 'nxlog.ndjson');
  writeFileSync(nxlog, JSON.stringify({ EventID: 7045, SourceName: 'Service Control Manager', Channel: 'System', Hostname: 'ws5', ServiceName: 'PSEXESVC', ImagePath: '%SystemRoot%\\PSEXESVC.exe' }) + '\n');
  assert.deepEqual(titles((await vigil(['scan', '--rules', ruleFile, '--events', nxlog, '--pipeline', 'nxlog-windows'])).stdout), ['0:PsExec service']);
  const sentinel = join(tmp, 'sentinel.ndjson');
  writeFileSync(sentinel, JSON.stringify({ EventID: 7045, Provider: 'Service Control Manager', Channel: 'System', Computer: 'dc01', EventData: JSON.stringify({ ServiceName: 'PSEXESVC' }) }) + '\n');
  assert.deepEqual(titles((await vigil(['scan', '--rules', ruleFile, '--events', sentinel, '--pipeline', 'sentinel-windows-event'])).stdout), ['0:PsExec service']);
  assert.deepEqual(titles((await vigil(['scan', '--rules', ruleFile, '--events', sentinel, '--pipeline', 'windows-thor'])).stdout), [], 'not without the preset');
});

test('option forms and usage errors of --scope, --map and --placeholders', () => {
  const base = ['--rules', 'r', '--events', 'e'];
  const parsed = parseScanArgs([...base, '--scope', 'product:windows', '--scope=category:process_creation,product:windows', '--map', 'A=b.c', '--map=D=e=f', '--placeholders', 'p.yml']);
  assert.ok(parsed !== 'help');
  assert.deepEqual(parsed.scope, [{ product: 'windows' }, { category: 'process_creation', product: 'windows' }]);
  assert.deepEqual(parsed.maps, [
    { sigmaField: 'A', targetField: 'b.c' },
    { sigmaField: 'D', targetField: 'e=f' },
  ]);
  assert.equal(parsed.placeholders, 'p.yml');
  const bad: Array<[string[], RegExp]> = [
    [['--scope', 'windows'], /--scope windows: expected <attribute>:<value>/],
    [['--scope', 'vendor:x'], /attributes product, category, service/],
    [['--scope', 'product:'], /expected/],
    [['--scope', 'product:a,product:b'], /product given twice/],
    [['--map', 'Image'], /--map Image: expected <SigmaField>=<event.field>/],
    [['--map', '=x'], /expected/],
    [['--placeholders', 'a', '--placeholders', 'b'], /--placeholders given twice/],
    [['--scope'], /--scope needs a value/],
  ];
  for (const [args, message] of bad) assert.throws(() => parseScanArgs([...base, ...args]), (e: unknown) => e instanceof UsageError && message.test(e.message), args.join(' '));
});

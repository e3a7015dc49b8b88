// `vigil scan` on awkward inputs, as a real process: events nested too deeply, byte order marks, lone CRs,
// inputs with no event, rule directories with links, loops, FIFOs, empty and repeated files, Sigma filter
// documents, rule ids used twice, results that cannot be written, and the `--option=value` form.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdirSync, mkdtempSync, openSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { vigil } from './vigil-process.js';

const tmp = mkdtempSync(join(tmpdir(), 'vigil-scan-inputs-'));
const ID = '11111111-2222-3333-4444-555555555555';
const whoami = (id = ID): string =>
  `title: Whoami\nid: ${id}\nlogsource: {category: process_creation, product: windows}\nlevel: medium\ndetection:\n  sel:\n    CommandLine|contains: whoami\n  condition: sel\n`;
const rule = join(tmp, 'whoami.yml');
writeFileSync(rule, whoami());
const hit = JSON.stringify({ CommandLine: 'cmd /c whoami', User: 'CORP\\admin' });
const miss = JSON.stringify({ CommandLine: 'cmd /c dir' });

function file(name: string, text: string | Buffer): string {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
}

const eventsOf = (stdout: string): number[] =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { event: number }).event);

test('an event nested too deeply is reported and skipped; the events around it are scanned', async () => {
  const deep = `${'{"a":'.repeat(3000)}"x"${'}'.repeat(3000)}`;
  const r = await vigil(['scan', '--rules', rule, '--events', file('deep.ndjson', `${hit}\n${deep}\n${hit}\n`)]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(eventsOf(r.stdout), [0, 2]);
  assert.match(r.stderr, /line 2 \(event 1\): event nested deeper than 100 levels; skipped/);
  assert.match(r.stderr, /2 events scanned \(1 bad lines skipped\)/);
});

test('a byte order mark is ignored and line numbers are physical lines (CRLF and lone CRs)', async () => {
  const text = `\ufeff${hit}\r\n{"EventID":1,\r"CommandLine":"whoami"}\r\n${miss}\n${hit}`;
  const r = await vigil(['scan', '--rules', rule, '--events', file('bom.ndjson', text)]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(eventsOf(r.stdout), [0, 1, 3]);
  assert.match(r.stderr, /4 events scanned \(0 bad lines skipped\)/);
});

test('no rule loaded, or no event in a non-empty input, exits 1 with a message; an empty input is fine', async () => {
  const broken = file('broken.yml', 'title: [unclosed\n');
  let r = await vigil(['scan', '--rules', broken, '--events', '-'], `${hit}\n`);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /no rule loaded \(1 rejected\)/);
  r = await vigil(['scan', '--rules', rule, '--events', '-'], '{\n  "CommandLine": "whoami"\n}\n');
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /no line of the input could be scanned \(see the reasons above\)/);
  r = await vigil(['scan', '--rules', rule, '--events', '-'], '[{"CommandLine": "whoami"}]\n');
  assert.match(r.stderr, /a JSON array, not an object \(NDJSON expected/);
  r = await vigil(['scan', '--rules', rule, '--events', '-'], '');
  assert.equal(r.code, 0, r.stderr);
});

test('rule directories: links followed once, loops ended, dangling links, FIFOs and empty files reported', async () => {
  const dir = join(tmp, 'rules');
  mkdirSync(join(dir, 'sub'), { recursive: true });
  writeFileSync(join(dir, 'a.yml'), whoami());
  writeFileSync(join(dir, 'empty.yml'), '# nothing here\n');
  symlinkSync(join(dir, 'a.yml'), join(dir, 'sub', 'same.yml'));
  symlinkSync(dir, join(dir, 'sub', 'loop'));
  symlinkSync(join(tmp, 'nowhere.yml'), join(dir, 'dangling.yml'));
  execFileSync('mkfifo', [join(dir, 'fifo.yml')]);
  const r = await vigil(['scan', '--rules', dir, join(dir, 'a.yml'), '--events', '-'], `${hit}\n`);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(eventsOf(r.stdout), [0]);
  assert.match(r.stderr, /rule rejected: .*dangling\.yml: cannot read: ENOENT/);
  assert.match(r.stderr, /rule rejected: .*fifo\.yml: not a regular file/);
  assert.match(r.stderr, /rule rejected: .*empty\.yml: no Sigma document in the file/);
  assert.match(r.stderr, /1 rules loaded in \d+ ms, 3 rules rejected, 1 matches/);
});

test('Sigma filters apply to the rules they name; a rule id used twice is a warning', async () => {
  const dir = join(tmp, 'filtered');
  mkdirSync(dir);
  writeFileSync(join(dir, 'a.yml'), whoami());
  writeFileSync(
    join(dir, 'b-filter.yml'),
    `title: Admins may\nlogsource: {category: process_creation, product: windows}\nfilter:\n  rules: [${ID}]\n  selection:\n    User|contains: admin\n  condition: not selection\n`,
  );
  const r = await vigil(['scan', '--rules', dir, '--events', '-'], `${hit}\n${JSON.stringify({ CommandLine: 'whoami', User: 'bob' })}\n`);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(eventsOf(r.stdout), [1]);
  assert.match(r.stderr, /1 rules and 1 filters loaded/);
  writeFileSync(join(dir, 'c.yml'), whoami());
  const twice = await vigil(['scan', '--rules', dir, '--events', '-'], `${miss}\n`);
  assert.match(twice.stderr, new RegExp(`warning: rule id ${ID} is used by .*a\\.yml and .*c\\.yml`));
});

test('results that cannot be written make the scan fail with a message', async () => {
  const fd = openSync('/dev/full', 'w');
  try {
    const r = await vigil(['scan', '--rules', rule, '--events', '-'], `${hit}\n`.repeat(10), fd);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /cannot write results: .*ENOSPC|cannot write results: .*no space/i);
    assert.match(r.stderr, /stopped at line \d+: results could not be written/);
  } finally {
    closeSync(fd);
  }
});

test('options take the --option=value form; vigil without a command is a usage error', async () => {
  const r = await vigil(['scan', `--rules=${rule}`, '--events=-', '--pipeline=windows-thor'], `${JSON.stringify({ EventID: 1, Channel: 'Microsoft-Windows-Sysmon/Operational', CommandLine: 'whoami' })}\n`);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(eventsOf(r.stdout), [0]);
  const none = await vigil([]);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /a command is required/);
  assert.equal(none.stdout, '');
  // An empty path (an unset shell variable) is a usage error, not a file that cannot be read.
  for (const argv of [['--rules', '', '--events', '-'], ['--rules', rule, '', '--events', '-'], ['--rules', rule, '--events', '']]) {
    const empty = await vigil(['scan', ...argv], '');
    assert.equal(empty.code, 2, JSON.stringify(argv));
    assert.match(empty.stderr, /^vigil scan: --(rules|events) needs (a value|paths \(an empty one was given\))\n/, JSON.stringify(argv));
  }
});

test('in a file of several rules, a rejection says which rule it is about', async () => {
  const file = join(tmp, 'collection.yml');
  writeFileSync(
    file,
    'action: global\ntitle: G\nlogsource:\n    product: windows\nlevel: low\ndetection:\n    condition: sel\n---\ndetection:\n    sel:\n        a: 1\n---\ndetection:\n    sel:\n        a|nope: 1\n',
  );
  const r = await vigil(['scan', '--rules', file, '--events', '-'], '{"a":1}\n');
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(eventsOf(r.stdout), [0]);
  assert.match(r.stderr, /rule rejected: .*collection\.yml: rule 2 of 2 in the file: detection\.sel\.a\|nope: unknown modifier 'nope'/);
});

test('rules whose condition or regex nests thousands of levels deep are rejected; the other rules still scan', async () => {
  const dir = join(tmp, 'deep');
  mkdirSync(dir);
  writeFileSync(join(dir, 'a-whoami.yml'), whoami());
  const deep = (sel: string, cond: string): string => `title: Deep\nlogsource: {product: windows}\nlevel: low\ndetection:\n  sel:\n    ${sel}\n  condition: '${cond}'\n`;
  writeFileSync(join(dir, 'b-parens.yml'), deep('A: 1', `${'('.repeat(2500)}sel${')'.repeat(2500)}`));
  writeFileSync(join(dir, 'c-nots.yml'), deep('A: 1', `${'not '.repeat(5000)}sel`));
  writeFileSync(join(dir, 'd-chain.yml'), deep('CommandLine|contains: whoami', Array.from({ length: 5000 }, () => 'sel').join(' and ')));
  writeFileSync(join(dir, 'e-regex.yml'), deep(`A|re: '${'('.repeat(1500)}a${')'.repeat(1500)}'`, 'sel'));
  const r = await vigil(['scan', '--rules', dir, '--events', '-'], `${hit}\n`);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(eventsOf(r.stdout), [0, 0], r.stdout);
  assert.match(r.stderr, /b-parens\.yml: .*more than 64 nested parentheses/);
  assert.match(r.stderr, /c-nots\.yml: .*more than 64 nested parentheses/);
  assert.match(r.stderr, /e-regex\.yml: .*more than 100 nested groups/);
  assert.doesNotMatch(r.stderr, /RangeError|at .*\.js:\d+/);
});

test('a rule that matched at least 90% of 100 or more events is named in a warning after the scan', async () => {
  const broad = file('broad.ndjson', `${Array.from({ length: 95 }, () => hit).join('\n')}\n${Array.from({ length: 5 }, () => miss).join('\n')}\n`);
  const r = await vigil(['scan', '--rules', rule, '--events', broad]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /warning: 1 rules matched at least 90% of the events \('Whoami'\): their log source may have no conditions/);
  const narrow = file('narrow.ndjson', `${Array.from({ length: 89 }, () => hit).join('\n')}\n${Array.from({ length: 11 }, () => miss).join('\n')}\n`);
  assert.doesNotMatch((await vigil(['scan', '--rules', rule, '--events', narrow])).stderr, /matched at least 90%/);
  const few = file('few.ndjson', `${Array.from({ length: 99 }, () => hit).join('\n')}\n`);
  assert.doesNotMatch((await vigil(['scan', '--rules', rule, '--events', few])).stderr, /matched at least 90%/);
  // A rule that matches an empty event is named once, before the scan, not again after it.
  const notRule = file('not-zeek.yml', 'title: Not Zeek\nlogsource: {product: zeek, service: rdp}\nlevel: low\ndetection:\n  sel:\n    id.orig_h|cidr: 10.0.0.0/8\n  condition: not sel\n');
  const both = await vigil(['scan', '--rules', rule, notRule, '--events', broad]);
  assert.match(both.stderr, /warning: 1 rules match an event that holds none of their fields \('Not Zeek'\)/);
  assert.match(both.stderr, /warning: 1 rules matched at least 90% of the events \('Whoami'\)/);
});

test('results are written as the input is read, and Ctrl-C writes what was found with the summary (exit 130)', async () => {
  const { spawn } = await import('node:child_process');
  const { vigilArgv } = await import('./vigil-process.js');
  const { repoRoot } = await import('../sigma/corpus-helpers.js');
  const p = spawn(process.execPath, vigilArgv(['scan', '--rules', rule, '--events', '-']), { cwd: repoRoot, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  p.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  p.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const closed = new Promise<number | null>((resolve) => p.on('close', (code) => resolve(code)));
  // The input stays open: the match must show before it ends.
  p.stdin.write(`${miss}\n${hit}\n`);
  const deadline = Date.now() + 60_000;
  while (!out.includes('"event":1') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(eventsOf(out), [1], err);
  p.kill('SIGINT');
  const code = await closed;
  assert.equal(code, 130, err);
  assert.match(err, /2 events scanned \(interrupted at line 2\)/);
  assert.deepEqual(eventsOf(out), [1]);
});

test('control characters of a quoted event line are escaped in messages; --pipeline given twice is a usage error', async () => {
  const r = await vigil(['scan', '--rules', rule, '--events', '-'], 'x\x1b]0;title\x07\x1b[31mRED\n');
  assert.equal(r.code, 1);
  assert.ok(![...r.stderr].some((c) => c !== '\n' && (c < ' ' || c === '\x7f')), r.stderr);
  assert.match(r.stderr, /\\x1b\]0;title\\x07\\x1b\[31mRED/);
  const twice = await vigil(['scan', '--rules', rule, '--events', '-', '--pipeline', 'nope', '--pipeline', 'sigma-native'], hit);
  assert.equal(twice.code, 2);
  assert.match(twice.stderr, /--pipeline given twice/);
});

test('invalid UTF-8: an event line is scanned and reported, a rule file is refused', async () => {
  const events = Buffer.concat([Buffer.from('{"CommandLine":"whoami \xff'.replace('\xff', ''), 'utf8'), Buffer.from([0xff, 0xfe]), Buffer.from(`"}\n${hit}\n`)]);
  const r = await vigil(['scan', '--rules', rule, '--events', file('latin.ndjson', events)]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(eventsOf(r.stdout), [0, 1]);
  assert.match(r.stderr, /line 1 \(event 0\): not valid UTF-8; its invalid bytes are read as U\+FFFD/);
  assert.match(r.stderr, /2 events scanned \(0 bad lines skipped, 1 lines not valid UTF-8\)/);
  const bad = file('latin.yml', Buffer.concat([Buffer.from('title: caf'), Buffer.from([0xe9]), Buffer.from(whoami().slice('title: Whoami'.length))]));
  const rr = await vigil(['scan', '--rules', bad, rule, '--events', '-'], `${hit}\n`);
  assert.equal(rr.code, 0, rr.stderr);
  assert.match(rr.stderr, /rule rejected: .*latin\.yml: not valid UTF-8 text/);
});

// `vigil scan` with correlation rules among the rules, run as a real process: one JSON line per firing
// (correlation, group, window, value, contributing event numbers), detection matches printed as before,
// event time from --timestamp-field, --lateness, events without a time, rejected correlations, chains.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseScanArgs, UsageError } from '../../src/cli/scan-args.js';
import { vigil } from './vigil-process.js';

const tmp = mkdtempSync(join(tmpdir(), 'vigil-scan-corr-'));
const rulesDir = join(tmp, 'rules');
mkdirSync(rulesDir);
const FAILED_ID = '5638f7c0-ac70-491d-8465-2a65075e0d86';
writeFileSync(
  join(rulesDir, 'failed.yml'),
  `title: Failed login\nid: ${FAILED_ID}\nname: failed_login\nlogsource:\n    product: windows\n    service: security\ndetection:\n    sel:\n        EventID: 4625\n    condition: sel\nlevel: low\n`,
);
writeFileSync(
  join(rulesDir, 'success.yml'),
  'title: Successful login\nname: successful_login\nlogsource:\n    product: windows\n    service: security\ndetection:\n    sel:\n        EventID: 4624\n    condition: sel\nlevel: low\n',
);
writeFileSync(
  join(rulesDir, 'many.yml'),
  `title: Many failed logins\nid: 0e95725d-7320-415d-80f7-004da920fc11\nname: many_failed\ncorrelation:\n    type: event_count\n    rules:\n        - ${FAILED_ID}\n    group-by:\n        - ComputerName\n    timespan: 1m\n    condition:\n        gte: 3\n`,
);
writeFileSync(
  join(rulesDir, 'then-success.yml'),
  'title: Failures then success\ncorrelation:\n    type: temporal_ordered\n    rules: [many_failed, successful_login]\n    group-by: [ComputerName]\n    timespan: 5m\n',
);

interface Line {
  [key: string]: unknown;
}

function lines(stdout: string): Line[] {
  return stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);
}

function eventsFile(name: string, events: object[]): string {
  const file = join(tmp, name);
  writeFileSync(file, events.map((e) => JSON.stringify(e)).join('\n') + '\n');
  return file;
}

const at = (s: number): string => new Date(Date.parse('2026-01-01T00:00:00Z') + s * 1000).toISOString();

test('a correlation firing is one JSON line with its correlation, group, window, value and event numbers; matches are unchanged', async () => {
  const file = eventsFile('burst.ndjson', [
    { EventID: 4625, ComputerName: 'pc1', '@timestamp': at(0) },
    { EventID: 4625, ComputerName: 'pc2', '@timestamp': at(5) },
    { EventID: 4625, ComputerName: 'pc1', '@timestamp': at(10) },
    { EventID: 1, ComputerName: 'pc1', '@timestamp': at(15) },
    { EventID: 4625, ComputerName: 'pc1', '@timestamp': at(20) },
    { EventID: 4625, ComputerName: 'pc1', '@timestamp': at(30) },
    { EventID: 4624, ComputerName: 'pc1', '@timestamp': at(90) },
  ]);
  const r = await vigil(['scan', '--rules', rulesDir, '--events', file]);
  assert.equal(r.code, 0, r.stderr);
  const out = lines(r.stdout);
  const matches = out.filter((l) => 'event' in l);
  assert.deepEqual(
    matches.map((l) => [l.event, l.rule_title]),
    [
      [0, 'Failed login'],
      [1, 'Failed login'],
      [2, 'Failed login'],
      [4, 'Failed login'],
      [5, 'Failed login'],
      [6, 'Successful login'],
    ],
  );
  for (const l of matches) assert.deepEqual(Object.keys(l), ['event', 'rule_id', 'rule_title', 'level', 'rule_path']);
  const firings = out.filter((l) => 'correlation_title' in l);
  assert.deepEqual(firings, [
    {
      correlation_id: '0e95725d-7320-415d-80f7-004da920fc11',
      correlation_name: 'many_failed',
      correlation_title: 'Many failed logins',
      group: { ComputerName: 'pc1' },
      window_start: at(0),
      window_end: at(20),
      value: 3,
      events: [0, 2, 4],
      rule_path: join(rulesDir, 'many.yml'),
    },
    {
      correlation_id: null,
      correlation_name: null,
      correlation_title: 'Failures then success',
      group: { ComputerName: 'pc1' },
      window_start: at(20),
      window_end: at(90),
      value: 2,
      events: [0, 2, 4, 6],
      rule_path: join(rulesDir, 'then-success.yml'),
    },
  ]);
  assert.match(r.stderr, /6 matches, \d+ events\/s; 2 correlation rules, 2 firings\n/);
});

test('--timestamp-field reads another field (epoch seconds here); events without a readable time are reported and not correlated', async () => {
  const file = eventsFile('epoch.ndjson', [
    { EventID: 4625, ComputerName: 'pc1', ts: 1_767_225_600 },
    { EventID: 4625, ComputerName: 'pc1', ts: 'yesterday' },
    { EventID: 4625, ComputerName: 'pc1', ts: '1767225610' },
    { EventID: 4625, ComputerName: 'pc1', ts: 1_767_225_620_000 },
  ]);
  const r = await vigil(['scan', '--rules', rulesDir, '--events', file, '--timestamp-field', 'ts']);
  assert.equal(r.code, 0, r.stderr);
  const firings = lines(r.stdout).filter((l) => 'correlation_title' in l);
  assert.deepEqual(
    firings.map((f) => [f.events, f.window_start, f.window_end]),
    [[[0, 2, 3], '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:20.000Z']],
  );
  assert.match(r.stderr, /line 2 \(event 1\): no readable time in ts; its matches are not correlated/);
  assert.match(r.stderr, /1 firings, 1 events without a time\n/);
  // Under the default field (@timestamp) none of them has a time.
  const d = await vigil(['scan', '--rules', rulesDir, '--events', file]);
  assert.match(d.stderr, /0 firings, 4 events without a time\n/);
});

test('--lateness: events out of order within it are correlated in event time; older ones are dropped and counted', async () => {
  const file = eventsFile('late.ndjson', [
    { EventID: 4625, ComputerName: 'pc1', '@timestamp': at(100) },
    { EventID: 4625, ComputerName: 'pc1', '@timestamp': at(80) },
    { EventID: 4625, ComputerName: 'pc1', '@timestamp': at(95) },
  ]);
  const within = await vigil(['scan', '--rules', rulesDir, '--events', file, '--lateness', '30s']);
  assert.deepEqual(
    lines(within.stdout)
      .filter((l) => 'correlation_title' in l)
      .map((f) => [f.events, f.window_start]),
    [[[1, 2, 0], at(80)]],
  );
  const strict = await vigil(['scan', '--rules', rulesDir, '--events', file, '--lateness=10s']);
  assert.equal(lines(strict.stdout).filter((l) => 'correlation_title' in l).length, 0);
  assert.match(strict.stderr, /warning: events older than their group's newest event time minus the allowed lateness \(10000 ms\) are dropped and counted/);
  assert.match(strict.stderr, /0 firings, 1 late events dropped\n/);
});

test('hosts interleaved out of time order give the firings of the sorted file (each host is late only against its own events)', async () => {
  // Host pc2's events are two hours behind pc1's, in alternation; pc2's event at 5 s comes after its
  // event at 20 s, more than the lateness (10 s) behind it: late for pc2 itself.
  const interleaved = [
    { EventID: 4625, ComputerName: 'pc1', '@timestamp': at(7200) },
    { EventID: 4625, ComputerName: 'pc2', '@timestamp': at(0) },
    { EventID: 4625, ComputerName: 'pc1', '@timestamp': at(7210) },
    { EventID: 4625, ComputerName: 'pc2', '@timestamp': at(10) },
    { EventID: 4625, ComputerName: 'pc1', '@timestamp': at(7220) },
    { EventID: 4625, ComputerName: 'pc2', '@timestamp': at(20) },
    { EventID: 4625, ComputerName: 'pc2', '@timestamp': at(5) },
    { EventID: 4624, ComputerName: 'pc2', '@timestamp': at(30) },
    { EventID: 4624, ComputerName: 'pc1', '@timestamp': at(7230) },
  ];
  const late = 6;
  const sorted = interleaved
    .map((e, i) => ({ e, i }))
    .filter(({ i }) => i !== late)
    .sort((a, b) => Date.parse(a.e['@timestamp']) - Date.parse(b.e['@timestamp']));
  const firingsOf = async (name: string, events: object[], numbers: number[]) => {
    const r = await vigil(['scan', '--rules', rulesDir, '--events', eventsFile(name, events), '--lateness', '10s']);
    assert.equal(r.code, 0, r.stderr);
    // Event numbers as positions in the interleaved file, so both runs compare.
    return lines(r.stdout)
      .filter((l) => 'correlation_title' in l)
      .map((f): Line => ({ ...f, events: (f.events as number[]).map((n) => numbers[n]) }))
      .sort((a, b) => `${String(a.window_end)} ${JSON.stringify(a.group)}`.localeCompare(`${String(b.window_end)} ${JSON.stringify(b.group)}`));
  };
  const got = await firingsOf('interleaved.ndjson', interleaved, interleaved.map((_, i) => i));
  const want = await firingsOf('sorted.ndjson', sorted.map(({ e }) => e), sorted.map(({ i }) => i));
  assert.deepEqual(got, want);
  assert.deepEqual(
    got.map((f) => [f.correlation_title, f.group, f.window_start, f.window_end]),
    [
      ['Many failed logins', { ComputerName: 'pc2' }, at(0), at(20)],
      ['Failures then success', { ComputerName: 'pc2' }, at(20), at(30)],
      ['Many failed logins', { ComputerName: 'pc1' }, at(7200), at(7220)],
      ['Failures then success', { ComputerName: 'pc1' }, at(7220), at(7230)],
    ],
  );
  const r = await vigil(['scan', '--rules', rulesDir, '--events', eventsFile('interleaved-again.ndjson', interleaved), '--lateness', '10s']);
  assert.match(r.stderr, /4 firings, 1 late events dropped\n/);
});

test('a correlation that cannot be evaluated is reported as a rejected rule; the others run', async () => {
  const dir = join(tmp, 'rejected');
  mkdirSync(dir);
  writeFileSync(join(dir, 'failed.yml'), `title: Failed login\nid: ${FAILED_ID}\nlogsource:\n    product: windows\ndetection:\n    sel:\n        EventID: 4625\n    condition: sel\nlevel: low\n`);
  writeFileSync(join(dir, 'bad.yml'), `title: Bad\ncorrelation:\n    type: event_count\n    rules: [${FAILED_ID}]\n    timespan: 1m\n    condition:\n        gte: lots\n`);
  writeFileSync(join(dir, 'dangling.yml'), 'title: Dangling\ncorrelation:\n    type: temporal\n    rules: [nope, ' + FAILED_ID.toUpperCase() + ']\n    timespan: 1m\n');
  const file = eventsFile('one.ndjson', [{ EventID: 4625, '@timestamp': at(0) }]);
  const r = await vigil(['scan', '--rules', dir, '--events', file]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /rule rejected: .*bad\.yml: correlation: correlation\.condition: gte must be a number/);
  assert.match(r.stderr, /warning: correlation 'Dangling' references 'nope', which no loaded rule is \(by id or name\)/);
  assert.match(r.stderr, /1 rules rejected, 1 matches, \d+ events\/s; 1 correlation rules, 0 firings\n/);
});

test('option forms and usage errors of --timestamp-field and --lateness', () => {
  const base = ['--rules', 'r', '--events', 'e'];
  const d = parseScanArgs(base);
  assert.ok(d !== 'help');
  assert.equal(d.timestampField, '@timestamp');
  assert.equal(d.latenessMs, 5 * 60_000);
  const p = parseScanArgs([...base, '--timestamp-field', 'event.created', '--lateness=2h']);
  assert.ok(p !== 'help');
  assert.equal(p.timestampField, 'event.created');
  assert.equal(p.latenessMs, 7_200_000);
  const s = parseScanArgs([...base, '--lateness', '90']);
  assert.ok(s !== 'help');
  assert.equal(s.latenessMs, 90_000);
  const bad: Array<[string[], RegExp]> = [
    [['--lateness', '5x'], /--lateness 5x: expected a duration such as 30s, 5m, 1h or 1d/],
    [['--lateness', '-1s'], /--lateness needs a value|expected a duration/],
    [['--lateness', '1s', '--lateness', '2s'], /--lateness given twice/],
    [['--timestamp-field', 'a', '--timestamp-field', 'b'], /--timestamp-field given twice/],
    [['--timestamp-field'], /--timestamp-field needs a value/],
  ];
  for (const [args, message] of bad) assert.throws(() => parseScanArgs([...base, ...args]), (e: unknown) => e instanceof UsageError && message.test(e.message), args.join(' '));
});

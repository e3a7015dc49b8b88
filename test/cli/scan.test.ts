// `vigil scan` as a real process: corpus rules over the regression events (written to a temp NDJSON file),
// stdin input, rejected rules and bad lines reported and skipped, usage errors exit 2.
// Reads the shared corpus.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { regressionCases, repoRoot, rulesRoot } from '../sigma/corpus-helpers.js';
import { vigil, vigilArgv } from './vigil-process.js';

const cases = regressionCases();
const tmp = mkdtempSync(join(tmpdir(), 'vigil-scan-'));

interface Match {
  event: number;
  rule_id: string;
  rule_title: string;
  level: string;
  rule_path: string;
}

/** One NDJSON line per event of every case (as flattened, or as evtx_dump wrote it), with the case each
 * line comes from. */
function caseLines(shape: 'events' | 'raw_events'): { lines: string[]; owner: number[] } {
  const lines: string[] = [];
  const owner: number[] = [];
  cases.forEach((c, i) => {
    for (const e of c[shape]) {
      lines.push(JSON.stringify(e));
      owner.push(i);
    }
  });
  return { lines, owner };
}

/** The cases whose own rule matched fewer of their events than the case requires (empty: all found). */
function shortfalls(matches: Match[], owner: number[]): string[] {
  return cases
    .map((c, i) => [c, matches.filter((m) => owner[m.event] === i && m.rule_id === c.rule_id && m.rule_path.endsWith(c.rule_path)).length] as const)
    .filter(([c, n]) => n < (c.min_match_count ?? 1))
    .map(([c, n]) => `${c.rule_path}: ${n}`);
}

test('scan finds every regression case on the corpus rules; bad lines are reported and skipped', async () => {
  const { lines, owner } = caseLines('events');
  // Bad lines after the events of the fourth case.
  const at = owner.lastIndexOf(3) + 1;
  lines.splice(at, 0, '{"truncated": ', '42', '');
  owner.splice(at, 0, -1, -1, -1);
  const file = join(tmp, 'events.ndjson');
  writeFileSync(file, lines.join('\r\n') + '\n');
  const dirs = ['rules', 'rules-emerging-threats', 'rules-threat-hunting'].map((d) => join(rulesRoot, d));
  const r = await vigil(['scan', '--rules', ...dirs, '--events', file]);
  assert.equal(r.code, 0, r.stderr);
  const matches = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Match);
  for (const m of matches) {
    assert.deepEqual(Object.keys(m), ['event', 'rule_id', 'rule_title', 'level', 'rule_path']);
    assert.ok(m.event >= 0 && m.event < lines.length && owner[m.event] >= 0, `line ${m.event}`);
  }
  assert.deepEqual(shortfalls(matches, owner), []);
  const badLine = lines.indexOf('{"truncated": ');
  assert.match(r.stderr, new RegExp(`line ${badLine + 1} \\(event ${badLine}\\): not valid JSON`));
  assert.match(r.stderr, new RegExp(`line ${badLine + 2} \\(event ${badLine + 1}\\): not a JSON object`));
  assert.match(r.stderr, new RegExp(`${lines.length - 3} events scanned \\(2 bad lines skipped\\), \\d+ rules loaded`));
  assert.match(r.stderr, new RegExp(`${matches.length} matches, \\d+ events/s`));
});

test('events as evtx_dump writes them (Event.System / Event.EventData) are flattened under sigma-native and windows-thor', async () => {
  const { lines, owner } = caseLines('raw_events');
  const file = join(tmp, 'raw-events.ndjson');
  writeFileSync(file, lines.join('\n') + '\n');
  const paths = [...new Set(cases.map((c) => join(rulesRoot, c.rule_path)))];
  for (const pipeline of ['sigma-native', 'windows-thor']) {
    const r = await vigil(['scan', '--rules', ...paths, '--events', file, '--pipeline', pipeline]);
    assert.equal(r.code, 0, r.stderr);
    const matches = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Match);
    assert.deepEqual(shortfalls(matches, owner), [], pipeline);
  }
  // ecs-windows reads events as Winlogbeat ships them: an evtx_dump event is not rewritten there.
  const ecs = await vigil(['scan', '--rules', ...paths, '--events', file, '--pipeline', 'ecs-windows']);
  assert.equal(ecs.code, 0, ecs.stderr);
  assert.equal(ecs.stdout, '');
});

test('scan reads stdin, reports rejected rules with reasons and keeps going', async () => {
  const good = join(tmp, 'good.yml');
  writeFileSync(
    good,
    "title: Whoami\nid: 11111111-2222-3333-4444-555555555555\nlogsource: {category: process_creation, product: windows}\nlevel: medium\ndetection:\n  sel:\n    Image|endswith: '\\whoami.exe'\n  condition: sel\n",
  );
  const bad = join(tmp, 'bad.yml');
  writeFileSync(bad, 'title: broken\nlogsource: {product: windows}\ndetection:\n  condition: nothing\n');
  const events = ['{"Image":"C:\\\\Windows\\\\System32\\\\WHOAMI.EXE"}', '{"Image":"C:\\\\x.exe"}', '{"Image":"C:\\\\whoami.exe"}'].join('\n');
  const r = await vigil(['scan', '--rules', good, bad, '--events', '-'], events);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(
    r.stdout.trim().split('\n').map((l) => JSON.parse(l) as object),
    [0, 2].map((event) => ({ event, rule_id: '11111111-2222-3333-4444-555555555555', rule_title: 'Whoami', level: 'medium', rule_path: good })),
  );
  assert.match(r.stderr, /rule rejected: .*bad\.yml: /);
  assert.match(r.stderr, /3 events scanned \(0 bad lines skipped\), 1 rules loaded in \d+ ms, 1 rules rejected, 2 matches/);
});

test('usage errors exit 2 with a clear message', async () => {
  const rules = join(rulesRoot, 'rules/windows/process_creation/proc_creation_win_whoami_execution.yml');
  for (const [args, msg] of [
    [[], /--rules is required/],
    [['--rules', rules], /--events is required/],
    [['--rules', rules, '--events', '-', '--pipeline', 'nope'], /unknown pipeline 'nope'/],
    [['--rules', rules, '--events', '-', '--frobnicate'], /unknown argument '--frobnicate'/],
    // The paths of --rules end at the next option, a short one included.
    [['--rules', rules, '-x', '--events', '-'], /unknown argument '-x'/],
  ] as Array<[string[], RegExp]>) {
    const r = await vigil(['scan', ...args]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, msg);
  }
});

test('-h after the rule paths shows the usage', async () => {
  const rules = join(rulesRoot, 'rules/windows/process_creation/proc_creation_win_whoami_execution.yml');
  const r = await vigil(['scan', '--rules', rules, '-h']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^usage: vigil scan --rules/);
});

test('inputs that cannot be read exit 1; a missing rules path is reported and the others still scan', async () => {
  const rules = join(tmp, 'whoami-cmd.yml');
  writeFileSync(rules, "title: Whoami\nlogsource: {product: windows}\nlevel: low\ndetection:\n  sel:\n    CommandLine|contains: whoami\n  condition: sel\n");
  const noEvents = await vigil(['scan', '--rules', rules, '--events', join(tmp, 'missing.ndjson')]);
  assert.equal(noEvents.code, 1, noEvents.stderr);
  assert.match(noEvents.stderr, /--events .*missing\.ndjson: no such file/);
  const dir = await vigil(['scan', '--rules', rules, '--events', tmp]);
  assert.equal(dir.code, 1, dir.stderr);
  assert.match(dir.stderr, /is a directory/);
  const noRules = await vigil(['scan', '--rules', join(tmp, 'missing'), '--events', '-'], '{}\n');
  assert.equal(noRules.code, 1, noRules.stderr);
  assert.match(noRules.stderr, /rule rejected: .*missing: cannot read: .*no such file/);
  assert.match(noRules.stderr, /no rule loaded/);
  const some = await vigil(['scan', '--rules', join(tmp, 'missing'), '--rules', rules, '--events', '-'], `${JSON.stringify({ CommandLine: 'whoami' })}\n`);
  assert.equal(some.code, 0, some.stderr);
  assert.match(some.stderr, /rule rejected: .*missing: cannot read/);
  assert.match(some.stderr, /1 events scanned .*1 rules loaded .*1 rules rejected, 1 matches/);
});

test('a reader that goes away (EPIPE) ends the scan quietly with exit 0', async () => {
  const rule = join(tmp, 'every.yml');
  writeFileSync(rule, "title: Every\nlogsource: {product: windows}\nlevel: low\ndetection:\n  sel:\n    Image|contains: 'x'\n  condition: sel\n");
  const file = join(tmp, 'many.ndjson');
  writeFileSync(file, `${JSON.stringify({ Image: 'x'.repeat(2000) })}\n`.repeat(20000));
  const code = await new Promise<number | null>((resolve, reject) => {
    const p = spawn(process.execPath, vigilArgv(['scan', '--rules', rule, '--events', file]), { cwd: repoRoot });
    p.stdout.once('data', () => p.stdout.destroy());
    p.stderr.resume();
    p.on('error', reject);
    p.on('close', resolve);
  });
  assert.equal(code, 0);
});

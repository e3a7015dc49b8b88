// `vigil scan` at the edges of its files and streams, as a real process: rule files whose names are not
// UTF-8, rule files far larger than a rule text may be (never read), a message stream whose reader goes
// away, control characters in the rule paths written to the results, and a directory as standard input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../sigma/corpus-helpers.js';
import { vigil, vigilArgv } from './vigil-process.js';

const tmp = mkdtempSync(join(tmpdir(), 'vigil-scan-streams-'));
const RULE = `title: Whoami\nid: 11111111-2222-3333-4444-555555555555\nlogsource: {category: process_creation, product: windows}\nlevel: medium\ndetection:\n  sel:\n    CommandLine|contains: whoami\n  condition: sel\n`;
const HIT = `${JSON.stringify({ CommandLine: 'cmd /c whoami' })}\n`;

function dir(name: string): string {
  const d = join(tmp, name);
  mkdirSync(d);
  return d;
}

test('a rule file whose name is not UTF-8 is read through its bytes, and shown with U+FFFD', async () => {
  const d = dir('latin1');
  writeFileSync(Buffer.concat([Buffer.from(`${d}/caf`), Buffer.from([0xe9]), Buffer.from('.yml')]), RULE);
  const r = await vigil(['scan', '--rules', d, '--events', '-'], HIT);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /1 rules loaded/);
  assert.match(r.stderr, /0 rules rejected/);
  assert.equal(JSON.parse(r.stdout).rule_path, `${d}/caf\ufffd.yml`);
});

test('a .yml file larger than a rule text may be is rejected without being read; the other rules run', async () => {
  const d = dir('huge');
  writeFileSync(join(d, 'good.yml'), RULE);
  const huge = join(d, 'dump.yml');
  writeFileSync(huge, '');
  truncateSync(huge, 700 * 1024 * 1024); // sparse: larger than the longest string Node can make
  const r = await vigil(['scan', '--rules', d, '--events', '-'], HIT);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /rule rejected: .*dump\.yml: the file is larger than 16777216 bytes \(16 MiB\), the most a rule file may hold/);
  assert.equal(JSON.parse(r.stdout).event, 0);
});

test('when the reader of the messages goes away the scan goes on quietly and exits 0', async () => {
  const rule = join(dir('quiet'), 'whoami.yml');
  writeFileSync(rule, RULE);
  const result = await new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
    const p = spawn(process.execPath, vigilArgv(['scan', '--rules', rule, '--events', '-']), { cwd: repoRoot, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    p.stderr.destroy(); // `2>&1 | head -0`: every message meets a closed pipe
    p.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, stdout: out }));
    p.stdin.end(HIT.repeat(3));
  });
  assert.equal(result.code, 0);
  assert.deepEqual(
    result.stdout.trim().split('\n').map((l) => JSON.parse(l).event),
    [0, 1, 2],
  );
});

test('C1 control characters of a rule path are escaped in the result lines', async () => {
  const d = dir('c1');
  writeFileSync(join(d, 'csi\u009b2J.yml'), RULE);
  const r = await vigil(['scan', '--rules', d, '--events', '-'], HIT);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(!r.stdout.includes('\u009b'), JSON.stringify(r.stdout));
  assert.ok(r.stdout.includes('csi\\u009b2J.yml'), r.stdout);
  assert.equal(JSON.parse(r.stdout).rule_path, join(d, 'csi\u009b2J.yml'));
});

test('a directory as standard input is an input that cannot be read (exit 1)', async () => {
  const rule = join(dir('stdin-dir'), 'whoami.yml');
  writeFileSync(rule, RULE);
  const result = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
    const p = spawn(process.execPath, vigilArgv(['scan', '--rules', rule, '--events', '-']), { cwd: repoRoot, stdio: [openSync(tmp, 'r'), 'ignore', 'pipe'] });
    let err = '';
    p.stderr?.setEncoding('utf8').on('data', (s: string) => (err += s));
    p.on('error', reject);
    p.on('close', (c) => resolve({ code: c, stderr: err }));
  });
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /--events -: standard input is a directory/);
});

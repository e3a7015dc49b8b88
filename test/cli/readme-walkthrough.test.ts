// The README's "First steps" walkthrough, run as written (bash, curl, node) against a real `vigil
// serve`: every answer is what the README says, each ends its own line, the live stream shows the
// alert raised meanwhile, and nothing is left in the folder it ran in.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { repoRoot } from '../sigma/corpus-helpers.js';
import { ADMIN_PASSWORD, startServer, type RunningServer } from '../ui/browser.js';

/** The shell block of the README's walkthrough, pointed at `base` with the admin's password. */
function walkthrough(base: string): { script: string; promised: string } {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## First steps'));
  const script = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(script, 'the walkthrough has a sh block');
  const promised = /the answer says (\{.*\})\./.exec(script)?.[1];
  assert.ok(promised, 'step 4 says what its answer is');
  return {
    script: script
      .replace(/^BASE=.*$/m, `BASE=${base}`)
      .replace(/^PASSWORD=.*$/m, `PASSWORD='${ADMIN_PASSWORD}'`),
    promised,
  };
}

describe('the README walkthrough', () => {
  let server: RunningServer;
  let folder: string;

  before(async () => {
    server = await startServer();
    folder = mkdtempSync(join(tmpdir(), 'vigil-walkthrough-'));
  });
  after(async () => {
    await server?.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  test('runs as written and answers what it says', () => {
    const { script, promised } = walkthrough(server.url);
    const result = spawnSync('bash', ['-e', '-c', script], { cwd: folder, encoding: 'utf8', timeout: 120_000 });
    assert.equal(result.status, 0, `${result.stdout}\n${result.stderr}`);
    const lines = result.stdout.split('\n').filter((line) => line !== '');
    // Every answer on a line of its own: JSON, or a field of the event stream.
    for (const line of lines) {
      if (/^(retry|id|event|data): /.test(line)) continue;
      assert.doesNotThrow(() => JSON.parse(line), `a line that is not one answer: ${line.slice(0, 200)}`);
    }
    const answers = lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.ok(lines.includes(promised), `step 4 answers ${promised}`);
    const imports = answers.filter((a) => 'deployed' in a);
    assert.deepEqual(imports.map((a) => [a.created, a.deployed, a.failed]), [[1, 1, []], [2, 2, []]]);
    const ingests = answers.filter((a) => 'received' in a).map((a) => [a.received, a.accepted, a.alerts_created]);
    assert.deepEqual(ingests, [[2, 2, 1], [3, 3, 1], [1, 1, 1]], 'the whoami event, the correlation, the event sent while streaming');
    const triage = answers.filter((a) => 'comment_added' in a).map((a) => a.status);
    assert.deepEqual(triage, ['acknowledged', 'resolved']);
    const correlation = answers.find((a) => Array.isArray(a.items) && (a.items as { correlation?: unknown }[])[0]?.correlation);
    assert.ok(correlation, 'the correlation alert is listed with its correlation');
    assert.ok(lines.includes('retry: 3000'), 'the stream starts with retry: 3000');
    assert.ok(lines.includes('event: alert.created'), 'the stream shows the alert raised meanwhile');
    assert.deepEqual(readdirSync(folder), [], 'nothing is left in the folder');
  });
});

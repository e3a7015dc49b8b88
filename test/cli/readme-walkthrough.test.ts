// The README's "First steps" walkthrough, run as written (bash, curl, node) against a real `vigil
// serve` (started with NOTIFY_ALLOW_PRIVATE=true, as step 8 says), on the embedded database and on
// PostgreSQL: every answer is what the README says, each ends its own line, the live stream shows the
// alert raised meanwhile, the webhook receiver of step 8 prints the test message and the whoami alert,
// and nothing is left in the folder it ran in.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createPostgresDatabase, postgresUnavailable } from '../helpers/databases.js';
import { repoRoot } from '../sigma/corpus-helpers.js';
import { ADMIN_PASSWORD, startServer, type RunningServer } from '../ui/browser.js';
import { freePort } from './vigil-process.js';

/** The shell block of the README's walkthrough, pointed at `base` with the admin's password and its receiver on `hookPort`. */
function walkthrough(base: string, hookPort: number): { script: string; promised: string } {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## First steps'));
  const script = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(script, 'the walkthrough has a sh block');
  const promised = /the answer says (\{.*\})\./.exec(script)?.[1];
  assert.ok(promised, 'step 4 says what its answer is');
  return {
    script: script
      .replace(/^BASE=.*$/m, `BASE=${base}`)
      .replace(/^PASSWORD=.*$/m, `PASSWORD='${ADMIN_PASSWORD}'`)
      .replace(/^HOOK_PORT=.*$/m, `HOOK_PORT=${hookPort}`),
    promised,
  };
}

const postgresMissing = await postgresUnavailable();

for (const database of ['embedded', 'postgres'] as const) {
  describe(`the README walkthrough (${database} database)`, { skip: database === 'postgres' ? (postgresMissing ?? false) : false }, () => {
    let server: RunningServer;
    let folder: string;
    let dropDatabase: (() => Promise<void>) | undefined;

    before(async () => {
      const env: Record<string, string> = { NOTIFY_ALLOW_PRIVATE: 'true' };
      if (database === 'postgres') {
        const created = await createPostgresDatabase();
        dropDatabase = created.drop;
        env.DATABASE_URL = created.url;
      }
      server = await startServer({ env });
      folder = mkdtempSync(join(tmpdir(), 'vigil-walkthrough-'));
    });
    after(async () => {
      await server?.stop();
      await dropDatabase?.();
      rmSync(folder, { recursive: true, force: true });
    });

    test('runs as written and answers what it says', async () => {
      const { script, promised } = walkthrough(server.url, await freePort());
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
      assert.deepEqual(ingests, [[2, 2, 1], [3, 3, 1], [1, 1, 1], [1, 1, 1]], 'the whoami event, the correlation, the event sent while streaming, the event sent to the webhook');
      const triage = answers.filter((a) => 'comment_added' in a).map((a) => a.status);
      assert.deepEqual(triage, ['acknowledged', 'resolved']);
      const correlation = answers.find((a) => Array.isArray(a.items) && (a.items as { correlation?: unknown }[])[0]?.correlation);
      assert.ok(correlation, 'the correlation alert is listed with its correlation');
      assert.ok(lines.includes('retry: 3000'), 'the stream starts with retry: 3000');
      assert.ok(lines.includes('event: alert.created'), 'the stream shows the alert raised meanwhile');

      // Step 8: the test button's answer, what the receiver printed, the delivery log.
      const tested = answers.find((a) => 'delivered' in a && 'duration_ms' in a);
      assert.equal(tested?.delivered, true, 'the test message is delivered');
      assert.equal(tested?.status_code, 200);
      const received = answers.filter((a) => 'delivery_id' in a && 'sent_at' in a);
      assert.equal(received.length, 2, 'the receiver printed the test message and the alert');
      assert.equal(received[0].test, true);
      const alert = received[1].alert as { rule_title: string; user: string; url: string };
      assert.equal(alert.rule_title, 'Whoami Execution');
      assert.equal(alert.user, 'dave');
      assert.match(alert.url, /\/alerts\/[0-9a-f-]{36}$/);
      const log = answers.find((a) => Array.isArray(a.items) && (a.items as { kind?: string }[]).some((d) => d.kind === 'test'));
      assert.deepEqual(
        (log?.items as { kind: string; status: string }[]).map((d) => [d.kind, d.status]),
        [
          ['alert', 'delivered'],
          ['test', 'delivered'],
        ],
        'the delivery log',
      );
      assert.deepEqual(readdirSync(folder), [], 'nothing is left in the folder');
    });
  });
}

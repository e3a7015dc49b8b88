// A deployed rule over a work limit, stored by an older version (written here straight into the
// database), never stops the service from starting: at start its stored query is set aside with a
// warning in the log and one audit entry (not one more at the next start), and every other deployed rule
// loads and raises alerts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.js';
import { createService, type Service } from '../../src/server.js';
import { DATABASE_KINDS, openTestDatabase, postgresUnavailable, type TestDatabase } from '../helpers/databases.js';
import { ADMIN_PASSWORD, loginAdmin } from '../helpers/service.js';
import { backendOf, countRows, createPattern, createRule, equalsRule, ingest, sigma, type CreatedPattern } from '../rules/fixtures.js';

const OVER_LIMIT = sigma({
  title: 'Older rule',
  detection: `  selection:\n    CommandLine|re:\n${Array.from({ length: 2000 }, (_, i) => `      - '[a-z]{999}${i}'`).join('\n')}\n  condition: selection`,
});

for (const kind of DATABASE_KINDS) {
  describe(`a stored rule over a work limit at start [${kind}]`, async () => {
    const reason = kind === 'postgres' ? await postgresUnavailable() : null;
    if (reason) {
      describe(`skipped: ${reason}`, { skip: reason }, () => {});
      return;
    }
    let testDb: TestDatabase;
    let running: Service | undefined;
    const logged: string[] = [];
    const start = async () => {
      const logger = { level: 'warn', stream: { write: (line: string) => void logged.push(line) } };
      running = await createService(loadConfig({ ADMIN_PASSWORD, DATA_DIR: '/nonexistent-test-dir' }), { db: testDb.db, logger });
      return running;
    };
    const stop = async () => {
      await running?.close();
      running = undefined;
    };
    let pattern: CreatedPattern;
    let good: string;
    let older: string;

    before(async () => {
      testDb = await openTestDatabase(kind);
      const first = await start();
      const admin = await loginAdmin(first);
      pattern = await createPattern(admin, { name: 'restarts' });
      good = (await createRule(admin, { yaml_content: equalsRule('Good rule', 'Image', 'good.exe'), index_pattern: 'restarts', deploy: true })).id;
      older = (await createRule(admin, { yaml_content: equalsRule('Older rule', 'Image', 'older.exe'), index_pattern: 'restarts', deploy: true })).id;
      // What an older version without the limits could have stored and deployed.
      await first.db.query('UPDATE rules SET yaml_content = $1 WHERE id = $2', [OVER_LIMIT, older]);
      await first.db.query(`UPDATE stored_queries SET query = jsonb_set(query, '{yaml}', to_jsonb($1::text)) WHERE rule_id = $2`, [OVER_LIMIT, older]);
      await stop();
    });
    after(async () => {
      await stop();
      await testDb?.drop();
    });

    test('the service starts, sets the rule aside (warning, audit entry) and the other rules work', async () => {
      const service = await start();
      const health = await service.app.inject({ method: 'GET', url: '/api/health' });
      assert.equal(health.statusCode, 200, health.body);
      // Ingest waits for the stored queries' first load.
      const response = await ingest(service, pattern, [{ Image: 'good.exe' }, { Image: 'older.exe', CommandLine: 'x' }]);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.data.alerts_created, 1, response.body);
      assert.equal(await countRows(service, 'alerts WHERE rule_id = $1', [good]), 1);
      const backend = backendOf(service);
      assert.equal(backend.isLive(pattern.percolator_index, good), true);
      assert.equal(backend.isLive(pattern.percolator_index, older), false);

      const warning = logged.map((line) => JSON.parse(line)).find((entry) => entry.msg === 'stored query does not compile: rule set aside');
      assert.ok(warning, logged.join(''));
      assert.equal(warning.id, older);
      assert.match(warning.reason, /the rule has 2,000 regular expressions \(limit 200 per rule\)/);

      const [entry] = await service.db.query<{ actor: string | null; target_type: string; details: Record<string, unknown> }>(
        `SELECT actor, target_type, details FROM audit_log WHERE action = 'rule.set_aside' AND target_id = $1`,
        [older],
      );
      assert.equal(entry.actor, null);
      assert.equal(entry.target_type, 'rule');
      assert.equal(entry.details.index, pattern.percolator_index);
      assert.equal(entry.details.version, 1);
      assert.match(String(entry.details.reason), /limit 200 per rule/);
    });

    test('the next start sets it aside again without a second audit entry', async () => {
      await stop();
      const service = await start();
      const response = await ingest(service, pattern, [{ Image: 'good.exe', n: 2 }]);
      assert.equal(response.data.alerts_created, 1, response.body);
      assert.equal(backendOf(service).isLive(pattern.percolator_index, older), false);
      assert.equal(await countRows(service, `audit_log WHERE action = 'rule.set_aside' AND target_id = $1`, [older]), 1);
    });
  });
}

// Correlation windows survive a restart: part of a window ingested, the service closed and started
// again on the same database, the rest of the window ingested: it fires (once, even when everything is
// sent again), a chain continues from its inner correlation's firing, and inputs still waiting for the
// lateness bound are evaluated after the restart.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig, type Config } from '../../src/config.js';
import { createService, type Service } from '../../src/server.js';
import { DATABASE_KINDS, openTestDatabase, postgresUnavailable, type DatabaseKind, type TestDatabase } from '../helpers/databases.js';
import { ADMIN_PASSWORD, loginAdmin } from '../helpers/service.js';
import { type CreatedPattern } from '../rules/fixtures.js';
import { alertsOf, at, correlation, detection, event, scenario, send, store } from './scenario.js';

function restartSuite(kind: DatabaseKind, env: Record<string, string>, body: (run: { readonly service: Service; restart(): Promise<void> }) => void): void {
  describe(`correlation windows across a restart${env.CORRELATION_LATENESS ? ` (lateness ${env.CORRELATION_LATENESS} s)` : ''} [${kind}]`, async () => {
    const reason = kind === 'postgres' ? await postgresUnavailable() : null;
    if (reason) {
      describe(`skipped: ${reason}`, { skip: reason }, () => {});
      return;
    }
    let testDb: TestDatabase | undefined;
    let service: Service | undefined;
    let config: Config;
    before(async () => {
      testDb = await openTestDatabase(kind);
      config = loadConfig({ ADMIN_PASSWORD, DATA_DIR: '/nonexistent-test-dir', ...env });
      service = await createService(config, { db: testDb.db });
    });
    after(async () => {
      await service?.close();
      await testDb?.drop();
    });
    body({
      get service() {
        if (!service) throw new Error('service not started');
        return service;
      },
      async restart() {
        await service!.close();
        service = undefined;
        service = await createService(config, { db: testDb!.db });
      },
    });
  });
}

const failed = (seconds: number, User: string) => event(seconds, { EventID: 4625, User });
const success = (seconds: number, User: string) => event(seconds, { EventID: 4624, User });

for (const kind of DATABASE_KINDS) {
  restartSuite(kind, {}, (run) => {
    let pattern: CreatedPattern;
    let countId: string;
    let chainId: string;

    before(async () => {
      const admin = await loginAdmin(run.service);
      let detections: string[];
      ({ pattern, detectionIds: detections, correlationId: countId } = await scenario(
        admin,
        admin,
        [detection('rs_failed', { EventID: 4625 }), detection('rs_success', { EventID: 4624 })],
        correlation({ title: 'Three failures', type: 'event_count', rules: ['rs_failed'], groupBy: ['User'], timespan: '10m', condition: { gte: 3 } }),
      ));
      assert.equal(detections.length, 2);
      const [burst] = await store(admin, pattern, correlation({ title: 'Two failures', name: 'rs_burst', type: 'event_count', rules: ['rs_failed'], groupBy: ['User'], timespan: '10m', condition: { gte: 2 } }));
      [chainId] = await store(admin, pattern, correlation({ title: 'Success after failures', type: 'temporal_ordered', rules: ['rs_burst', 'rs_success'], groupBy: ['User'], timespan: '10m' }));
      assert.ok(burst);
      assert.equal((await admin.post(`/api/rules/${chainId}/deploy`)).statusCode, 200);
    });

    test('two failures before the restart and the third after it fire; the chain fires on the success after it', async () => {
      assert.equal((await send(run.service, pattern, [failed(0, 'alice'), failed(10, 'alice')])).data.alerts_created, 0);
      await run.restart();
      const third = await send(run.service, pattern, [failed(20, 'alice')]);
      assert.equal(third.data.alerts_created, 1, third.body);
      const [alert] = await alertsOf(run.service, countId);
      assert.equal(alert.correlation.window_start, at(0));
      assert.equal(alert.correlation.window_end, at(20));
      assert.equal(alert.correlation.event_ids.length, 3);
      await run.restart();
      // The inner correlation fired at 10 s (before the first restart): the success completes the chain.
      assert.equal((await send(run.service, pattern, [success(30, 'alice')])).data.alerts_created, 1);
      const [chained] = await alertsOf(run.service, chainId);
      assert.deepEqual(chained.correlation.group, { User: 'alice' });
      // The inner firing is the outer correlation's input at its window end (10 s).
      assert.equal(chained.correlation.window_start, at(10));
      assert.equal(chained.correlation.window_end, at(30));
    });

    test('after another restart, everything sent again raises nothing', async () => {
      await run.restart();
      const again = await send(run.service, pattern, [failed(0, 'alice'), failed(10, 'alice'), failed(20, 'alice'), success(30, 'alice')]);
      assert.equal(again.data.alerts_created, 0, again.body);
      assert.equal((await alertsOf(run.service, countId)).length, 1);
      assert.equal((await alertsOf(run.service, chainId)).length, 1);
    });
  });

  restartSuite(kind, { CORRELATION_LATENESS: '60' }, (run) => {
    test("inputs waiting for the lateness bound are kept across a restart and fire when their group's clock passes it", async () => {
      const admin = await loginAdmin(run.service);
      const { pattern, correlationId } = await scenario(
        admin,
        admin,
        [detection('rl_failed', { EventID: 4625 })],
        correlation({ title: 'Three failures', type: 'event_count', rules: ['rl_failed'], groupBy: ['User'], timespan: '10m', condition: { gte: 3 } }),
      );
      assert.equal((await send(run.service, pattern, [failed(10, 'bob'), failed(20, 'bob')])).data.alerts_created, 0);
      await run.restart();
      assert.equal((await send(run.service, pattern, [failed(0, 'bob')])).data.alerts_created, 0, 'within the lateness: accepted, evaluated later');
      await run.restart();
      // Another group's newer event moves only its own clock.
      assert.equal((await send(run.service, pattern, [failed(100, 'carl')])).data.alerts_created, 0);
      const moved = await send(run.service, pattern, [failed(100, 'bob')]);
      assert.equal(moved.data.alerts_created, 1, moved.body);
      const [alert] = await alertsOf(run.service, correlationId);
      assert.deepEqual(alert.correlation.group, { User: 'bob' });
      assert.equal(alert.correlation.window_start, at(0));
      assert.equal(alert.correlation.window_end, at(20));
    });
  });
}

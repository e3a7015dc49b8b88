// The matcher threads hold the deployed rules' compiled copies: if one dies, a fresh thread replaces it
// and every deployed rule is applied to it again, so the next events are matched against every deployed
// rule as before (and nothing is matched against an empty rule set meanwhile).
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Worker } from 'node:worker_threads';
import { describeEachDatabase } from '../helpers/service.js';
import { backendOf, createRule, equalsRule, ingest, setUpTeam, type CreatedPattern } from '../rules/fixtures.js';

describeEachDatabase('a lost matcher thread is replaced', (ctx) => {
  let pattern: CreatedPattern;

  before(async () => {
    let analyst;
    ({ analyst, pattern } = await setUpTeam(ctx.service, 'matcher-analyst', 'matcher-viewer', { name: 'matcher-lost', is_default: true }));
    await createRule(analyst, { yaml_content: equalsRule('Matcher marker', 'Image', 'marker.exe'), deploy: true });
  });

  test('events after the thread died are matched against every deployed rule', async () => {
    const first = await ingest(ctx.service, pattern, [{ Image: 'marker.exe', seq: 1 }]);
    assert.equal(first.data.alerts_created, 1, first.body);
    // The threads end as a crash would end them (the service is not told beforehand).
    const workers = () => (backendOf(ctx.service) as unknown as { rules: { threads: { worker: Worker }[] } }).rules.threads.map((t) => t.worker);
    const lost = workers();
    await Promise.all(lost.map((worker) => worker.terminate()));
    const again = await ingest(ctx.service, pattern, [{ Image: 'marker.exe', seq: 2 }, { Image: 'other.exe', seq: 3 }]);
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.data.alerts_created, 1, again.body);
    for (const [i, worker] of workers().entries()) assert.notEqual(worker, lost[i], 'a new thread took over');
  });
});

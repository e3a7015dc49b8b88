// The rule lifecycle end to end: index pattern → create → deploy → test → ingest → historical test →
// undeploy → delete, checking the stored query follows every step.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { anonymous, describeEachDatabase, loginAdmin } from '../helpers/service.js';

const RULE = `title: Suspicious Whoami
id: 9f6a1c2e-4b1d-4c3a-9d5e-000000000001
status: test
description: whoami run by a user
author: Vigil tests
logsource:
  category: process_creation
  product: windows
detection:
  selection:
    Image|endswith: '\\whoami.exe'
  filter:
    User: SYSTEM
  condition: selection and not filter
level: high
tags:
  - attack.discovery
  - attack.t1033
`;

describeEachDatabase('rule lifecycle', (ctx) => {
  test('create, deploy, test, ingest, historical, undeploy, delete', async () => {
    const admin = await loginAdmin(ctx.service);
    const pattern = await admin.post('/api/index_patterns', { name: 'windows', is_default: true });
    assert.equal(pattern.statusCode, 201, pattern.body);
    assert.equal(pattern.data.percolator_index, 'svc-percolator-windows');
    assert.match(pattern.data.ingest_token, /^svc_it_[0-9A-Za-z]{40}$/);

    const created = await admin.post('/api/rules', { yaml_content: RULE });
    assert.equal(created.statusCode, 201, created.body);
    const rule = created.data;
    assert.equal(rule.status, 'undeployed');
    assert.equal(rule.version, 1);
    assert.equal(rule.severity, 'high');
    assert.equal(rule.index_pattern, 'windows');
    assert.deepEqual(rule.tags, ['attack.discovery', 'attack.t1033']);
    assert.equal(rule.created_by, 'admin');

    const deployed = await admin.post(`/api/rules/${rule.id}/deploy`);
    assert.equal(deployed.statusCode, 200, deployed.body);
    assert.equal(deployed.data.status, 'deployed');
    assert.equal(typeof deployed.data.percolator_id, 'string');
    assert.ok(await ctx.service.context.backend.hasStoredQuery('svc-percolator-windows', deployed.data.percolator_id));
    const hits = await ctx.service.context.backend.percolate('svc-percolator-windows', [
      { Image: 'C:\\Windows\\System32\\whoami.exe', User: 'alice' },
      { Image: 'C:\\Windows\\System32\\whoami.exe', User: 'SYSTEM' },
    ]);
    assert.deepEqual(hits, [[deployed.data.percolator_id], []]);

    const sample = await admin.post(`/api/rules/${rule.id}/test`, { sample_log: { Image: 'C:\\x\\WHOAMI.EXE', User: 'bob' } });
    assert.equal(sample.statusCode, 200, sample.body);
    assert.equal(sample.data.matches, true);
    assert.equal(sample.data.rule_id, rule.id);
    assert.equal(sample.data.excepted, false);
    assert.deepEqual(sample.data.matched_conditions, [{ selection: { Image: 'C:\\x\\WHOAMI.EXE' } }]);

    const now = new Date().toISOString();
    const ingest = await anonymous(ctx.service).post(
      '/api/logs/windows',
      [
        { '@timestamp': now, Image: 'C:\\Windows\\whoami.exe', User: 'carol' },
        { '@timestamp': now, Image: 'C:\\Windows\\notepad.exe', User: 'carol' },
        { '@timestamp': now, Image: 'C:\\Windows\\whoami.exe', User: 'SYSTEM' },
      ],
      { authorization: `Bearer ${pattern.data.ingest_token}` },
    );
    assert.equal(ingest.statusCode, 200, ingest.body);
    assert.equal(ingest.data.accepted, 3);

    const history = await admin.post(`/api/rules/${rule.id}/test/historical`, { time_range: '1h', limit: 10 });
    assert.equal(history.statusCode, 200, history.body);
    assert.equal(history.data.matches, 1);
    assert.equal(history.data.events_scanned, 3);
    assert.equal(history.data.sample_matches[0].User, 'carol');
    assert.equal(history.data.sample_matches[0].timestamp, now);

    const undeployed = await admin.post(`/api/rules/${rule.id}/undeploy`);
    assert.deepEqual(undeployed.data, { id: rule.id, status: 'undeployed' });
    assert.equal(await ctx.service.context.backend.hasStoredQuery('svc-percolator-windows', deployed.data.percolator_id), false);

    const removed = await admin.delete(`/api/rules/${rule.id}`);
    assert.equal(removed.statusCode, 204);
    assert.equal((await admin.get(`/api/rules/${rule.id}`)).statusCode, 404);
  });
});

// A correlation rule's life through the rules API: refused when it references no stored rule or cannot
// be evaluated; versions and rollback (a deployed correlation is redeployed, deploying the rules its new
// version references, and alerts carry the version that fired); the rules it uses cannot be undeployed
// or deleted while it is deployed (alone or in bulk); undeploying it drops its windows and frees them;
// deploying it needs its references on its own pattern; an import of one YAML holding rules and a
// correlation deploys them together, ready for events.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase, type Client } from '../helpers/service.js';
import { assertError, countRows, setUpTeam, type CreatedPattern } from '../rules/fixtures.js';
import { alertsOf, correlation, detection, event, newPattern, scenario, send, store } from './scenario.js';

describeEachDatabase('correlation rules through their life', (ctx) => {
  let admin: Client;
  let analyst: Client;

  before(async () => {
    ({ admin, analyst } = await setUpTeam(ctx.service, 'lucy', 'luke', { name: 'life-default', is_default: true }));
  });

  const ruleOf = async (id: string) => (await analyst.get(`/api/rules/${id}`)).data;

  test('422 naming each reference that no stored rule answers to (by id or name, in any case)', async () => {
    const pattern = await newPattern(admin);
    await store(analyst, pattern, detection('ref_known', { EventID: 1 }, { id: 'a3c5e1f0-1111-4222-8333-944455556666' }));
    const yaml = correlation({ title: 'Refs', type: 'temporal', rules: ['REF_Known', 'ref_unknown', 'A3C5E1F0-1111-4222-8333-944455556666', 'b3c5e1f0-1111-4222-8333-944455556666'], timespan: '5m' });
    const response = await analyst.post('/api/rules', { yaml_content: yaml, index_pattern: pattern.name });
    assertError(response, 422, 'Validation failed');
    assert.deepEqual(response.data.errors, [
      { field: 'correlation.rules[1]', message: "rule 'ref_unknown' does not exist (no stored rule has this Sigma id or name)" },
      { field: 'correlation.rules[3]', message: "rule 'b3c5e1f0-1111-4222-8333-944455556666' does not exist (no stored rule has this Sigma id or name)" },
    ]);
  });

  test('422 on the field correlation for a correlation that cannot be evaluated', async () => {
    const pattern = await newPattern(admin);
    await store(analyst, pattern, detection('bad_base', { EventID: 1 }));
    const cases: [string, string][] = [
      [correlation({ title: 'Unknown type', type: 'event_tally', rules: ['bad_base'], timespan: '5m', condition: { gte: 3 } }), 'correlation.type'],
      [correlation({ title: 'No condition', type: 'event_count', rules: ['bad_base'], timespan: '5m' }), 'correlation.condition'],
      [correlation({ title: 'Unknown operator', type: 'event_count', rules: ['bad_base'], timespan: '5m', condition: { most: 3 } }), 'correlation.condition'],
      [correlation({ title: 'No field', type: 'value_count', rules: ['bad_base'], timespan: '5m', condition: { gte: 3 } }), 'correlation.condition.field'],
      [correlation({ title: 'Bad timespan', type: 'event_count', rules: ['bad_base'], timespan: 'soon', condition: { gte: 3 } }), 'correlation.timespan'],
      // pySigma's expressions over rule names are not evaluated: refused as a whole.
      [correlation({ title: 'Expression', type: 'temporal', rules: ['bad_base'], timespan: '5m' }).replace('timespan: 5m', 'timespan: 5m\n  condition: bad_base and not bad_base'), 'correlation'],
    ];
    for (const [yaml, field] of cases) {
      const response = await analyst.post('/api/rules', { yaml_content: yaml, index_pattern: pattern.name });
      assertError(response, 422, 'Validation failed');
      assert.deepEqual(
        (response.data.errors as { field: string }[]).map((e) => e.field),
        [field],
        `${yaml}\n${response.body}`,
      );
    }
  });

  test('an update is a new version: the deployed correlation is redeployed with the rules it now references, and fires by it', async () => {
    const pattern = await newPattern(admin);
    const [a, b] = await store(analyst, pattern, detection('ver_a', { CommandLine: 'whoami' }), detection('ver_b', { CommandLine: 'hostname' }));
    const v1 = correlation({ title: 'Versioned', type: 'temporal', rules: ['ver_a'], groupBy: ['Computer'], timespan: '5m' });
    const [id] = await store(analyst, pattern, v1);
    assert.equal((await analyst.post(`/api/rules/${id}/deploy`)).statusCode, 200);
    assert.equal((await ruleOf(a)).status, 'deployed');
    assert.equal((await ruleOf(b)).status, 'undeployed');

    const v2 = correlation({ title: 'Versioned', type: 'temporal', rules: ['ver_a', 'ver_b'], groupBy: ['Computer'], timespan: '5m' });
    const updated = await analyst.put(`/api/rules/${id}`, { yaml_content: v2 });
    assert.equal(updated.statusCode, 200, updated.body);
    assert.equal(updated.data.version, 2);
    assert.equal(updated.data.status, 'deployed');
    assert.equal(updated.data.deployed_version, 2);
    assert.equal(updated.data.rule_type, 'correlation');
    assert.equal((await ruleOf(b)).status, 'deployed', 'the rule the new version references is deployed with it');

    const run = (seconds: number, Computer: string, CommandLine: string) => event(seconds, { Computer, CommandLine });
    // Version 1 would fire on whoami alone; version 2 needs both.
    assert.equal((await send(ctx.service, pattern, [run(0, 'pc1', 'whoami')])).data.alerts_created, 0);
    assert.equal((await send(ctx.service, pattern, [run(10, 'pc1', 'hostname')])).data.alerts_created, 1);
    const [alert] = await alertsOf(ctx.service, id);
    assert.equal(alert.rule_version, 2);

    const versions = await analyst.get(`/api/rules/${id}/versions`);
    assert.equal(versions.statusCode, 200, versions.body);
    assert.deepEqual(
      versions.data.items.map((v: { version: number }) => v.version),
      [2, 1],
    );

    const rolledBack = await analyst.post(`/api/rules/${id}/rollback`, { version: 1 });
    assert.equal(rolledBack.statusCode, 200, rolledBack.body);
    assert.equal(rolledBack.data.version, 3);
    assert.equal(rolledBack.data.deployed_version, 3);
    assert.equal(rolledBack.data.yaml_content, v1);
    assert.equal((await send(ctx.service, pattern, [run(20, 'pc2', 'whoami')])).data.alerts_created, 1, 'version 3 (as version 1) fires on whoami alone');
    const latest = (await alertsOf(ctx.service, id)).at(-1)!;
    assert.equal(latest.rule_version, 3);
    assert.deepEqual(latest.correlation.group, { Computer: 'pc2' });
  });

  test('a deployed detection rule cannot become a correlation', async () => {
    const pattern = await newPattern(admin);
    const [base] = await store(analyst, pattern, detection('morph_base', { EventID: 1 }));
    await store(analyst, pattern, detection('morph_other', { EventID: 2 }));
    assert.equal((await analyst.post(`/api/rules/${base}/deploy`)).statusCode, 200);
    const response = await analyst.put(`/api/rules/${base}`, {
      yaml_content: correlation({ title: 'Morphed', type: 'event_count', rules: ['morph_other'], timespan: '5m', condition: { gte: 2 } }),
    });
    assertError(response, 409, /cannot change between detection and correlation/);
  });

  test('409 on undeploying or deleting a rule a deployed correlation uses (alone or in bulk); undeploying the correlation drops its windows and frees the rule', async () => {
    const { pattern, detectionIds, correlationId } = await scenario(
      admin,
      analyst,
      [detection('needed_failed', { EventID: 4625 })],
      correlation({ title: 'Needs Its Rule', type: 'event_count', rules: ['needed_failed'], groupBy: ['User'], timespan: '5m', condition: { gte: 3 } }),
    );
    const [base] = detectionIds;
    const message = "The rule cannot be undeployed while deployed correlation rules use it ('Needs Its Rule'): undeploy them first";
    assertError(await analyst.post(`/api/rules/${base}/undeploy`), 409, message);
    assertError(await admin.delete(`/api/rules/${base}`), 409, /cannot be deleted while deployed correlation rules use it \('Needs Its Rule'\)/);
    const bulk = await analyst.post('/api/rules/bulk/undeploy', { ids: [base] });
    assert.equal(bulk.statusCode, 200, bulk.body);
    assert.equal(bulk.data.undeployed, 0);
    assert.equal(bulk.data.failed.length, 1, bulk.body);
    assert.equal(bulk.data.failed[0].id, base);
    assert.match(JSON.stringify(bulk.data.failed[0]), /Needs Its Rule/);
    assert.equal((await ruleOf(base)).status, 'deployed');

    const failed = (seconds: number) => event(seconds, { EventID: 4625, User: 'ursula' });
    assert.equal((await send(ctx.service, pattern, [failed(0), failed(10)])).data.alerts_created, 0);
    assert.equal((await analyst.post(`/api/rules/${correlationId}/undeploy`)).statusCode, 200);
    assert.equal(await countRows(ctx.service, 'correlation_states WHERE rule_id = $1', [correlationId]), 0);
    assert.equal((await ruleOf(base)).status, 'deployed', 'undeploying a correlation leaves its rules deployed');
    // Undeployed: its rule alerts on its own again.
    assert.equal((await send(ctx.service, pattern, [failed(20)])).data.alerts_created, 1);
    assert.equal((await alertsOf(ctx.service, base)).length, 1);

    // Redeployed: the two events before the undeploy are gone from its windows.
    assert.equal((await analyst.post(`/api/rules/${correlationId}/deploy`)).statusCode, 200);
    assert.equal((await send(ctx.service, pattern, [failed(30)])).data.alerts_created, 0);
    assert.equal((await send(ctx.service, pattern, [failed(40), failed(50)])).data.alerts_created, 1);

    assert.equal((await analyst.post(`/api/rules/${correlationId}/undeploy`)).statusCode, 200);
    assert.equal((await analyst.post(`/api/rules/${base}/undeploy`)).statusCode, 200);
    assert.equal((await admin.delete(`/api/rules/${base}`)).statusCode, 204);
    // The stored correlation now references a rule that is gone: it cannot be deployed.
    assertError(
      await analyst.post(`/api/rules/${correlationId}/deploy`),
      400,
      `Validation failed: the correlation references 'needed_failed', which no rule of index pattern '${pattern.name}' is (by Sigma id or name)`,
    );
    assert.equal((await ruleOf(correlationId)).status, 'undeployed');
  });

  test('deleting a deployed correlation frees its rules', async () => {
    const { detectionIds, correlationId } = await scenario(
      admin,
      analyst,
      [detection('freed_failed', { EventID: 4625 })],
      correlation({ title: 'Deleted Correlation', type: 'event_count', rules: ['freed_failed'], timespan: '5m', condition: { gte: 3 } }),
    );
    assert.equal((await admin.delete(`/api/rules/${correlationId}`)).statusCode, 204);
    assert.equal(await countRows(ctx.service, 'correlation_states WHERE rule_id = $1', [correlationId]), 0);
    assert.equal((await analyst.post(`/api/rules/${detectionIds[0]}/undeploy`)).statusCode, 200);
  });

  test('400 when a reference is a rule of another index pattern only; nothing is deployed', async () => {
    const other = await newPattern(admin);
    const [elsewhere] = await store(analyst, other, detection('elsewhere_rule', { EventID: 7 }));
    const pattern = await newPattern(admin);
    const [here] = await store(analyst, pattern, detection('here_rule', { EventID: 8 }));
    const [id] = await store(analyst, pattern, correlation({ title: 'Across Patterns', type: 'temporal', rules: ['here_rule', 'elsewhere_rule'], timespan: '5m' }));
    assertError(
      await analyst.post(`/api/rules/${id}/deploy`),
      400,
      `Validation failed: the correlation references 'elsewhere_rule', which no rule of index pattern '${pattern.name}' is (by Sigma id or name)`,
    );
    for (const rule of [id, here, elsewhere]) assert.equal((await ruleOf(rule)).status, 'undeployed');
  });

  test('an import of one YAML with a correlation before the rules it references stores and deploys them all, ready for events', async () => {
    const pattern: CreatedPattern = await newPattern(admin);
    const yaml = [
      correlation({ title: 'Imported Chain', type: 'temporal_ordered', rules: ['imp_burst', 'imp_success'], groupBy: ['User'], timespan: '10m' }),
      correlation({ title: 'Imported Burst', name: 'imp_burst', type: 'event_count', rules: ['imp_failed'], groupBy: ['User'], timespan: '10m', condition: { gte: 2 } }),
      detection('imp_failed', { EventID: 4625 }),
      detection('imp_success', { EventID: 4624 }),
    ].join('---\n');
    const imported = await admin.service.app.inject({
      method: 'POST',
      url: `/api/rules/import?deploy=true&index_pattern=${pattern.name}`,
      payload: yaml,
      headers: { authorization: `Bearer ${analyst.token}`, 'x-csrf-token': analyst.csrf!, 'content-type': 'application/yaml' },
    });
    assert.equal(imported.statusCode, 200, imported.body);
    const answer = JSON.parse(imported.body);
    assert.deepEqual(answer.failed, []);
    assert.equal(answer.created, 4, imported.body);
    assert.equal(answer.rule_ids.length, 4);
    const rules = await Promise.all((answer.rule_ids as string[]).map(ruleOf));
    const byTitle = new Map(rules.map((r) => [r.title, r]));
    assert.equal(byTitle.get('Imported Chain').rule_type, 'correlation');
    assert.equal(byTitle.get('Imported Chain').status, 'deployed');
    assert.equal(byTitle.get('Detection imp_failed').status, 'deployed');
    assert.equal(byTitle.get('Detection imp_success').status, 'deployed');

    const response = await send(ctx.service, pattern, [
      event(0, { EventID: 4625, User: 'ivy' }),
      event(10, { EventID: 4625, User: 'ivy' }),
      event(20, { EventID: 4624, User: 'ivy' }),
    ]);
    const chainId = byTitle.get('Imported Chain').id as string;
    const chainAlerts = await alertsOf(ctx.service, chainId);
    assert.equal(chainAlerts.length, 1, response.body);
    assert.deepEqual(chainAlerts[0].correlation.group, { User: 'ivy' });
  });

  test('an import of a correlation whose references are nowhere reports it failed with the missing reference', async () => {
    const pattern = await newPattern(admin);
    const yaml = [detection('half_known', { EventID: 1 }), correlation({ title: 'Half Known', type: 'temporal', rules: ['half_known', 'half_missing'], timespan: '5m' })].join('---\n');
    const imported = await admin.service.app.inject({
      method: 'POST',
      url: `/api/rules/import?deploy=true&index_pattern=${pattern.name}`,
      payload: yaml,
      headers: { authorization: `Bearer ${analyst.token}`, 'x-csrf-token': analyst.csrf!, 'content-type': 'application/yaml' },
    });
    assert.equal(imported.statusCode, 200, imported.body);
    const answer = JSON.parse(imported.body);
    assert.equal(answer.created, 1, imported.body);
    assert.equal(answer.failed.length, 1, imported.body);
    assert.equal(answer.failed[0].index, 1);
    assert.deepEqual(answer.failed[0].errors, [{ field: 'correlation.rules[1]', message: "rule 'half_missing' does not exist (no stored rule has this Sigma id or name)" }]);
  });
});

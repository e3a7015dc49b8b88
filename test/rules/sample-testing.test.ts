// Rule testing against a sample event: POST /api/rules/{id}/test and POST /api/rules/test (unsaved YAML):
// response shape, matched_conditions [{selection: {field: value}}], 400 sample format, 422 with paths.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { anonymous, describeEachDatabase, loginAdmin, type Client } from '../helpers/service.js';
import { NIL_UUID, WHOAMI_EVENT, assertError, countRows, createPattern, createRule, sigma, type Json, userAs } from './fixtures.js';

const TWO_SELECTIONS = sigma({
  title: 'Two selections',
  detection: [
    '  process:',
    "    Image|endswith: '\\cmd.exe'",
    '  args:',
    '    CommandLine|contains:',
    "      - '/c whoami'",
    "      - '/c net user'",
    '  quiet:',
    "    User: 'SYSTEM'",
    '  condition: process and args and not quiet',
  ].join('\n'),
});

describeEachDatabase('rule testing with a sample event', (ctx) => {
  let admin: Client;
  let analyst: Client;
  let viewer: Client;
  let rule: Record<string, Json>;

  before(async () => {
    admin = await loginAdmin(ctx.service);
    analyst = await userAs(admin, 'analyst', 'tess');
    viewer = await userAs(admin, 'viewer', 'tom');
    await createPattern(admin, { name: 'samples', is_default: true });
    rule = await createRule(analyst, { yaml_content: TWO_SELECTIONS, title: 'Cmd whoami' });
  });

  test('a matching sample: {matches, rule_id, rule_title, matched_conditions, excepted}', async () => {
    const sample = { Image: 'C:\\Windows\\System32\\CMD.EXE', CommandLine: 'cmd.exe /c whoami /all', User: 'alice', Other: 1 };
    const response = await analyst.post(`/api/rules/${rule.id}/test`, { sample_log: sample });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.data, {
      matches: true,
      rule_id: rule.id,
      rule_title: 'Cmd whoami',
      matched_conditions: [{ process: { Image: 'C:\\Windows\\System32\\CMD.EXE' } }, { args: { CommandLine: 'cmd.exe /c whoami /all' } }],
      excepted: false,
    });
  });

  test('a sample that does not match: matches false and no matched conditions', async () => {
    const response = await analyst.post(`/api/rules/${rule.id}/test`, { sample_log: { Image: 'C:\\cmd.exe', CommandLine: '/c whoami', User: 'SYSTEM' } });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.data.matches, false);
    assert.deepEqual(response.data.matched_conditions, []);
    assert.equal(response.data.excepted, false);
    const empty = await analyst.post(`/api/rules/${rule.id}/test`, { sample_log: {} });
    assert.equal(empty.statusCode, 200, empty.body);
    assert.equal(empty.data.matches, false);
  });

  test('sample_log that is not an object (or nests too deeply) is 400 "Invalid sample log format"', async () => {
    const tooDeep: unknown = JSON.parse(`${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`);
    for (const sample_log of ['a string', 42, null, [1, 2], true, tooDeep]) {
      assertError(await analyst.post(`/api/rules/${rule.id}/test`, { sample_log }), 400, 'Invalid sample log format');
      assertError(await analyst.post('/api/rules/test', { yaml_content: TWO_SELECTIONS, sample_log }), 400, 'Invalid sample log format');
    }
    assertError(await analyst.post(`/api/rules/${rule.id}/test`, {}), 400, 'Invalid sample log format');
  });

  test('testing needs analyst: viewer 403, anonymous 401; unknown and non-UUID rules 404', async () => {
    assertError(await viewer.post(`/api/rules/${rule.id}/test`, { sample_log: WHOAMI_EVENT }), 403, 'Not enough permissions');
    assertError(await viewer.post('/api/rules/test', { yaml_content: TWO_SELECTIONS, sample_log: WHOAMI_EVENT }), 403, 'Not enough permissions');
    assertError(await anonymous(ctx.service).post(`/api/rules/${rule.id}/test`, { sample_log: WHOAMI_EVENT }), 401, 'Could not validate credentials');
    assertError(await analyst.post(`/api/rules/${NIL_UUID}/test`, { sample_log: WHOAMI_EVENT }), 404, 'Rule not found');
    assertError(await analyst.post('/api/rules/xyz/test', { sample_log: WHOAMI_EVENT }), 404, 'Rule not found');
  });

  test('unsaved YAML: same shape with rule_id null', async () => {
    const response = await analyst.post('/api/rules/test', { yaml_content: sigma(), sample_log: WHOAMI_EVENT });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.data, {
      matches: true,
      rule_id: null,
      rule_title: 'Whoami Execution',
      matched_conditions: [{ selection: { Image: WHOAMI_EVENT.Image } }],
      excepted: false,
    });
    const miss = await analyst.post('/api/rules/test', { yaml_content: sigma(), sample_log: { Image: 'x', User: 'y' } });
    assert.equal(miss.data.matches, false);
    assert.equal(miss.data.rule_id, null);
  });

  test('unsaved YAML that fails validation is 422 "Rule validation failed" with paths; bad YAML syntax 400', async () => {
    const missingLevel = await analyst.post('/api/rules/test', { yaml_content: sigma().replace(/^level: .*$/m, ''), sample_log: WHOAMI_EVENT });
    assertError(missingLevel, 422, 'Rule validation failed');
    assert.ok(missingLevel.data.errors.some((e: { field: string }) => e.field === 'level'), missingLevel.body);

    const badCondition = await analyst.post('/api/rules/test', {
      yaml_content: sigma({ detection: "  selection:\n    Image: 'x'\n  condition: selection and missing" }),
      sample_log: WHOAMI_EVENT,
    });
    assertError(badCondition, 422, 'Rule validation failed');
    assert.ok(badCondition.data.errors.some((e: { field: string }) => e.field === 'detection.condition'), badCondition.body);

    const badModifier = await analyst.post('/api/rules/test', {
      yaml_content: sigma({ detection: "  selection:\n    Image|sortof: 'x'\n  condition: selection" }),
      sample_log: WHOAMI_EVENT,
    });
    assertError(badModifier, 422, 'Rule validation failed');
    assert.ok(badModifier.data.errors.every((e: { field: string; message: string }) => typeof e.field === 'string' && typeof e.message === 'string'));
    assert.ok(badModifier.data.errors.some((e: { field: string }) => e.field.startsWith('detection.selection')), badModifier.body);

    const badRegex = await analyst.post('/api/rules/test', {
      yaml_content: sigma({ detection: "  selection:\n    Image|re: '(?!x)y'\n  condition: selection" }),
      sample_log: WHOAMI_EVENT,
    });
    assertError(badRegex, 422, 'Rule validation failed');
    assert.ok(badRegex.data.errors.some((e: { field: string }) => e.field === 'detection.selection.Image|re'), badRegex.body);

    const aggregation = await analyst.post('/api/rules/test', {
      yaml_content: sigma({ detection: "  selection:\n    Image: 'x'\n  condition: selection | count() > 3" }),
      sample_log: WHOAMI_EVENT,
    });
    assertError(aggregation, 422, 'Rule validation failed');
    assert.match(JSON.stringify(aggregation.data.errors), /correlation/i);

    assertError(await analyst.post('/api/rules/test', { yaml_content: 'title: [x', sample_log: WHOAMI_EVENT }), 400, /^Invalid YAML syntax: /);
  });

  test('unsaved YAML against a named pattern: unmapped fields are 422 with the detection path', async () => {
    await createPattern(admin, { name: 'narrow', default_mapping: 'none', field_mappings: [{ sigma_field: 'User', target_field: 'user.name' }] });
    const response = await analyst.post('/api/rules/test', { yaml_content: sigma(), sample_log: WHOAMI_EVENT, index_pattern: 'narrow' });
    assertError(response, 422, 'Rule validation failed');
    assert.ok(response.data.errors.some((e: { field: string }) => e.field === 'detection.selection.Image|endswith'), response.body);
  });

  test('tests create nothing: no rule, no version, no alert, no stored event', async () => {
    const rules = await countRows(ctx.service, 'rules', []);
    const events = await countRows(ctx.service, 'events', []);
    await analyst.post('/api/rules/test', { yaml_content: sigma(), sample_log: WHOAMI_EVENT });
    await analyst.post(`/api/rules/${rule.id}/test`, { sample_log: WHOAMI_EVENT });
    assert.equal(await countRows(ctx.service, 'rules', []), rules);
    assert.equal(await countRows(ctx.service, 'events', []), events);
    const alertsTable = await ctx.service.db.query("SELECT 1 FROM information_schema.tables WHERE table_name = 'alerts'");
    if (alertsTable.length > 0) assert.equal(await countRows(ctx.service, 'alerts', []), 0);
  });
});

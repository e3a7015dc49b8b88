// Field mappings at work: a preset maps Sigma fields onto event fields; PATCHing a pattern's mappings
// redeploys its deployed rules (the stored query then matches the new field names) and is refused with 400,
// changing nothing, when a deployed rule would be left with an unmapped field.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase, loginAdmin, type Client } from '../helpers/service.js';
import { backendOf, createPattern, createRule, sigma, whileBackendOffline } from '../rules/fixtures.js';

/** A Sysmon process-creation event as Winlogbeat 7 ships it (ECS field names). */
const ecsSysmon = (executable: string, user: string) => ({
  event: { code: 1 },
  winlog: { channel: 'Microsoft-Windows-Sysmon/Operational' },
  process: { executable },
  user: { name: user },
});

describeEachDatabase('index pattern field mappings and redeploy', (ctx) => {
  let admin: Client;

  before(async () => {
    admin = await loginAdmin(ctx.service);
  });

  const matches = async (index: string, id: string, events: object[]) =>
    (await backendOf(ctx.service).percolate(index, events)).map((ids) => ids.includes(id));

  test('a preset maps Sigma fields: ecs-windows matches ECS Sysmon events, not the Sigma field names', async () => {
    const p = await createPattern(admin, { name: 'ecs', preset: 'ecs-windows' });
    const rule = await createRule(admin, { yaml_content: sigma(), index_pattern: 'ecs', deploy: true });
    assert.deepEqual(
      await matches(p.percolator_index, rule.id, [
        ecsSysmon('C:\\Windows\\System32\\whoami.exe', 'alice'),
        ecsSysmon('C:\\Windows\\System32\\whoami.exe', 'SYSTEM'),
        { ...ecsSysmon('C:\\Windows\\System32\\whoami.exe', 'alice'), event: { code: 3 } },
        { Image: 'C:\\Windows\\System32\\whoami.exe', User: 'alice', EventID: 1, Channel: 'Microsoft-Windows-Sysmon/Operational' },
      ]),
      [true, false, false, false],
    );
  });

  test("a pattern's own mappings win over its preset's; with default_mapping none the preset's table still counts as mapped", async () => {
    const p = await createPattern(admin, {
      name: 'ecs-own',
      preset: 'ecs-windows',
      default_mapping: 'none',
      field_mappings: [{ sigma_field: 'CommandLine', target_field: 'my.cmdline' }],
    });
    const detection = `  selection:\n    CommandLine|contains: whoami\n    OriginalFileName: whoami.exe\n  condition: selection`;
    const rule = await createRule(admin, { yaml_content: sigma({ detection }), index_pattern: 'ecs-own', deploy: true });
    const event = (commandLine: object) => ({
      event: { code: 1 },
      winlog: { channel: 'Microsoft-Windows-Sysmon/Operational' },
      process: { pe: { original_file_name: 'whoami.exe' } },
      ...commandLine,
    });
    assert.deepEqual(
      await matches(p.percolator_index, rule.id, [event({ my: { cmdline: 'whoami /all' } }), event({ process: { command_line: 'whoami /all' } })]),
      [true, false],
    );
    const unmapped = await admin.post('/api/rules', {
      yaml_content: sigma({ detection: `  selection:\n    Hashes|contains: abc\n  condition: selection` }),
      index_pattern: 'ecs-own',
    });
    assert.equal(unmapped.statusCode, 422, unmapped.body);
    assert.match(JSON.stringify(unmapped.data.errors), /field 'Hashes' is not mapped in index pattern 'ecs-own'/);
  });

  test('PATCH field_mappings redeploys deployed rules onto the new field names', async () => {
    const p = await createPattern(admin, { name: 'remap' });
    const rule = await createRule(admin, { yaml_content: sigma(), index_pattern: 'remap', deploy: true });
    const flat = { Image: 'C:\\Windows\\System32\\whoami.exe', User: 'alice' };
    const ecs = { process: { executable: 'C:\\Windows\\System32\\whoami.exe' }, user: { name: 'alice' } };
    assert.deepEqual(await matches(p.percolator_index, rule.id, [flat, ecs]), [true, false]);

    const response = await admin.patch(`/api/index_patterns/${p.id}`, {
      field_mappings: [
        { sigma_field: 'Image', target_field: 'process.executable' },
        { sigma_field: 'User', target_field: 'user.name' },
      ],
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.data.field_mappings, [
      { sigma_field: 'Image', target_field: 'process.executable' },
      { sigma_field: 'User', target_field: 'user.name' },
    ]);
    assert.deepEqual(await matches(p.percolator_index, rule.id, [flat, ecs]), [false, true]);
    const read = (await admin.get(`/api/rules/${rule.id}`)).data;
    assert.equal(read.status, 'deployed');
    // The sample test uses the same mappings.
    const tested = await admin.post(`/api/rules/${rule.id}/test`, { sample_log: ecs });
    assert.equal(tested.data.matches, true, tested.body);
  });

  test('one Sigma field may map to several event fields (any of them matches)', async () => {
    const p = await createPattern(admin, {
      name: 'multi',
      field_mappings: [
        { sigma_field: 'Image', target_field: 'process.executable' },
        { sigma_field: 'Image', target_field: 'winlog.event_data.NewProcessName' },
      ],
    });
    const rule = await createRule(admin, { yaml_content: sigma({ detection: "  selection:\n    Image|endswith: '\\whoami.exe'\n  condition: selection" }), index_pattern: 'multi', deploy: true });
    assert.deepEqual(
      await matches(p.percolator_index, rule.id, [
        { process: { executable: 'C:\\x\\whoami.exe' } },
        { winlog: { event_data: { NewProcessName: 'C:\\x\\whoami.exe' } } },
        { Image: 'C:\\x\\notepad.exe' },
      ]),
      [true, true, false],
    );
  });

  test('a change that would leave a deployed rule unmapped is 400 and changes nothing', async () => {
    const p = await createPattern(admin, { name: 'guarded-map', field_mappings: [{ sigma_field: 'Image', target_field: 'proc' }] });
    const rule = await createRule(admin, { yaml_content: sigma(), index_pattern: 'guarded-map', deploy: true });
    const event = { proc: 'C:\\x\\whoami.exe', User: 'alice' };
    assert.deepEqual(await matches(p.percolator_index, rule.id, [event]), [true]);
    const before = (await admin.get(`/api/index_patterns/${p.id}`)).data;

    const response = await admin.patch(`/api/index_patterns/${p.id}`, { default_mapping: 'none', description: 'should not stick' });
    assert.equal(response.statusCode, 400, response.body);
    assert.match(response.data.detail, /^Validation failed: field 'User' is not mapped in index pattern 'guarded-map'/);
    assert.deepEqual((await admin.get(`/api/index_patterns/${p.id}`)).data, before);
    assert.deepEqual(await matches(p.percolator_index, rule.id, [event]), [true]);
    assert.equal((await admin.get(`/api/rules/${rule.id}`)).data.status, 'deployed');

    // Undeployed rules do not block a change.
    await admin.post(`/api/rules/${rule.id}/undeploy`);
    assert.equal((await admin.patch(`/api/index_patterns/${p.id}`, { default_mapping: 'none' })).statusCode, 200);
  });

  test('a mapping change with the backend offline is 503 and changes nothing', async () => {
    const p = await createPattern(admin, { name: 'offline-map' });
    const rule = await createRule(admin, { yaml_content: sigma(), index_pattern: 'offline-map', deploy: true });
    const before = (await admin.get(`/api/index_patterns/${p.id}`)).data;
    const response = await whileBackendOffline(ctx.service, () =>
      admin.patch(`/api/index_patterns/${p.id}`, { field_mappings: [{ sigma_field: 'Image', target_field: 'process.executable' }] }),
    );
    assert.equal(response.statusCode, 503, response.body);
    assert.deepEqual((await admin.get(`/api/index_patterns/${p.id}`)).data, before);
    assert.deepEqual(await matches(p.percolator_index, rule.id, [{ Image: 'C:\\x\\whoami.exe', User: 'bob' }]), [true]);
  });

  test('rules deployed while the mappings change end up on the new mappings', async () => {
    const p = await createPattern(admin, { name: 'racing' });
    const early = await Promise.all(
      Array.from({ length: 4 }, (_, i) => createRule(admin, { yaml_content: sigma({ title: `Early ${i}` }), index_pattern: 'racing', deploy: true })),
    );
    const [patched, ...created] = await Promise.all([
      admin.patch(`/api/index_patterns/${p.id}`, { field_mappings: [{ sigma_field: 'Image', target_field: 'process.executable' }, { sigma_field: 'User', target_field: 'user.name' }] }),
      ...Array.from({ length: 8 }, (_, i) => admin.post('/api/rules', { yaml_content: sigma({ title: `Racing ${i}` }), index_pattern: 'racing', deploy: true })),
      ...early.map((rule) => admin.put(`/api/rules/${rule.id}`, { title: `${rule.title} renamed` })),
    ]);
    assert.equal(patched.statusCode, 200, patched.body);
    for (const r of created) assert.ok(r.statusCode === 201 || r.statusCode === 200, r.body);
    const ids = [...early.map((r) => r.id), ...created.slice(0, 8).map((r) => r.data.id)];
    const [hits] = await backendOf(ctx.service).percolate(p.percolator_index, [{ process: { executable: 'C:\\x\\whoami.exe' }, user: { name: 'eve' } }]);
    const stale = ids.filter((id) => !hits.includes(id));
    assert.deepEqual(stale, [], 'every deployed rule uses the new mappings');
  });

  test('changing the preset redeploys too', async () => {
    const p = await createPattern(admin, { name: 'preset-switch' });
    const rule = await createRule(admin, { yaml_content: sigma(), index_pattern: 'preset-switch', deploy: true });
    const response = await admin.patch(`/api/index_patterns/${p.id}`, { preset: 'ecs-windows' });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(
      await matches(p.percolator_index, rule.id, [ecsSysmon('C:\\x\\whoami.exe', 'bob'), { Image: 'C:\\x\\whoami.exe', User: 'bob' }]),
      [true, false],
    );
  });
});

// POST /api/rules/import: multi-document YAML and zip uploads with good and bad documents answer
// {created, deployed, failed: [{index, title?, error, errors?}]}; index_pattern and deploy query parameters.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { strToU8, zipSync } from 'fflate';
import { describeEachDatabase, type Client } from '../helpers/service.js';
import { assertError, backendOf, createPattern, equalsRule, postBinary, sigma, whileBackendOffline, type CreatedPattern, type Json, setUpTeam } from './fixtures.js';

const GOOD_A = equalsRule('Import A', 'Image', 'import-a.exe', 'high', ['attack.t1059']);
const GOOD_B = equalsRule('Import B', 'Image', 'import-b.exe', 'low');
const NO_LEVEL = equalsRule('Import no level', 'Image', 'x.exe').replace(/^level: .*\n/m, '');
const BAD_YAML = 'title: Broken [\ndetection: {\n';
const AGGREGATION = sigma({ title: 'Import aggregation', detection: "  selection:\n    EventID: 4625\n  condition: selection | count() > 5" });

describeEachDatabase('rule import', (ctx) => {
  let admin: Client;
  let analyst: Client;
  let viewer: Client;
  let pattern: CreatedPattern;

  before(async () => {
    ({ admin, analyst, viewer, pattern } = await setUpTeam(ctx.service, 'ike', 'ina', { name: 'imports' }));
    await createPattern(admin, { name: 'import-strict', default_mapping: 'none', field_mappings: [{ sigma_field: 'Image', target_field: 'process.executable' }] });
  });

  const importYaml = (text: string, query = '', client = analyst) => client.post(`/api/rules/import${query}`, text, { 'content-type': 'application/yaml' });
  const importZip = (files: Record<string, string | Uint8Array>, query = '', client = analyst) => {
    const entries: Record<string, Uint8Array> = {};
    for (const [name, content] of Object.entries(files)) entries[name] = typeof content === 'string' ? strToU8(content) : content;
    return postBinary(client, `/api/rules/import${query}`, Buffer.from(zipSync(entries)));
  };
  const byTitle = async (title: string) => (await viewer.get(`/api/rules?search=${encodeURIComponent(title)}`)).data.items as Record<string, Json>[];

  test('multi-document YAML: good documents are created, bad ones reported by index with title and errors', async () => {
    const text = [GOOD_A, NO_LEVEL, BAD_YAML, GOOD_B, AGGREGATION].map((doc) => `---\n${doc}`).join('');
    const response = await importYaml(text, '?index_pattern=imports');
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.data.created, 2);
    assert.equal(response.data.deployed, 0);
    const failed = response.data.failed as { index: number; title?: string; error: string; errors?: { field: string; message: string }[] }[];
    assert.deepEqual(failed.map((f) => f.index), [1, 2, 4]);
    assert.equal(failed[0].title, 'Import no level');
    assert.equal(failed[0].error, 'Validation failed');
    assert.ok(failed[0].errors!.some((e) => e.field === 'level'));
    assert.match(failed[1].error, /^Invalid YAML syntax: /);
    assert.equal(failed[2].title, 'Import aggregation');
    assert.match(JSON.stringify(failed[2].errors), /correlation/i);

    const [a] = await byTitle('Import A');
    assert.equal(a.status, 'undeployed');
    assert.equal(a.index_pattern, 'imports');
    assert.equal(a.version, 1);
    assert.equal(a.created_by, 'ike');
    assert.deepEqual(a.tags, ['attack.t1059']);
    assert.equal(a.yaml_content.trim(), GOOD_A.trim());
    assert.equal((await viewer.get(`/api/rules/${a.id}/versions`)).data.items.length, 1);
  });

  test('a zip of rule files with deploy=true: valid rules created and deployed, stored queries match', async () => {
    const response = await importZip(
      {
        'rules/windows/a.yml': equalsRule('Zip A', 'Image', 'zip-a.exe'),
        'rules/windows/b.yaml': equalsRule('Zip B', 'Image', 'zip-b.exe'),
        'rules/linux/broken.yml': 'title: Zip broken\nlevel: high\n',
        'rules/README.md': '# not a rule',
        'rules/linux/c.yml': equalsRule('Zip C', 'CommandLine', 'zip-c'),
      },
      '?index_pattern=imports&deploy=true',
    );
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.data.created, 3);
    assert.equal(response.data.deployed, 3);
    assert.equal(response.data.failed.length, 1);
    assert.equal(response.data.failed[0].title, 'Zip broken');
    assert.equal(typeof response.data.failed[0].index, 'number');
    assert.equal(response.data.failed[0].error, 'Validation failed');

    const [zipA] = await byTitle('Zip A');
    assert.equal(zipA.status, 'deployed');
    assert.equal(zipA.index_pattern, 'imports');
    const hits = await backendOf(ctx.service).percolate(pattern.percolator_index, [{ Image: 'zip-a.exe' }, { Image: 'zip-b.exe' }, { CommandLine: 'zip-c' }, { Image: 'none.exe' }]);
    assert.deepEqual(hits.map((ids) => ids.length), [1, 1, 1, 0]);
    assert.ok(hits[0].includes(zipA.percolator_id));
  });

  test('deploy=true into a pattern that does not map a field: that rule fails, the others deploy', async () => {
    const response = await importYaml(
      [equalsRule('Strict ok', 'Image', 'strict-ok.exe'), equalsRule('Strict unmapped', 'CommandLine', 'nope')].map((d) => `---\n${d}`).join(''),
      '?index_pattern=import-strict&deploy=true',
    );
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.data.created, 1);
    assert.equal(response.data.deployed, 1);
    assert.equal(response.data.failed.length, 1);
    assert.equal(response.data.failed[0].index, 1);
    assert.equal(response.data.failed[0].title, 'Strict unmapped');
    assert.match(JSON.stringify(response.data.failed[0]), /not mapped in index pattern 'import-strict'/);
    assert.equal((await byTitle('Strict unmapped')).length, 0);
  });

  test('an unknown index pattern is 422; backend offline with deploy=true is 503; nothing is created', async () => {
    const total = (await viewer.get('/api/rules?page_size=1')).data.total;
    assertError(await importYaml(GOOD_A, '?index_pattern=missing'), 422, 'Validation failed');
    assertError(await whileBackendOffline(ctx.service, () => importYaml(GOOD_A, '?index_pattern=imports&deploy=true')), 503, 'Search backend connection failed');
    assert.equal((await viewer.get('/api/rules?page_size=1')).data.total, total);
  });

  test('bad uploads: not a zip, empty, wrong content type are 4xx; viewers 403', async () => {
    const notZip = await postBinary(analyst, '/api/rules/import', Buffer.from('this is not a zip'));
    assert.equal(notZip.statusCode, 400, notZip.body);
    assert.equal((await importYaml('')).statusCode, 400);
    assert.equal((await importYaml('# only a comment\n')).statusCode, 400);
    const json = await analyst.post('/api/rules/import', { yaml_content: GOOD_A });
    assert.ok(json.statusCode === 400 || json.statusCode === 415, json.body);
    assert.equal((await importYaml(GOOD_A, '?deploy=maybe')).statusCode, 400);
    assertError(await importYaml(GOOD_A, '', viewer), 403, 'Not enough permissions');
  });

  test('import binds to the default pattern when none is named', async () => {
    await createPattern(admin, { name: 'import-default', is_default: true });
    const response = await importYaml(equalsRule('Default bound', 'Image', 'default.exe'));
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.data.created, 1);
    assert.equal((await byTitle('Default bound'))[0].index_pattern, 'import-default');
  });
});

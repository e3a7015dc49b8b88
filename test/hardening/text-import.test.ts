// Rule import with documents whose YAML escapes ("\ud800", "\0") load as text no column can hold: each
// such document is reported in `failed` like any other invalid one (by index, or by path in a zip),
// the others are created, and a bad document past the first batch never turns the answer into a 500
// after earlier rules were committed.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { strToU8, zipSync } from 'fflate';
import { describeEachDatabase, type Client } from '../helpers/service.js';
import { countRows, equalsRule, postBinary, setUpTeam, sigma } from '../rules/fixtures.js';

type Failure = { index: number; path?: string; title?: string; error: string; errors?: { field: string; message: string }[] };

const ESCAPED_TITLE = sigma({ title: '"Import escaped \\ud800 title"' });
const ESCAPED_VALUE = sigma({ title: 'Import escaped value', detection: '  selection:\n    Image: "a\\udfffb.exe"\n  condition: selection' });
const ESCAPED_LOGSOURCE = sigma({ title: 'Import escaped logsource', product: '"win\\ud800dows"' });
const NUL_VALUE = sigma({ title: 'Import nul value', detection: '  selection:\n    Image: "a\\0b.exe"\n  condition: selection' });

describeEachDatabase('rule import of unstorable text', (ctx) => {
  let analyst: Client;

  before(async () => {
    ({ analyst } = await setUpTeam(ctx.service, 'ivan', 'iris', { name: 'import-text', is_default: true }));
  });

  const importYaml = (docs: string[], query = '') => analyst.post(`/api/rules/import${query}`, docs.map((d) => `---\n${d}`).join(''), { 'content-type': 'application/yaml' });

  test('multi-document YAML: each escaped document is reported by index with the place named; the good ones are created', async () => {
    const response = await importYaml([equalsRule('Import text A', 'Image', 'a.exe'), ESCAPED_TITLE, ESCAPED_VALUE, NUL_VALUE, equalsRule('Import text B', 'Image', 'b.exe')], '?deploy=true');
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.data.created, 2, response.body);
    const failed = response.data.failed as Failure[];
    assert.deepEqual(failed.map((f) => f.index), [1, 2, 3]);
    for (const f of failed) assert.equal(f.error, 'Validation failed');
    assert.deepEqual(failed[0].errors?.map((e) => e.field), ['title']);
    assert.match(failed[0].errors![0].message, /surrogate/);
    assert.deepEqual(failed[1].errors?.map((e) => e.field), ['detection.selection.Image']);
    assert.deepEqual(failed[2].errors?.map((e) => e.field), ['detection.selection.Image']);
    assert.match(failed[2].errors![0].message, /NUL/);
    assert.equal(await countRows(ctx.service, 'rules WHERE title LIKE $1', ['Import escaped%']), 0);
    assert.equal(await countRows(ctx.service, 'rules WHERE title LIKE $1', ['Import text %']), 2);
  });

  test('zip: an escaped rule file is reported by its path', async () => {
    const zip = zipSync({ 'rules/good.yml': strToU8(equalsRule('Import zip good', 'Image', 'z.exe')), 'rules/bad.yml': strToU8(ESCAPED_VALUE) });
    const response = await postBinary(analyst, '/api/rules/import', Buffer.from(zip));
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.data.created, 1);
    const failed = response.data.failed as Failure[];
    assert.equal(failed.length, 1, response.body);
    assert.equal(failed[0].path, 'rules/bad.yml');
    assert.deepEqual(failed[0].errors?.map((e) => e.field), ['detection.selection.Image']);
  });

  test('an escaped document after the first 500 rules: 200 with every good rule created and the bad one reported', async () => {
    const docs = Array.from({ length: 501 }, (_, i) => equalsRule(`Import bulk ${i}`, 'Image', `bulk-${i}.exe`));
    docs.push(ESCAPED_LOGSOURCE);
    const response = await importYaml(docs);
    assert.equal(response.statusCode, 200, response.body.slice(0, 500));
    assert.equal(response.data.created, 501);
    const failed = response.data.failed as Failure[];
    assert.deepEqual(failed.map((f) => f.index), [501]);
    assert.deepEqual(failed[0].errors?.map((e) => e.field), ['logsource.product']);
    assert.equal(await countRows(ctx.service, 'rules WHERE title LIKE $1', ['Import bulk %']), 501);
  });
});

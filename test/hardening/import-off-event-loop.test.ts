// Rule import works on the rule worker threads: splitting a multi-document upload and checking each
// document (parse, compile) happen there, within the rule work budgets, so documents that take the YAML
// parser seconds (and hundreds of MB) each hold up neither GET /api/health nor the rest of the import:
// in a zip they fail alone and the good ones are created; a multi-document text that cannot be split
// within the budgets is refused whole with 422 naming the budget, and nothing is stored.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase, type Client } from '../helpers/service.js';
import { strToU8, zipSync } from 'fflate';
import { countRows, equalsRule, postBinary, setUpTeam } from '../rules/fixtures.js';
import { listening, probeHealthDuring } from './ingest-busy-probe.js';

/** A document of about 1 MB that the YAML parser takes seconds to refuse (a flow list left open, 60 deep). */
const slowDocument = (n: number) => `title: slow ${n}\nlist: ${'['.repeat(60)}${'a, '.repeat(330_000)}`;

describeEachDatabase('rule import off the event loop', (ctx) => {
  let analyst: Client;
  let base: string;

  before(async () => {
    ({ analyst } = await setUpTeam(ctx.service, 'slow-import-analyst', 'slow-import-viewer', { name: 'slow-import', is_default: true }));
    base = await listening(ctx.service);
  });

  test('a zip with documents the parser needs seconds for: health answers throughout, they fail alone, the good one is created', async () => {
    const zip = Buffer.from(
      zipSync({
        'a-fine.yml': strToU8(equalsRule('Zip beside slow ones', 'Image', 'fine.exe')),
        'b-slow.yml': strToU8(slowDocument(1)),
        'c-slow.yml': strToU8(slowDocument(2)),
      }),
    );
    const probe = await probeHealthDuring(base, () => postBinary(analyst, '/api/rules/import', zip));
    const response = probe.result;
    assert.equal(response.statusCode, 200, response.body.slice(0, 500));
    assert.equal(response.data.created, 1);
    assert.deepEqual(
      response.data.failed.map((f: { path: string }) => f.path),
      ['b-slow.yml', 'c-slow.yml'],
    );
    for (const failure of response.data.failed) assert.match(failure.error, /^(Invalid YAML syntax: |Rule work stopped: )/);
    assert.ok(probe.answeredInFlight >= 2, `health answered ${probe.answeredInFlight} times while the import ran`);
    assert.equal(await countRows(ctx.service, 'rules WHERE title = $1', ['Zip beside slow ones']), 1);
  });

  test('a multi-document text that cannot be split within the budgets: 422 naming the budget while health answers; nothing stored', async () => {
    const text = [equalsRule('Text beside slow ones', 'Image', 'fine.exe'), slowDocument(1), slowDocument(2)].map((d) => `---\n${d}\n`).join('');
    const probe = await probeHealthDuring(base, () => analyst.post('/api/rules/import', text, { 'content-type': 'application/yaml' }));
    const response = probe.result;
    assert.equal(response.statusCode, 422, response.body.slice(0, 500));
    assert.match(response.data.detail, /^Rule work stopped: it (needed more than its memory budget of \d+ MB|ran past its time budget of \d+ s)$/);
    assert.ok(probe.answeredInFlight >= 1, `health answered ${probe.answeredInFlight} times while the import ran`);
    assert.equal(await countRows(ctx.service, 'rules WHERE title = $1', ['Text beside slow ones']), 0);
  });
});

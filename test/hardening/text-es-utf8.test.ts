// The Elasticsearch-compatible _bulk receiver never alters text that is not valid UTF-8: a document line
// holding such bytes is answered with its own error item (400 document_parsing_exception, the shape
// Elasticsearch gives a source its parser refuses) while the other actions are stored; an action line
// holding such bytes refuses the request (which line is which is lost), as a malformed one does.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { describeEachDatabase, loginAdmin } from '../helpers/service.js';
import { countRows, createPattern, type CreatedPattern, type Json } from '../rules/fixtures.js';

const basic = (token: string) => `Basic ${Buffer.from(`elastic:${token}`).toString('base64')}`;
const line = (value: unknown) => Buffer.from(`${JSON.stringify(value)}\n`);
/** A document line whose text holds bytes that are not UTF-8 (a lone 0xff, a truncated sequence). */
const badDocument = (marker: string) => Buffer.concat([Buffer.from(`{"case":"${marker}","user":"caf`), Buffer.from([0xff, 0xc3]), Buffer.from('"}\n')]);

describeEachDatabase('_bulk with text that is not UTF-8', (ctx) => {
  let pattern: CreatedPattern;

  before(async () => {
    pattern = await createPattern(await loginAdmin(ctx.service), { name: 'es-utf8' });
  });

  const bulk = async (body: Buffer, headers: Record<string, string> = {}) => {
    const response = await ctx.service.app.inject({
      method: 'POST',
      url: '/api/es/_bulk',
      payload: body,
      headers: { authorization: basic(pattern.ingest_token), 'content-type': 'application/x-ndjson', ...headers },
    });
    return Object.assign(response, { data: JSON.parse(response.body) as Json });
  };
  const stored = (marker: string) => countRows(ctx.service, `events WHERE index_pattern_id = $1 AND event->>'case' = $2`, [pattern.id, marker]);
  const altered = () => countRows(ctx.service, 'events WHERE index_pattern_id = $1 AND event::text LIKE $2', [pattern.id, '%\uFFFD%']);

  for (const gzip of [false, true]) {
    test(`a document line that is not UTF-8 gets its own 400 item, the others are stored${gzip ? ' (gzip)' : ''}`, async () => {
      const marker = gzip ? 'es-utf8-gz' : 'es-utf8';
      const raw = Buffer.concat([
        line({ index: {} }),
        line({ case: marker, n: 1 }),
        line({ create: { _index: 'logs-x', _id: 'bad-1' } }),
        badDocument(marker),
        line({ index: {} }),
        line({ case: marker, n: 3 }),
      ]);
      const response = await bulk(gzip ? gzipSync(raw) : raw, gzip ? { 'content-encoding': 'gzip' } : {});
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.data.errors, true);
      const items = response.data.items as Record<string, Json>[];
      assert.equal(items.length, 3);
      assert.equal(items[0].index.status, 201);
      assert.deepEqual(Object.keys(items[1]), ['create']);
      const refused = items[1].create;
      assert.equal(refused.status, 400);
      assert.equal(refused._index, 'logs-x');
      assert.equal(refused._id, 'bad-1');
      assert.equal(refused.error.type, 'document_parsing_exception');
      assert.match(refused.error.reason, /UTF-8/);
      assert.equal(items[2].index.status, 201);
      assert.equal(await stored(marker), 2);
      assert.equal(await altered(), 0, 'no text was replaced by U+FFFD');
    });
  }

  test('an action line that is not UTF-8 refuses the request in the Elasticsearch error shape; nothing is stored', async () => {
    const raw = Buffer.concat([
      line({ index: {} }),
      line({ case: 'es-utf8-action', n: 1 }),
      Buffer.concat([Buffer.from('{"index":{"_index":"x'), Buffer.from([0xfe]), Buffer.from('"}}\n')]),
      line({ case: 'es-utf8-action', n: 2 }),
    ]);
    const response = await bulk(raw);
    assert.equal(response.statusCode, 400, response.body);
    assert.equal(response.headers['x-elastic-product'], 'Elasticsearch');
    assert.equal(response.data.status, 400);
    assert.match(response.data.error.reason, /line \[3\].*UTF-8/);
    assert.equal(await stored('es-utf8-action'), 0);
  });
});

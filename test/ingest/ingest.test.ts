// POST /api/logs/{pattern}: JSON object, array, NDJSON and gzip bodies; the answer {received, accepted,
// rejected, alerts_created, errors}; ingest-token checks; size limit; events stored; the field catalogue.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { anonymous, describeEachDatabase, loginAdmin, type Client } from '../helpers/service.js';
import { NIL_UUID, assertError, countRows, createPattern, ingest, type CreatedPattern, userAs } from '../rules/fixtures.js';

describeEachDatabase('event ingestion and the field catalogue', (ctx) => {
  let admin: Client;
  let viewer: Client;
  let pattern: CreatedPattern;
  let other: CreatedPattern;

  before(async () => {
    admin = await loginAdmin(ctx.service);
    viewer = await userAs(admin, 'viewer', 'olga');
    pattern = await createPattern(admin, { name: 'fw' });
    other = await createPattern(admin, { name: 'other' });
  });

  const post = (body: string | Buffer, headers: Record<string, string> = {}, target = pattern) =>
    ctx.service.app.inject({
      method: 'POST',
      url: `/api/logs/${target.name}`,
      payload: body,
      headers: { authorization: `Bearer ${target.ingest_token}`, 'content-type': 'application/json', ...headers },
    });
  const storedEvents = () => countRows(ctx.service, 'events WHERE index_pattern_id = $1', [pattern.id]);

  test('a single JSON object', async () => {
    const response = await ingest(ctx.service, pattern, { '@timestamp': new Date().toISOString(), src: '10.0.0.1', action: 'deny' });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.data, { received: 1, accepted: 1, rejected: 0, alerts_created: 0, errors: [] });
  });

  test('a JSON array with a non-object item: that item is rejected with its index, the rest stored', async () => {
    const beforeCount = await storedEvents();
    const response = await ingest(ctx.service, pattern, [{ n: 1 }, 'oops', { n: 2 }, [1], { n: 3 }]);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.data.received, 5);
    assert.equal(response.data.accepted, 3);
    assert.equal(response.data.rejected, 2);
    assert.equal(response.data.alerts_created, 0);
    assert.deepEqual(response.data.errors.map((e: { index: number }) => e.index), [1, 3]);
    for (const e of response.data.errors) assert.equal(typeof e.error, 'string');
    assert.equal(await storedEvents(), beforeCount + 3);
  });

  test('NDJSON (bad lines reported) and gzip', async () => {
    const ndjson = ['{"line":1}', '{"line":2}', 'not json', '', '{"line":3}'].join('\n');
    const response = await post(ndjson, { 'content-type': 'application/x-ndjson' });
    assert.equal(response.statusCode, 200, response.body);
    const data = JSON.parse(response.body);
    assert.equal(data.received, 4);
    assert.equal(data.accepted, 3);
    assert.equal(data.rejected, 1);
    assert.deepEqual(data.errors.map((e: { index: number }) => e.index), [2]);

    const gz = await post(gzipSync(Buffer.from(JSON.stringify([{ zipped: 1 }, { zipped: 2 }]))), { 'content-encoding': 'gzip' });
    assert.equal(gz.statusCode, 200, gz.body);
    assert.equal(JSON.parse(gz.body).accepted, 2);
    const badGzip = await post(Buffer.from('not gzip at all'), { 'content-encoding': 'gzip' });
    assert.equal(badGzip.statusCode, 400, badGzip.body);
  });

  test('empty and malformed bodies are 400', async () => {
    assert.equal((await post('')).statusCode, 400);
    assert.equal((await post('[{"a":1}')).statusCode, 400);
  });

  test('ingest tokens: none, wrong, a session token → 401; another pattern\'s token → 401 or 403; unknown pattern refused', async () => {
    const body = { msg: 'x' };
    assertError(await anonymous(ctx.service).post('/api/logs/fw', body), 401, 'Could not validate credentials');
    assertError(await anonymous(ctx.service).post('/api/logs/fw', body, { authorization: 'Bearer svc_it_wrongwrongwrongwrongwrongwrongwrongwrong' }), 401, 'Could not validate credentials');
    assertError(await anonymous(ctx.service).post('/api/logs/fw', body, { authorization: `Bearer ${admin.token}` }), 401, 'Could not validate credentials');
    const crossed = await anonymous(ctx.service).post('/api/logs/fw', body, { authorization: `Bearer ${other.ingest_token}` });
    assert.ok(crossed.statusCode === 401 || crossed.statusCode === 403, crossed.body);
    const unknown = await anonymous(ctx.service).post('/api/logs/nope', body, { authorization: `Bearer ${pattern.ingest_token}` });
    assert.ok(unknown.statusCode === 403 || unknown.statusCode === 404 || unknown.statusCode === 401, unknown.body);
    assert.equal(await countRows(ctx.service, 'events WHERE index_pattern_id = $1', [other.id]), 0);
  });

  test('a body over 10 MiB is 413', async () => {
    const big = JSON.stringify([{ blob: 'x'.repeat(10 * 1024 * 1024 + 10) }]);
    const response = await post(big);
    assert.equal(response.statusCode, 413, response.body.slice(0, 200));
    const bomb = gzipSync(Buffer.alloc(11 * 1024 * 1024, 0x20));
    const inflated = await post(bomb, { 'content-encoding': 'gzip' });
    assert.equal(inflated.statusCode, 413, inflated.body.slice(0, 200));
  });

  test('events the database cannot hold are rejected one by one, never a 500', async () => {
    const beforeCount = await storedEvents();
    const response = await post(
      JSON.stringify([
        { ok: 1 },
        { text: 'nul \u0000 inside' },
        { 'key\u0000': 'nul in a key' },
        { '@timestamp': '-100000-01-01T00:00:00Z', far: 'past' },
        { '@timestamp': 1e300, far: 'future' },
        { '@timestamp': -9e15, far: 'negative' },
        { ok: 2 },
        JSON.parse(`${'{"a":'.repeat(150)}1${'}'.repeat(150)}`),
      ]),
    );
    assert.equal(response.statusCode, 200, response.body);
    const data = JSON.parse(response.body);
    assert.equal(data.received, 8);
    assert.equal(data.accepted, 2, response.body);
    assert.equal(data.rejected, 6, response.body);
    assert.deepEqual(data.errors.map((e: { index: number }) => e.index), [1, 2, 3, 4, 5, 7]);
    assert.match(data.errors[5].error, /nested deeper than 100 levels/);
    assert.equal(await storedEvents(), beforeCount + data.accepted);
  });

  test('an event over 1 MiB of JSON is rejected alone, the rest of its batch stored', async () => {
    const beforeCount = await storedEvents();
    const response = await post(JSON.stringify([{ small: 1 }, { huge: 'x'.repeat(1024 * 1024 + 1) }, { small: 2 }]));
    assert.equal(response.statusCode, 200, response.body.slice(0, 300));
    const data = JSON.parse(response.body);
    assert.equal(data.accepted, 2);
    assert.deepEqual(data.errors.map((e: { index: number }) => e.index), [1]);
    assert.match(data.errors[0].error, /larger than 1 MiB/);
    assert.equal(await storedEvents(), beforeCount + 2);
  });

  test('text that is not UTF-8 is refused, never altered: the NDJSON line alone, a JSON document whole', async () => {
    const beforeCount = await storedEvents();
    const latin1 = Buffer.from('{"user":"Jos\xe9"}', 'latin1');
    const ndjson = Buffer.concat([Buffer.from('{"line":"before"}\n'), latin1, Buffer.from('\n\n{"line":"after"}\n')]);
    const response = await post(ndjson, { 'content-type': 'application/x-ndjson' });
    assert.equal(response.statusCode, 200, response.body);
    const data = JSON.parse(response.body);
    assert.deepEqual({ received: data.received, accepted: data.accepted, errors: data.errors }, {
      received: 3,
      accepted: 2,
      errors: [{ index: 1, error: 'the line is not valid UTF-8' }],
    });
    assert.equal(await storedEvents(), beforeCount + 2);
    assert.equal(await countRows(ctx.service, 'events WHERE event::text LIKE $1', ['%\uFFFD%']), 0);
    for (const body of [Buffer.concat([Buffer.from('['), latin1, Buffer.from(']')]), latin1]) {
      const refused = await post(body);
      assert.equal(refused.statusCode, 400, refused.body);
      assert.deepEqual(JSON.parse(refused.body), { detail: 'The body is not valid UTF-8', status_code: 400 });
    }
    assert.equal(await storedEvents(), beforeCount + 2);
  });

  test('GET …/fields lists the dotted fields seen, with counts', async () => {
    const p = await createPattern(admin, { name: 'catalogue' });
    const response = await ingest(ctx.service, p, [
      { '@timestamp': '2026-01-01T00:00:00Z', source: { ip: '1.2.3.4', port: 80 }, user: { name: 'a' } },
      { '@timestamp': '2026-01-01T00:00:01Z', source: { ip: '1.2.3.5' }, tags: ['x', 'y'] },
      { '@timestamp': '2026-01-01T00:00:02Z', 'host.name': 'h1' },
    ]);
    assert.equal(response.statusCode, 200, response.body);
    const fields = await viewer.get(`/api/index_patterns/${p.id}/fields`);
    assert.equal(fields.statusCode, 200, fields.body);
    const counts = Object.fromEntries(fields.data.items.map((f: { field: string; count: number }) => [f.field, f.count]));
    assert.deepEqual(counts, { '@timestamp': 3, 'source.ip': 2, 'source.port': 1, 'user.name': 1, tags: 1, 'host.name': 1 });
    for (const f of fields.data.items) assert.match(f.last_seen, /^\d{4}-\d{2}-\d{2}T/);
    assert.deepEqual({ ...fields.data, items: undefined }, { items: undefined, total: 6, page: 1, page_size: 20, pages: 1 });
    assert.equal((await viewer.get(`/api/index_patterns/${NIL_UUID}/fields`)).statusCode, 404);

    // Pages, sorting and a search over field names; bad paging is refused.
    const page = await viewer.get(`/api/index_patterns/${p.id}/fields?sort_by=field&sort_order=asc&page_size=2&page=2`);
    assert.deepEqual({ ...page.data, items: page.data.items.map((f: { field: string }) => f.field) }, { items: ['source.ip', 'source.port'], total: 6, page: 2, page_size: 2, pages: 3 });
    const found = await viewer.get(`/api/index_patterns/${p.id}/fields?search=SOURCE`);
    assert.deepEqual(found.data.items.map((f: { field: string }) => f.field), ['source.ip', 'source.port']);
    assertError(await viewer.get(`/api/index_patterns/${p.id}/fields?page_size=101`), 400, 'Invalid request');
  });

  test('the catalogue counts stored events: an event sent again (stored once) is not counted again', async () => {
    const p = await createPattern(admin, { name: 'repeats' });
    const event = { '@timestamp': '2026-01-01T00:00:00Z', host: { name: 'h1' } };
    assert.equal((await ingest(ctx.service, p, [event, event])).statusCode, 200);
    assert.equal((await ingest(ctx.service, p, [event, { ...event, '@timestamp': '2026-01-01T00:00:01Z' }])).statusCode, 200);
    const fields = await viewer.get(`/api/index_patterns/${p.id}/fields`);
    const counts = Object.fromEntries(fields.data.items.map((f: { field: string; count: number }) => [f.field, f.count]));
    assert.deepEqual(counts, { '@timestamp': 2, 'host.name': 2 });
  });

  test('concurrent requests with fields in other orders each count once in the catalogue', async () => {
    const p = await createPattern(admin, { name: 'concurrent-fields' });
    const batch = (r: number) =>
      Array.from({ length: 200 }, (_, i) =>
        r % 2 === 0 ? { '@timestamp': `2026-01-01T00:${String(r).padStart(2, '0')}:00Z`, a: i, b: r, z: 'x' } : { z: 'y', b: r, a: i, '@timestamp': `2026-01-01T00:${String(r).padStart(2, '0')}:00Z` },
      );
    const answers = await Promise.all(Array.from({ length: 6 }, (_, r) => ingest(ctx.service, p, batch(r))));
    for (const answer of answers) assert.equal(answer.statusCode, 200, answer.body);
    const fields = await viewer.get(`/api/index_patterns/${p.id}/fields`);
    const counts = Object.fromEntries(fields.data.items.map((f: { field: string; count: number }) => [f.field, f.count]));
    assert.deepEqual(counts, { '@timestamp': 1200, a: 1200, b: 1200, z: 1200 });
  });
});

// Limits of one ingest request, on both doors (POST /api/logs/{name} and /api/es/_bulk): a body that
// unzips past 10 MiB and a request of more than 100,000 events (lines, array items or _bulk actions)
// are refused whole with a 413 naming the limit, before anything is stored. A batch bigger than one
// ingest chunk is stored, matched and alerted entirely, and sending it again stores nothing twice.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { describeEachDatabase, type Client } from '../helpers/service.js';
import { MAX_INGEST_EVENTS } from '../../src/ingest/parse-body.js';
import { INGEST_CHUNK } from '../../src/ingest/service.js';
import { countRows, createRule, equalsRule, setUpTeam, type CreatedPattern, type Json } from '../rules/fixtures.js';

const TOO_MANY = /^The request holds more than 100,000 events, the most one ingest request may carry: send them in smaller batches$/;

describeEachDatabase('ingest request limits', (ctx) => {
  let analyst: Client;
  let pattern: CreatedPattern;
  let ruleId: string;

  before(async () => {
    ({ analyst, pattern } = await setUpTeam(ctx.service, 'lim-analyst', 'lim-viewer', { name: 'limits', is_default: true }));
    ruleId = (await createRule(analyst, { yaml_content: equalsRule('Chunk marker', 'Image', 'marker.exe'), deploy: true })).id;
  });

  const post = (body: string | Buffer, headers: Record<string, string> = {}) =>
    ctx.service.app.inject({
      method: 'POST',
      url: `/api/logs/${pattern.name}`,
      payload: body,
      headers: { authorization: `Bearer ${pattern.ingest_token}`, 'content-type': 'application/json', ...headers },
    });
  const bulk = (body: string | Buffer, headers: Record<string, string> = {}) =>
    ctx.service.app.inject({
      method: 'POST',
      url: '/api/es/_bulk',
      payload: body,
      headers: { authorization: `Bearer ${pattern.ingest_token}`, 'content-type': 'application/x-ndjson', ...headers },
    });
  const storedEvents = () => countRows(ctx.service, 'events WHERE index_pattern_id = $1', [pattern.id]);
  const json = (response: { statusCode: number; body: string }) => ({ statusCode: response.statusCode, body: response.body, data: JSON.parse(response.body) as Json });
  /** The error model of decisions §2: status, detail, status_code. */
  const assertError = (response: { statusCode: number; body: string }, status: number, detail: RegExp) => {
    const { data } = json(response);
    assert.equal(response.statusCode, status, response.body.slice(0, 300));
    assert.match(String(data.detail), detail);
    assert.equal(data.status_code, status);
  };

  test('a small gzip body that unzips past 10 MiB is 413 naming the limit; nothing is stored', async () => {
    const before = await storedEvents();
    // About 15 KB sent, 12 MiB of 256-byte lines once unzipped (fewer lines than the event limit: the
    // bytes are what passes a limit first).
    const bomb = gzipSync(Buffer.from(`{"a":"${'x'.repeat(248)}"}\n`.repeat((12 * 1024 * 1024) / 256)), { level: 9 });
    assert.ok(bomb.length < 64 * 1024, `${bomb.length} bytes`);
    assertError(await post(bomb, { 'content-encoding': 'gzip' }), 413, /^The body unzips to more than 10 MiB, the most one ingest request may carry/);
    const esAnswer = json(await bulk(bomb, { 'content-encoding': 'gzip' }));
    assert.equal(esAnswer.statusCode, 413, esAnswer.body);
    assert.match(esAnswer.data.error.reason, /unzips to more than 10 MiB/);
    assert.equal(await storedEvents(), before);
  });

  test('more than 100,000 events (NDJSON lines, array items, gzip or not) is 413 naming the limit; nothing is stored', async () => {
    const before = await storedEvents();
    assert.equal(MAX_INGEST_EVENTS, 100_000);
    const lines = '{}\n'.repeat(MAX_INGEST_EVENTS + 1);
    assertError(await post(lines, { 'content-type': 'application/x-ndjson' }), 413, TOO_MANY);
    assertError(await post(gzipSync(Buffer.from('{}\n'.repeat(1_000_000))), { 'content-encoding': 'gzip' }), 413, TOO_MANY);
    // Commas inside strings and nested values are not items.
    const items = Array.from({ length: MAX_INGEST_EVENTS + 1 }, () => '{"m":"a,b","n":[1,2]}');
    assertError(await post(`[${items.join(',')}]`), 413, TOO_MANY);
    // Blank lines are not events: 100,000 events among blank lines are read.
    const atLimit = await post(`${'{}\n\n'.repeat(MAX_INGEST_EVENTS - 1)}{}`, { 'content-type': 'application/x-ndjson' });
    assert.equal(atLimit.statusCode, 200, atLimit.body.slice(0, 300));
    assert.equal(JSON.parse(atLimit.body).received, MAX_INGEST_EVENTS);
    assert.equal(await storedEvents(), before + 1, 'the identical events are stored once');
  });

  test('a _bulk request of more than 100,000 actions is 413 in Elasticsearch shape; nothing is stored', async () => {
    const before = await storedEvents();
    const answer = json(await bulk('{"index":{}}\n{"big":1}\n'.repeat(MAX_INGEST_EVENTS + 1)));
    assert.equal(answer.statusCode, 413, answer.body);
    assert.equal(answer.data.status, 413);
    assert.equal(answer.data.error.type, 'content_too_long_exception');
    assert.match(answer.data.error.reason, /^The request holds more than 100,000 actions, the most one ingest request may carry/);
    assert.equal(await storedEvents(), before);
  });

  test('a batch of several chunks is stored, matched and alerted entirely; sent again, nothing is stored twice', async () => {
    const total = INGEST_CHUNK * 2 + 500;
    const events = Array.from({ length: total }, (_, i) => ({
      '@timestamp': new Date(Date.UTC(2026, 10, 20, 0, 0, i % 3600)).toISOString(),
      seq: i,
      // A match in every chunk, the last one included.
      Image: i % INGEST_CHUNK === 7 || i === total - 1 ? 'marker.exe' : 'other.exe',
    }));
    const matches = events.filter((e) => e.Image === 'marker.exe').length;
    const before = await storedEvents();
    const first = await post(events.map((e) => JSON.stringify(e)).join('\n'), { 'content-type': 'application/x-ndjson' });
    assert.equal(first.statusCode, 200, first.body.slice(0, 300));
    assert.deepEqual(JSON.parse(first.body), { received: total, accepted: total, rejected: 0, alerts_created: matches, errors: [] });
    assert.equal(await storedEvents(), before + total);
    assert.equal(await countRows(ctx.service, 'alerts WHERE rule_id = $1', [ruleId]), matches);
    const fields = await ctx.service.db.query<{ count: number }>('SELECT count FROM event_fields WHERE index_pattern_id = $1 AND field = $2', [pattern.id, 'seq']);
    assert.equal(Number(fields[0].count), total);

    const repeat = await post(events.map((e) => JSON.stringify(e)).join('\n'), { 'content-type': 'application/x-ndjson' });
    assert.deepEqual(JSON.parse(repeat.body), { received: total, accepted: total, rejected: 0, alerts_created: 0, errors: [] });
    assert.equal(await storedEvents(), before + total);
    assert.equal(await countRows(ctx.service, 'alerts WHERE rule_id = $1', [ruleId]), matches);

    // Through _bulk (events carrying their own _index, kept as sent): every item 201, all stored and
    // alerted once; sent again, nothing is stored twice and no alert is raised twice.
    const body = events.map((e) => `{"create":{}}\n${JSON.stringify({ ...e, _index: 'bulk' })}\n`).join('');
    for (const round of [1, 2]) {
      const answer = json(await bulk(body));
      assert.equal(answer.statusCode, 200, answer.body.slice(0, 300));
      assert.equal(answer.data.errors, false);
      assert.equal(answer.data.items.length, total);
      assert.ok(answer.data.items.every((item: { create: { status: number } }) => item.create.status === 201), `round ${round}`);
      assert.equal(await storedEvents(), before + 2 * total, `round ${round}`);
      assert.equal(await countRows(ctx.service, 'alerts WHERE rule_id = $1', [ruleId]), 2 * matches, `round ${round}`);
    }
  });
});

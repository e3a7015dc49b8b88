// A gzip body of far more lines than one request may carry is refused with 413 while it inflates,
// off the event loop, before it is split or parsed: several such bodies at once, on both doors, leave
// /api/health answered and the event loop free. The early count never refuses what the exact reading
// accepts: one JSON document spread over more lines than the event limit is still one event.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { describeEachDatabase } from '../helpers/service.js';
import { MAX_INGEST_EVENTS } from '../../src/ingest/parse-body.js';
import { countRows, setUpTeam, type CreatedPattern } from '../rules/fixtures.js';
import { assertResponsive, listening, probeHealthDuring, send } from './ingest-busy-probe.js';

/** The probe's recipe: 1.3 million lines, a few KiB once compressed. */
const LINES = 1_300_000;

describeEachDatabase('a gzip body of too many lines is refused as it inflates', (ctx) => {
  let pattern: CreatedPattern;
  let base: string;

  before(async () => {
    ({ pattern } = await setUpTeam(ctx.service, 'inflate-analyst', 'inflate-viewer', { name: 'inflate', is_default: true }));
    base = await listening(ctx.service);
  });

  const post = (path: string, body: Buffer, headers: Record<string, string> = {}) =>
    send(`${base}${path}`, {
      method: 'POST',
      body,
      headers: { authorization: `Bearer ${pattern.ingest_token}`, 'content-type': 'application/x-ndjson', ...headers },
    });
  const storedEvents = () => countRows(ctx.service, 'events WHERE index_pattern_id = $1', [pattern.id]);

  test('1.3 million gzip lines on both doors, four at once each: 413 naming the limit, health answered, nothing stored', async () => {
    const before = await storedEvents();
    const logs = gzipSync(Buffer.from('{}\n'.repeat(LINES)));
    const bulk = gzipSync(Buffer.from('{"index":{}}\n{}\n'.repeat(LINES / 2)));
    const gzip = { 'content-encoding': 'gzip' };
    const probe = await probeHealthDuring(base, () =>
      Promise.all([
        ...Array.from({ length: 4 }, () => post(`/api/logs/${pattern.name}`, logs, gzip)),
        ...Array.from({ length: 4 }, () => post('/api/es/_bulk', bulk, gzip)),
      ]),
    );
    for (const [i, answer] of probe.result.entries()) {
      assert.equal(answer.status, 413, answer.text.slice(0, 300));
      assert.match(String(answer.data.detail), i < 4 ? /more than 100,000 events/ : /more than 100,000 actions/);
    }
    assertResponsive(probe, 'eight bodies of 1.3 million gzip lines');
    assert.equal(await storedEvents(), before);
  });

  test('the same lines uncompressed are refused alike', async () => {
    const answer = await post(`/api/logs/${pattern.name}`, Buffer.from('{}\n'.repeat(LINES)));
    assert.equal(answer.status, 413, answer.text.slice(0, 300));
    assert.match(String(answer.data.detail), /more than 100,000 events/);
  });

  test('one JSON document over more lines than the event limit is one event; so is an array of a few items', async () => {
    const before = await storedEvents();
    const fields = Array.from({ length: MAX_INGEST_EVENTS + 10 }, (_, i) => `  "f${i}": ${i}`);
    const document = `{\n${fields.join(',\n')}\n}\n`;
    const one = await post(`/api/logs/${pattern.name}`, gzipSync(Buffer.from(document)), { 'content-encoding': 'gzip', 'content-type': 'application/json' });
    assert.equal(one.status, 200, one.text.slice(0, 300));
    assert.equal(one.data.received, 1);
    const array = `[\n${JSON.stringify({ a: 1, tag: 'array' }, null, 1).split('\n').join('\n\n'.repeat(40_000))},\n{"b": 2}\n]`;
    const two = await post(`/api/logs/${pattern.name}`, gzipSync(Buffer.from(array)), { 'content-encoding': 'gzip', 'content-type': 'application/json' });
    assert.equal(two.status, 200, two.text.slice(0, 300));
    assert.equal(two.data.received, 2);
    // The long document is larger than one event may be (1 MiB of JSON): it is rejected alone.
    assert.equal(await storedEvents(), before + one.data.accepted + two.data.accepted);
    assert.equal(two.data.accepted, 2);
  });

  test('exactly the most events, gzip, among blank lines, is read whole', async () => {
    const body = gzipSync(Buffer.from(Array.from({ length: MAX_INGEST_EVENTS }, (_, i) => `{"n":${i}}\n\n`).join('')));
    const answer = await post(`/api/logs/${pattern.name}`, body, { 'content-encoding': 'gzip' });
    assert.equal(answer.status, 200, answer.text.slice(0, 300));
    assert.equal(answer.data.received, MAX_INGEST_EVENTS);
  });
});

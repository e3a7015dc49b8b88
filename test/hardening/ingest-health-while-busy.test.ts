// While one ingest request works, the service keeps answering others (real listener, GET /api/health
// polled during the request): hostile bodies (a gzip bomb, a million tiny events, on both doors) are
// refused with 413 at once; a big accepted batch goes through in chunks with health answered between
// them, and every accepted event is stored. A batch cut part-way by a backend outage answers 503
// saying how many events were stored, exactly those are, and sending it again completes it once.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { describeEachDatabase } from '../helpers/service.js';
import { MAX_INGEST_EVENTS } from '../../src/ingest/parse-body.js';
import { INGEST_CHUNK } from '../../src/ingest/service.js';
import { backendOf, countRows, createRule, equalsRule, setUpTeam, type CreatedPattern } from '../rules/fixtures.js';
import { listening, probeHealthDuring, send } from './ingest-busy-probe.js';

describeEachDatabase('health answers while ingest works', (ctx) => {
  let pattern: CreatedPattern;
  let base: string;

  before(async () => {
    let analyst;
    ({ analyst, pattern } = await setUpTeam(ctx.service, 'busy-analyst', 'busy-viewer', { name: 'busy', is_default: true }));
    await createRule(analyst, { yaml_content: equalsRule('Busy marker', 'Image', 'busy.exe'), deploy: true });
    base = await listening(ctx.service);
  });

  const logs = (body: string | Buffer, headers: Record<string, string> = {}) => () =>
    send(`${base}/api/logs/${pattern.name}`, {
      method: 'POST',
      body,
      headers: { authorization: `Bearer ${pattern.ingest_token}`, 'content-type': 'application/x-ndjson', ...headers },
    });
  const bulk = (body: string | Buffer, headers: Record<string, string> = {}) => () =>
    send(`${base}/api/es/_bulk`, {
      method: 'POST',
      body,
      headers: { authorization: `Bearer ${pattern.ingest_token}`, 'content-type': 'application/x-ndjson', ...headers },
    });
  const storedEvents = () => countRows(ctx.service, 'events WHERE index_pattern_id = $1', [pattern.id]);

  /** `count` distinct events, one in 500 matching the rule; `tag` keeps batches apart. */
  const ndjson = (count: number, tag: string) =>
    Array.from({ length: count }, (_, i) =>
      JSON.stringify({ '@timestamp': new Date(Date.UTC(2026, 10, 25, 0, 0, i % 86_400)).toISOString(), tag, seq: i, Image: i % 500 === 0 ? 'busy.exe' : 'calc.exe' }),
    ).join('\n');

  test('hostile bodies are refused with 413 at once while health keeps answering; nothing is stored', async () => {
    const before = await storedEvents();
    const tiny = '{}\n'.repeat(1_000_000);
    const cases = [
      ['gzip bomb', logs(gzipSync(Buffer.from(`{"a":"${'x'.repeat(248)}"}\n`.repeat(48_000)), { level: 9 }), { 'content-encoding': 'gzip' }), /unzips to more than 10 MiB/],
      ['a million tiny events', logs(tiny), /more than 100,000 events/],
      ['a million tiny events, gzip', logs(gzipSync(Buffer.from(tiny)), { 'content-encoding': 'gzip' }), /more than 100,000 events/],
      ['a million _bulk actions, gzip', bulk(gzipSync(Buffer.from('{"index":{}}\n{}\n'.repeat(500_000))), { 'content-encoding': 'gzip' }), /more than 100,000 actions/],
    ] as const;
    for (const [name, request, detail] of cases) {
      const probe = await probeHealthDuring(base, request);
      assert.equal(probe.result.status, 413, `${name}: ${probe.result.text.slice(0, 300)}`);
      assert.match(String(probe.result.data.detail), detail, name);
    }
    assert.equal(await storedEvents(), before);
  });

  test('a big accepted batch is ingested in chunks: health answers while it runs, every accepted event is stored', async () => {
    const total = 25_000;
    assert.ok(total <= MAX_INGEST_EVENTS);
    const before = await storedEvents();
    const probe = await probeHealthDuring(base, logs(ndjson(total, 'big')));
    assert.equal(probe.result.status, 200, probe.result.text.slice(0, 300));
    assert.equal(probe.result.data.accepted, total);
    assert.equal(probe.result.data.alerts_created, total / 500);
    assert.ok(probe.answeredInFlight >= 1, `health answered ${probe.answeredInFlight} times while the batch ran (${probe.polls} polls)`);
    assert.equal(await storedEvents(), before + total);
  });

  test('a batch cut part-way answers 503 saying how many events were stored; sent again, it completes once', async () => {
    const total = 30 * INGEST_CHUNK;
    const body = ndjson(total, 'cut');
    const before = await storedEvents();
    const running = logs(body)();
    // Once the first chunks are stored, the search backend goes down: the next chunk cannot be matched.
    while ((await storedEvents()) === before) await new Promise((resolve) => setTimeout(resolve, 5));
    backendOf(ctx.service).setAvailable(false);
    let answer;
    try {
      answer = await running;
    } finally {
      backendOf(ctx.service).setAvailable(true);
    }
    assert.equal(answer.status, 503, answer.text.slice(0, 300));
    const match = /; (\d+) of the request's 30000 events were stored before this failure: send the request again/.exec(answer.data.detail);
    assert.ok(match, answer.data.detail);
    const stored = Number(match[1]);
    assert.ok(stored > 0 && stored < total, String(stored));
    assert.equal(await storedEvents(), before + stored, 'exactly the events the answer reports are stored');

    const again = await logs(body)();
    assert.equal(again.status, 200, again.text.slice(0, 300));
    assert.equal(again.data.accepted, total);
    assert.equal(await storedEvents(), before + total);
    const alerts = await countRows(ctx.service, "alerts WHERE index_pattern_id = $1 AND event->>'tag' = 'cut'", [pattern.id]);
    assert.equal(alerts, total / 500, 'one alert per matching event, none twice');
  });
});

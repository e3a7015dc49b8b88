// The historical test over a history kept on a real OpenSearch node reads it in pages of text matched on
// the rule workers: over several pages it answers what the embedded backend answers for the same
// events (matches, excepted, events scanned, the samples newest first with their digits as sent), and
// the next page's start read from the end of a page is the one the parsed page gives, and the slices by
// hash read at once cover every hash once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { OpenSearchEventHistory } from '../../src/backends/opensearch/event-index.js';
import { eventsOfPage, hashSlice, lastSortOf } from '../../src/backends/opensearch/history-page.js';
import { openSearchMissing, OPENSEARCH_TEST_URL, testIndices } from '../helpers/opensearch.js';
import { anonymous, loginAdmin, startService, type Client } from '../helpers/service.js';
import { createPattern, createRule, type CreatedPattern } from '../rules/fixtures.js';

const missing = await openSearchMissing();
const KEYWORDS = '-9214364837600034816';
/** Three pages of each of the two parts the cluster's history is read in. */
const EVENTS = 4500;
const PAGE = 1000;
const RULE = `title: Paged Probe
logsource:
  product: windows
detection:
  selection:
    Action: probe
  condition: selection
level: low
`;

/** Event i: every third a probe, every ninth of those from the excepted user, at its own second. */
function eventText(i: number, now: number): string {
  const at = new Date(now - 60_000 - i * 500).toISOString();
  const action = i % 3 === 0 ? 'probe' : 'other';
  const user = i % 27 === 0 ? 'svc' : `u${i % 7}`;
  return `{"@timestamp":"${at}","Action":"${action}","User":"${user}","Seq":${i},"Keywords":${KEYWORDS}}`;
}

test('the next page starts after the last hit: read from the end as from the parsed page', () => {
  const bytes = (text: string) => Buffer.from(text);
  const page = JSON.stringify({ hits: { hits: [{ _source: { event_time: 't', event: { note: '"sort":[0]' } }, sort: [1, 'a'] }, { _source: { event_time: 't', event: {} }, sort: [2, 'b'] }] } });
  assert.deepEqual(lastSortOf(bytes(page)), [2, 'b']);
  assert.equal(lastSortOf(bytes('{"hits":{"hits":[]}}')), undefined);
  // An answer that does not end as a page does is parsed whole.
  assert.deepEqual(lastSortOf(bytes(`${page.slice(0, -2)},"x":1}}`)), [2, 'b']);
});

test('the slices by hash hold every first hex digit once', () => {
  for (const parts of [2, 3, 5, 16]) {
    const held = [...'0123456789abcdef'].map((digit) =>
      Array.from({ length: parts }, (_, k) => (hashSlice(k, parts) as { range: { hash: { gte?: string; lt?: string } } }).range.hash).filter(
        (r) => (r.gte === undefined || digit >= r.gte) && (r.lt === undefined || digit < r.lt),
      ).length,
    );
    assert.deepEqual(held, Array(16).fill(1), `${parts} parts`);
  }
});

describe('historical test over pages of the cluster', { skip: missing ?? false }, () => {
  const indices = testIndices();
  const services: Array<Awaited<ReturnType<typeof startService>>> = [];
  const teams: Array<{ admin: Client; pattern: CreatedPattern; ruleId: string }> = [];

  before(async () => {
    services.push(await startService('pglite'));
    services.push(await startService('pglite', { SEARCH_BACKEND: 'opensearch', OPENSEARCH_URL: OPENSEARCH_TEST_URL, OPENSEARCH_INDEX_PREFIX: indices.prefix }));
    (services[1].context.history as OpenSearchEventHistory).pageSize = PAGE;
    const now = Date.now();
    const lines = Array.from({ length: EVENTS }, (_, i) => eventText(i, now));
    for (const service of services) {
      const admin = await loginAdmin(service);
      const pattern = await createPattern(admin, { name: 'paged' });
      const rule = await createRule(admin, { yaml_content: RULE, index_pattern: 'paged' });
      const exception = await admin.post(`/api/rules/${rule.id}/exceptions`, { field: 'User', operator: 'equals', value: 'svc' });
      assert.equal(exception.statusCode, 201, exception.body);
      for (let start = 0; start < EVENTS; start += 1000) {
        const sent = await anonymous(service).post(`/api/logs/${pattern.name}`, lines.slice(start, start + 1000).join('\n'), {
          authorization: `Bearer ${pattern.ingest_token}`,
          'content-type': 'application/x-ndjson',
        });
        assert.equal(sent.statusCode, 200, sent.body);
      }
      teams.push({ admin, pattern, ruleId: rule.id as string });
    }
  });
  after(async () => {
    await Promise.all(services.map((s) => s.close()));
    await indices.deleteAll();
  });

  test('both backends answer the same counts and samples, numbers as sent', async () => {
    const answers = [];
    for (const team of teams) {
      const answer = await team.admin.post(`/api/rules/${team.ruleId}/test/historical`, { time_range: '1d', limit: 100 });
      assert.equal(answer.statusCode, 200, answer.body);
      answers.push(answer);
    }
    const [embedded, cluster] = answers;
    assert.equal(cluster.data.events_scanned, EVENTS, cluster.body);
    assert.equal(cluster.data.matches, EVENTS / 3);
    assert.equal(cluster.data.excepted, Math.ceil(EVENTS / 27));
    assert.equal(cluster.data.truncated, false);
    for (const key of ['events_scanned', 'matches', 'excepted', 'truncated']) assert.equal(cluster.data[key], embedded.data[key], key);
    assert.equal(cluster.data.sample_matches.length, 100);
    assert.deepEqual(
      cluster.data.sample_matches.map((s: { Seq: number }) => s.Seq),
      Array.from({ length: 100 }, (_, i) => i * 3),
    );
    assert.deepEqual(cluster.data.sample_matches, embedded.data.sample_matches);
    assert.ok(cluster.body.includes(`"Keywords":${KEYWORDS}`), cluster.body.slice(0, 300));
  });

  test('a short limit answers that many samples, the newest', async () => {
    const answer = await teams[1].admin.post(`/api/rules/${teams[1].ruleId}/test/historical`, { time_range: '1d', limit: 3 });
    assert.equal(answer.statusCode, 200, answer.body);
    assert.deepEqual(answer.data.sample_matches.map((s: { Seq: number }) => s.Seq), [0, 3, 6]);
    assert.equal(answer.data.matches, EVENTS / 3);
  });

  test('more events than the scan may read: one part, newest first; a visit answering false stops it', async () => {
    const history = services[1].context.history as OpenSearchEventHistory;
    const until = new Date();
    const since = new Date(until.getTime() - 86_400_000);
    const scan = async (options: { slices: number; upTo: number }, pages: number) => {
      const seen: Array<{ part: number; seqs: number[] }> = [];
      await history.scanPages!(teams[1].pattern.id, since, until, async (page, part) => {
        seen.push({ part, seqs: eventsOfPage(page, false).map((e) => e.event.Seq as number) });
        return seen.length < pages;
      }, options);
      return seen;
    };
    const whole = await scan({ slices: 2, upTo: EVENTS - 1 }, 100);
    assert.deepEqual(whole.map((p) => p.part), [0, 0, 0, 0, 0]);
    assert.deepEqual(whole.flatMap((p) => p.seqs), Array.from({ length: EVENTS }, (_, i) => i));
    assert.equal((await scan({ slices: 2, upTo: EVENTS - 1 }, 2)).length, 2);
    const sliced = await scan({ slices: 2, upTo: EVENTS }, 100);
    assert.deepEqual([...new Set(sliced.map((p) => p.part))].sort(), [0, 1]);
    assert.deepEqual(sliced.flatMap((p) => p.seqs).sort((a, b) => a - b), Array.from({ length: EVENTS }, (_, i) => i));
  });
});

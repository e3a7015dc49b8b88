// Events on a real OpenSearch node, driven through the ingest endpoint: each event's host, user and
// source IP (as its pattern's entity fields name them) are indexed and found by a term query while the
// event itself is not; events go to one index per UTC day of arrival and the history reads every day
// (and the undated index of earlier versions, whose mapping gains the entity fields); a re-sent event is
// kept once even on another day; retention deletes whole past days and takes their events off the
// stats; a chunk the cluster does not fully acknowledge answers 503 and counts as not stored.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dayStamp } from '../../src/backends/opensearch/event-days.js';
import type { OpenSearchEventHistory } from '../../src/backends/opensearch/event-index.js';
import { purgeExpiredEvents } from '../../src/ingest/retention.js';
import { openSearch, openSearchMissing, OPENSEARCH_TEST_URL, testIndices } from '../helpers/opensearch.js';
import { loginAdmin, startService, type Client } from '../helpers/service.js';
import { createPattern, createRule, equalsRule, ingest, type Json } from '../rules/fixtures.js';

const missing = await openSearchMissing();
const DAY = 86_400_000;

describe('OpenSearch event indices', { skip: missing ?? false }, () => {
  const indices = testIndices();
  let service: Awaited<ReturnType<typeof startService>>;
  let admin: Client;
  const family = (pattern: string) => `${indices.prefix}svc-events-${pattern}`;
  const history = () => service.context.history as OpenSearchEventHistory;
  const search = async (pattern: string, query: object) => {
    await openSearch('POST', `/${family(pattern)}*/_refresh`);
    return (await openSearch<Json>('POST', `/${family(pattern)}*/_search`, { query, size: 100 })).body.hits.hits as Json[];
  };
  const eventsTotal = async () => (await admin.get('/api/stats')).data.ingest.events_total as number;

  before(async () => {
    service = await startService('pglite', { SEARCH_BACKEND: 'opensearch', OPENSEARCH_URL: OPENSEARCH_TEST_URL, OPENSEARCH_INDEX_PREFIX: indices.prefix });
    admin = await loginAdmin(service);
  });
  after(async () => {
    await service?.close();
    await indices.deleteAll();
  });

  test("the entities are indexed as the pattern's entity fields name them; the event is not", async () => {
    const pattern = await createPattern(admin, { name: 'ent', entity_fields: { host: ['Machine'] } });
    const at = new Date().toISOString();
    const answer = await ingest(service, pattern, [
      { '@timestamp': at, Machine: 'ws-7', User: 'bob', SourceIp: '10.0.0.5', host: 'not-this' },
      { '@timestamp': at, Machine: 'ws-8', User: 'eve' },
    ]);
    assert.equal(answer.statusCode, 200, answer.body);
    const onHost = await search('ent', { term: { host: 'ws-7' } });
    assert.equal(onHost.length, 1);
    assert.deepEqual([onHost[0]._source.user, onHost[0]._source.source_ip, onHost[0]._source.event.User], ['bob', '10.0.0.5', 'bob']);
    assert.equal(onHost[0]._index, `${family('ent')}-${dayStamp(new Date())}`);
    assert.equal((await search('ent', { term: { user: 'eve' } })).length, 1);
    assert.equal((await search('ent', { term: { source_ip: '10.0.0.5' } })).length, 1);
    // The event's own fields are not indexed.
    assert.equal((await search('ent', { term: { Machine: 'ws-7' } })).length, 0);
    const mapping = await openSearch<Json>('GET', `/${family('ent')}*/_mapping`);
    const properties = Object.values(mapping.body).map((m) => Object.keys((m as Json).mappings.properties).sort());
    assert.deepEqual(properties, [['event', 'event_time', 'hash', 'host', 'received_at', 'source_ip', 'user']]);
  });

  test('an index made by an earlier version gains the entity fields; the undated index is still read', async () => {
    const pattern = await createPattern(admin, { name: 'older' });
    const rule = await createRule(admin, { yaml_content: equalsRule('Older', 'Action', 'probe'), index_pattern: 'older' });
    const oldBody = { mappings: { dynamic: false, properties: { event_time: { type: 'date' }, received_at: { type: 'date' }, hash: { type: 'keyword' }, event: { type: 'object', enabled: false } } } };
    const today = `${family('older')}-${dayStamp(new Date())}`;
    assert.equal((await openSearch('PUT', `/${today}`, oldBody)).status, 200);
    assert.equal((await openSearch('PUT', `/${family('older')}`, oldBody)).status, 200);
    const earlier = new Date(Date.now() - 60_000).toISOString();
    await openSearch('PUT', `/${family('older')}/_doc/undated-1?refresh=true`, { event_time: earlier, received_at: earlier, hash: 'undated-1', event: { Action: 'probe', n: 0 } });

    const answer = await ingest(service, pattern, [{ '@timestamp': new Date().toISOString(), Action: 'probe', 'host.name': 'srv-1' }]);
    assert.equal(answer.statusCode, 200, answer.body);
    const mapping = await openSearch<Json>('GET', `/${today}/_mapping`);
    assert.equal(mapping.body[today].mappings.properties.host.type, 'keyword');
    assert.equal((await search('older', { term: { host: 'srv-1' } })).length, 1);
    const historical = await admin.post(`/api/rules/${rule.id}/test/historical`, { time_range: '1h', limit: 10 });
    assert.equal(historical.statusCode, 200, historical.body);
    assert.equal(historical.data.events_scanned, 2, historical.body);
    assert.equal(historical.data.matches, 2, historical.body);
  });

  test('one index per day of arrival; a re-sent event is kept once, on any day; retention deletes whole past days', async () => {
    const pattern = await createPattern(admin, { name: 'aged', retention_days: 2 });
    const rule = await createRule(admin, { yaml_content: equalsRule('Aged', 'kind', 'x'), index_pattern: 'aged' });
    const fiveDaysAgo = new Date(Date.now() - 5 * DAY);
    const old = [1, 2, 3].map((n) => ({ '@timestamp': new Date(Date.now() - n * 60_000).toISOString(), kind: 'x', n }));
    const recent = [4, 5].map((n) => ({ '@timestamp': new Date(Date.now() - n * 60_000).toISOString(), kind: 'x', n }));
    const totalBefore = await eventsTotal();
    history().now = () => fiveDaysAgo;
    try {
      assert.equal((await ingest(service, pattern, old)).statusCode, 200);
      assert.equal((await ingest(service, pattern, old.slice(0, 1))).statusCode, 200);
    } finally {
      history().now = () => new Date();
    }
    // Days later that index has long been refreshed (the real clock made it now).
    await openSearch('POST', `/${family('aged')}*/_refresh`);
    assert.equal((await ingest(service, pattern, recent)).statusCode, 200);
    // Sent again today: kept in the earlier day's index, not stored a second time.
    assert.equal((await ingest(service, pattern, [...old, ...recent])).statusCode, 200);

    const listed = await openSearch<Json[]>('GET', `/_cat/indices/${family('aged')}*?format=json&h=index,docs.count`);
    await openSearch('POST', `/${family('aged')}*/_refresh`);
    const counts = await openSearch<Json>('POST', `/${family('aged')}*/_search`, { size: 0, aggs: { days: { terms: { field: '_index' } } } });
    const perIndex = Object.fromEntries((counts.body.aggregations.days.buckets as Json[]).map((b) => [b.key, b.doc_count]));
    assert.deepEqual(perIndex, { [`${family('aged')}-${dayStamp(fiveDaysAgo)}`]: 3, [`${family('aged')}-${dayStamp(new Date())}`]: 2 }, JSON.stringify(listed.body));
    assert.equal(await eventsTotal(), totalBefore + 5);
    const historical = await admin.post(`/api/rules/${rule.id}/test/historical`, { time_range: '1h', limit: 10 });
    assert.equal(historical.data.events_scanned, 5, historical.body);

    const removed = await purgeExpiredEvents(service.db, service.context.history);
    assert.equal(removed, 3);
    assert.equal((await openSearch('GET', `/${family('aged')}-${dayStamp(fiveDaysAgo)}`)).status, 404);
    assert.equal((await search('aged', { match_all: {} })).length, 2);
    assert.equal(await eventsTotal(), totalBefore + 2);
    assert.equal(await purgeExpiredEvents(service.db, service.context.history), 0);
  });

  test('retention also removes events whose own time is past it from the days kept', async () => {
    const pattern = await createPattern(admin, { name: 'backfill', retention_days: 1 });
    const answer = await ingest(service, pattern, [{ '@timestamp': new Date(Date.now() - 3 * DAY).toISOString(), a: 'old' }, { '@timestamp': new Date().toISOString(), a: 'new' }]);
    assert.equal(answer.statusCode, 200, answer.body);
    assert.equal(await purgeExpiredEvents(service.db, service.context.history), 1);
    const left = await search('backfill', { match_all: {} });
    assert.deepEqual(left.map((h) => h._source.event.a), ['new']);
  });

  test('a chunk the cluster does not acknowledge answers 503 and is not counted; a retry stores it', async () => {
    const pattern = await createPattern(admin, { name: 'blocked' });
    const events = [{ '@timestamp': new Date().toISOString(), a: 1 }];
    assert.equal((await ingest(service, pattern, events)).statusCode, 200);
    const today = `${family('blocked')}-${dayStamp(new Date())}`;
    assert.equal((await openSearch('PUT', `/${today}/_settings`, { 'index.blocks.write': true })).status, 200);
    const totalBefore = await eventsTotal();
    const more = [{ '@timestamp': new Date().toISOString(), a: 2 }, { '@timestamp': new Date().toISOString(), a: 3 }];
    const refused = await ingest(service, pattern, more);
    assert.equal(refused.statusCode, 503, refused.body);
    assert.match(refused.body, /OpenSearch did not store 2 event/);
    assert.equal(await eventsTotal(), totalBefore);
    assert.equal((await openSearch('PUT', `/${today}/_settings`, { 'index.blocks.write': null })).status, 200);
    const retried = await ingest(service, pattern, more);
    assert.equal(retried.statusCode, 200, retried.body);
    assert.equal(await eventsTotal(), totalBefore + 2);
    assert.equal((await search('blocked', { match_all: {} })).length, 3);
  });
});

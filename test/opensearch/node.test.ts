// The local OpenSearch node (scripts/opensearch.sh) does what the OpenSearch search backend needs: a
// percolator index over keyword fields with `ip`/numeric subfields, rule queries written in one `_bulk`
// without a refresh per document and made visible by one `_refresh`, and percolation of many events in
// one request with every matching query paged through and each match's event slots. It also pins the
// node's answers the backend relies on (docs/opensearch.md, "Percolate: what the node answers").
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bulkBody, openSearch, openSearchMissing, testIndices } from '../helpers/opensearch.js';

const missing = await openSearchMissing();

interface Hit {
  _id: string;
  _source?: Record<string, unknown>;
  fields?: Record<string, number[]>;
  sort?: unknown[];
}
interface SearchBody {
  hits: { total: { value: number; relation: string }; hits: Hit[] };
}
interface BulkBody {
  errors: boolean;
  items: Array<Record<string, { _id: string; status: number; error?: { type: string; reason: string } }>>;
}

/** A keyword field as the backend maps rule fields: an `ip` and a `num` subfield that never refuse a value. */
const RULE_FIELD = {
  type: 'keyword',
  fields: { ip: { type: 'ip', ignore_malformed: true }, num: { type: 'double', ignore_malformed: true } },
};

const MAPPINGS = {
  dynamic: false,
  properties: {
    query: { type: 'percolator' },
    rule_id: { type: 'keyword' },
    user: RULE_FIELD,
    image: RULE_FIELD,
    src: RULE_FIELD,
    message: { type: 'text' },
    source_ip: { type: 'ip' },
    bytes: { type: 'long' },
  },
};

/** Rule queries by id, in the DSL the Sigma compiler writes. */
const QUERIES: Record<string, Record<string, unknown>> = {
  'term-exact': { term: { user: { value: 'Admin' } } },
  'term-ci': { term: { user: { value: 'admin', case_insensitive: true } } },
  'wildcard-ci': { wildcard: { image: { value: '*\\\\WHOAMI.exe', case_insensitive: true } } },
  'prefix-ci': { prefix: { image: { value: 'c:\\windows\\', case_insensitive: true } } },
  'regexp-ci': { regexp: { user: { value: 'ad[a-z]+', flags: 'NONE', case_insensitive: true } } },
  'regexp-ci-both-cases': { regexp: { user: { value: 'ad[a-zA-Z]+', flags: 'NONE', case_insensitive: true } } },
  'cidr-subfield': { term: { 'src.ip': '10.0.0.0/8' } },
  'cidr-ip-field': { term: { source_ip: '192.168.0.0/16' } },
  'range-subfield': { range: { 'src.num': { gte: 1000 } } },
  'range-long': { range: { bytes: { gt: 500 } } },
  exists: { exists: { field: 'message' } },
  'match-text': { match: { message: 'failed' } },
  bool: {
    bool: {
      filter: [{ term: { user: { value: 'root', case_insensitive: true } } }],
      must_not: [{ term: { 'src.ip': '10.0.0.0/8' } }],
    },
  },
};

/** The events percolated at once; a match is reported as the slot (index) of the event. */
const EVENTS: Array<Record<string, unknown>> = [
  /* 0 */ { user: 'Admin', image: 'C:\\Windows\\System32\\whoami.exe', src: '10.1.2.3' },
  /* 1 */ { user: 'ADMIN', image: 'c:\\windows\\system32\\WHOAMI.EXE', src: '-' },
  /* 2 */ { user: 'administrator', src: '1500', bytes: 501 },
  /* 3 */ { user: 'root', src: '172.16.0.1', source_ip: '192.168.1.20', message: 'Login failed for root' },
  /* 4 */ { user: 'ROOT', src: ['-', '10.9.9.9'], bytes: 500 },
  /* 5 */ { user: 'guest', image: 'D:\\tools\\whoami.exe.bak', message: 'ok' },
];

/** The slots each query must match (queries that match nothing are not returned at all). */
const EXPECTED: Record<string, number[]> = {
  'term-exact': [0],
  'term-ci': [0, 1],
  'wildcard-ci': [0, 1],
  'prefix-ci': [0, 1],
  // Lucene folds single characters only: `[a-z]` does not match `DMIN` although case_insensitive is set.
  'regexp-ci': [0, 2],
  'regexp-ci-both-cases': [0, 1, 2],
  'cidr-subfield': [0, 4],
  'cidr-ip-field': [3],
  'range-subfield': [2],
  'range-long': [2],
  exists: [3, 5],
  'match-text': [3],
  bool: [3],
};

/** Every matching query of one percolation, paged `size` at a time with search_after on rule_id. */
async function percolateAll(index: string, documents: unknown[], size: number): Promise<{ pages: number; hits: Hit[] }> {
  const hits: Hit[] = [];
  let searchAfter: unknown[] | undefined;
  let pages = 0;
  for (;;) {
    const answer = await openSearch<SearchBody>('POST', `/${index}/_search`, {
      size,
      _source: ['rule_id'],
      sort: [{ rule_id: 'asc' }],
      ...(searchAfter ? { search_after: searchAfter } : {}),
      query: { constant_score: { filter: { percolate: { field: 'query', documents } } } },
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    pages++;
    const page = answer.body.hits.hits;
    hits.push(...page);
    if (page.length < size) return { pages, hits };
    searchAfter = page[page.length - 1].sort;
  }
}

describe('local OpenSearch node', { skip: missing ?? false }, () => {
  const indices = testIndices();
  const rules = indices.name('rules');

  before(async () => {
    const created = await openSearch('PUT', `/${rules}`, {
      settings: { number_of_shards: 1, number_of_replicas: 0, refresh_interval: '-1' },
      mappings: MAPPINGS,
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
  });

  after(async () => {
    await indices.deleteAll();
  });

  test('is OpenSearch 2.19 with the percolator, analysis-common and netty4 modules', async () => {
    const root = await openSearch<{ version: { distribution: string; number: string } }>('GET', '/');
    assert.equal(root.body.version.distribution, 'opensearch');
    assert.match(root.body.version.number, /^2\.19\./);
    const plugins = await openSearch<{ nodes: Record<string, { plugins: Array<{ name: string }> }> }>('GET', '/_nodes/plugins');
    const names = Object.values(plugins.body.nodes).flatMap((n) => n.plugins.map((p) => p.name));
    for (const name of ['PercolatorPlugin', 'CommonAnalysisPlugin', 'Netty4Plugin']) {
      assert.ok(names.some((n) => n.endsWith(`.${name}`)), `${name} in ${names.join(', ')}`);
    }
    // asciifolding comes from analysis-common.
    const analyzed = await openSearch<{ tokens: Array<{ token: string }> }>('POST', '/_analyze', { tokenizer: 'standard', filter: ['asciifolding'], text: 'Ça' });
    assert.deepEqual(analyzed.body.tokens.map((t) => t.token), ['Ca']);
  });

  test('rule queries written by _bulk become visible to percolation at the one _refresh', async () => {
    const lines = Object.entries(QUERIES).flatMap(([id, query]) => [{ index: { _index: rules, _id: id } }, { rule_id: id, query }]);
    const bulk = await openSearch<BulkBody>('POST', '/_bulk', bulkBody(lines));
    assert.equal(bulk.status, 200);
    assert.equal(bulk.body.errors, false, JSON.stringify(bulk.body.items.filter((i) => i.index.error)));
    assert.deepEqual(bulk.body.items.map((i) => i.index.status), Object.keys(QUERIES).map(() => 201));

    const percolate = { size: 100, query: { percolate: { field: 'query', documents: EVENTS } } };
    const before = await openSearch<SearchBody>('POST', `/${rules}/_search`, percolate);
    assert.equal(before.body.hits.total.value, 0, 'no refresh yet (refresh_interval -1), so no query is searchable');

    const refreshed = await openSearch<{ _shards: { failed: number } }>('POST', `/${rules}/_refresh`);
    assert.equal(refreshed.status, 200);
    assert.equal(refreshed.body._shards.failed, 0);

    const afterRefresh = await openSearch<SearchBody>('POST', `/${rules}/_search`, percolate);
    assert.equal(afterRefresh.status, 200);
    assert.equal(afterRefresh.body.hits.total.value, Object.keys(EXPECTED).length);
  });

  test('one percolation of many events reports, per matching query, the slots of the events it matched', async () => {
    const { hits } = await percolateAll(rules, EVENTS, 100);
    const got = Object.fromEntries(hits.map((h) => [h._id, h.fields?._percolator_document_slot]));
    assert.deepEqual(got, EXPECTED);
    // The stored source comes back as asked, next to the slots.
    assert.deepEqual(hits.find((h) => h._id === 'bool')?._source, { rule_id: 'bool' });
  });

  test('more matching queries than one page are all returned, page by page (search_after and from)', async () => {
    const many = indices.name('many');
    const created = await openSearch('PUT', `/${many}`, { settings: { number_of_shards: 1, number_of_replicas: 0 }, mappings: MAPPINGS });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const ids = Array.from({ length: 35 }, (_, n) => `r${String(n).padStart(3, '0')}`);
    const lines = ids.flatMap((id, n) => [
      { index: { _index: many, _id: id } },
      { rule_id: id, query: n % 2 === 0 ? { term: { user: { value: 'EVE', case_insensitive: true } } } : { wildcard: { image: { value: `*${n}.exe` } } } },
    ]);
    const bulk = await openSearch<BulkBody>('POST', '/_bulk', bulkBody(lines));
    assert.equal(bulk.body.errors, false);
    assert.equal((await openSearch('POST', `/${many}/_refresh`)).status, 200);

    // 300 events: every tenth is eve's, and event n runs `<n>.exe` (only 1..34 name an odd rule's image).
    const events = Array.from({ length: 300 }, (_, n) => ({ user: n % 10 === 0 ? 'eve' : `user${n}`, image: `C:\\bin\\${n}.exe` }));
    const { pages, hits } = await percolateAll(many, events, 10);
    assert.equal(pages, 4);
    assert.deepEqual(hits.map((h) => h._id), ids);
    for (const [n, hit] of hits.entries()) {
      const slots = hit.fields?._percolator_document_slot;
      if (n % 2 === 0) assert.deepEqual(slots, Array.from({ length: 30 }, (_, k) => k * 10), hit._id);
      // `*<n>.exe` also matches 1<n>.exe, 2<n>.exe, ... (a suffix), so several slots per odd rule.
      else assert.deepEqual(slots, events.flatMap((e, k) => (e.image.endsWith(`${n}.exe`) ? [k] : [])), hit._id);
    }

    // from/size pages the same hits in the same order.
    const second = await openSearch<SearchBody>('POST', `/${many}/_search`, {
      from: 10,
      size: 10,
      _source: false,
      sort: [{ rule_id: 'asc' }],
      query: { percolate: { field: 'query', documents: events } },
    });
    assert.deepEqual(second.body.hits.hits.map((h) => h._id), ids.slice(10, 20));
    assert.equal(second.body.hits.total.value, 35);
  });

  test('several percolate clauses in one search report slots per clause name', async () => {
    const answer = await openSearch<SearchBody>('POST', `/${rules}/_search`, {
      size: 100,
      _source: false,
      query: {
        bool: {
          should: [
            { percolate: { field: 'query', name: 'first', documents: [{ user: 'admin' }] } },
            { percolate: { field: 'query', name: 'second', documents: [{ user: 'guest' }, { user: 'Admin' }] } },
          ],
        },
      },
    });
    assert.equal(answer.status, 200);
    const byId = Object.fromEntries(answer.body.hits.hits.map((h) => [h._id, h.fields]));
    assert.deepEqual(byId['term-exact'], { _percolator_document_slot_second: [1] });
    assert.deepEqual(byId['term-ci'], { _percolator_document_slot_first: [0], _percolator_document_slot_second: [1] });
  });

  test('a value a typed field cannot hold fails the whole percolation; ignore_malformed subfields do not', async () => {
    const bad = await openSearch<{ error: { type: string; root_cause: Array<{ type: string; reason: string }> } }>('POST', `/${rules}/_search`, {
      query: { percolate: { field: 'query', documents: [{ user: 'Admin' }, { bytes: 'lots' }] } },
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.root_cause[0].type, 'mapper_parsing_exception');
    assert.match(bad.body.error.root_cause[0].reason, /failed to parse field \[bytes\] of type \[long\]/);

    const tolerated = await percolateAll(rules, [{ src: 'not an address' }, { src: '10.0.0.1' }], 100);
    assert.deepEqual(Object.fromEntries(tolerated.hits.map((h) => [h._id, h.fields?._percolator_document_slot])), { 'cidr-subfield': [1] });
  });

  test('a rule query naming an unmapped field is refused when written, per item of the _bulk', async () => {
    const bulk = await openSearch<BulkBody>('POST', '/_bulk', bulkBody([
      { index: { _index: rules, _id: 'unmapped' } },
      { rule_id: 'unmapped', query: { term: { no_such_field: 'x' } } },
      { index: { _index: rules, _id: 'fine' } },
      { rule_id: 'fine', query: { term: { user: 'nobody-matches-this' } } },
    ]));
    assert.equal(bulk.status, 200);
    assert.equal(bulk.body.errors, true);
    const [unmapped, fine] = bulk.body.items.map((i) => i.index);
    assert.equal(unmapped.status, 400);
    assert.equal(unmapped.error?.type, 'mapper_parsing_exception');
    assert.equal(fine.status, 201);
  });

  test('case_insensitive folds ASCII letters only; a keyword with a lowercase normalizer folds the others too', async () => {
    const folded = indices.name('folded');
    const created = await openSearch('PUT', `/${folded}`, {
      settings: { number_of_shards: 1, number_of_replicas: 0, analysis: { normalizer: { folded: { type: 'custom', filter: ['lowercase'] } } } },
      mappings: { dynamic: false, properties: { query: { type: 'percolator' }, rule_id: { type: 'keyword' }, user: { type: 'keyword', fields: { folded: { type: 'keyword', normalizer: 'folded' } } } } },
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const bulk = await openSearch<BulkBody>('POST', `/${folded}/_bulk?refresh=true`, bulkBody([
      { index: { _id: 'term-ci' } },
      { rule_id: 'term-ci', query: { term: { user: { value: 'élan', case_insensitive: true } } } },
      { index: { _id: 'term-ci-greek' } },
      { rule_id: 'term-ci-greek', query: { term: { user: { value: 'ΣΊΣΥΦΟΣ', case_insensitive: true } } } },
      { index: { _id: 'wildcard-ci' } },
      { rule_id: 'wildcard-ci', query: { wildcard: { user: { value: '*ÉL*', case_insensitive: true } } } },
      { index: { _id: 'term-normalized' } },
      { rule_id: 'term-normalized', query: { term: { 'user.folded': 'ÉLAN' } } },
      { index: { _id: 'wildcard-normalized' } },
      { rule_id: 'wildcard-normalized', query: { wildcard: { 'user.folded': { value: 'ΣΊΣ*' } } } },
    ]));
    assert.equal(bulk.body.errors, false, JSON.stringify(bulk.body));
    const { hits } = await percolateAll(folded, [{ user: 'ÉLAN' }, { user: 'Élan' }, { user: 'elan' }, { user: 'σίσυφος' }], 100);
    assert.deepEqual(Object.fromEntries(hits.map((h) => [h._id, h.fields?._percolator_document_slot])), {
      // `é` and `É` (and all Greek letters) are not folded by case_insensitive: no match at all.
      // The wildcard matches `ÉLAN` and `Élan` because `É` is written as in the value; `L`/`l` is ASCII.
      'wildcard-ci': [0, 1],
      'term-normalized': [0, 1],
      'wildcard-normalized': [3],
    });
  });

  test('an empty documents list is refused with 400', async () => {
    const answer = await openSearch('POST', `/${rules}/_search`, { query: { percolate: { field: 'query', documents: [] } } });
    assert.equal(answer.status, 400);
  });
});

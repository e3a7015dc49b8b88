// The OpenSearch backend against a real node: the rule lifecycle writes, replaces and removes percolator
// documents in svc-percolator-{pattern} (seen through OpenSearch's own API); ingest percolates every
// event and raises the same alerts as the embedded backend, with every matching rule (more than the
// default ten hits); with matching on each instance (OPENSEARCH_MATCHING=local, the default) a rule the DSL
// cannot express, or the cluster refuses, deploys with a stand-in document and raises its alerts; with
// matching on the cluster it is refused with the reason; reconciliation repairs
// what was changed behind the service's back; history is searched in svc-events-{pattern}; an alert's
// process tree is built from its host's events on the cluster; a cluster
// that cannot be reached (at start, or taken away mid-run) answers 503 and nothing acknowledged is lost.
import { after, before, describe, test } from 'node:test';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import assert from 'node:assert/strict';
import { DATABASE_KINDS, postgresUnavailable } from '../helpers/databases.js';
import { openSearch, openSearchMissing, OPENSEARCH_TEST_URL, testIndices } from '../helpers/opensearch.js';
import { loginAdmin, startService, type Client } from '../helpers/service.js';
import { purgeExpiredEvents } from '../../src/ingest/retention.js';
import { assertError, countRows, createPattern, createRule, equalsRule, ingest, sigma, type CreatedPattern, type Json } from '../rules/fixtures.js';

const missing = await openSearchMissing();

/** Matching on each instance on both databases; matching on the cluster on the embedded one. */
const CASES = [...DATABASE_KINDS.map((kind) => ({ kind, matching: 'local' as const })), { kind: DATABASE_KINDS[0], matching: 'cluster' as const }];

for (const { kind, matching } of CASES) {
  describe(`OpenSearch backend [${kind}, matching ${matching}]`, { skip: missing ?? false }, async () => {
    const pgMissing = kind === 'postgres' ? await postgresUnavailable() : null;
    if (pgMissing) {
      test(`skipped: ${pgMissing}`, { skip: pgMissing }, () => {});
      return;
    }
    const indices = testIndices();
    let service: Awaited<ReturnType<typeof startService>>;
    let admin: Client;
    let pattern: CreatedPattern;
    const percolatorIndex = () => `${indices.prefix}svc-percolator-win`;
    const stored = async (id: string) => openSearch<Json>('GET', `/${percolatorIndex()}/_doc/${id}`);

    before(async () => {
      service = await startService(kind, { SEARCH_BACKEND: 'opensearch', OPENSEARCH_URL: OPENSEARCH_TEST_URL, OPENSEARCH_INDEX_PREFIX: indices.prefix, OPENSEARCH_MATCHING: matching });
      admin = await loginAdmin(service);
      pattern = await createPattern(admin, { name: 'win', is_default: true });
    });
    after(async () => {
      await service?.close();
      await indices.deleteAll();
    });

    test('health reports the cluster', async () => {
      const health = await admin.get('/api/health');
      assert.equal(health.data.search_backend, 'ok', health.body);
    });

    test('deploy writes the percolator document; redeploy replaces it; undeploy and delete remove it', async () => {
      const rule = await createRule(admin, { yaml_content: sigma(), deploy: true });
      assert.equal(rule.status, 'deployed');
      const doc = await stored(rule.percolator_id);
      assert.equal(doc.status, 200, JSON.stringify(doc.body));
      assert.equal(doc.body._source['%rule_id'], rule.id);
      assert.equal(doc.body._source['%rule_version'], 1);
      assert.ok(JSON.stringify(doc.body._source['%query']).includes('whoami.exe'));

      const updated = await admin.put(`/api/rules/${rule.id}`, { yaml_content: sigma({ title: 'Whoami v2', detection: "  selection:\n    Image|endswith: '\\\\hostname.exe'\n  condition: selection" }) });
      assert.equal(updated.statusCode, 200, updated.body);
      const again = await stored(rule.percolator_id);
      assert.equal(again.body._source['%rule_version'], 2);
      assert.ok(JSON.stringify(again.body._source['%query']).includes('hostname.exe'));

      assert.equal((await admin.post(`/api/rules/${rule.id}/undeploy`)).statusCode, 200);
      assert.equal((await stored(rule.percolator_id)).status, 404);
      assert.equal((await admin.post(`/api/rules/${rule.id}/deploy`)).statusCode, 200);
      assert.equal((await stored(rule.percolator_id)).status, 200);
      assert.equal((await admin.delete(`/api/rules/${rule.id}`)).statusCode, 204);
      assert.equal((await stored(rule.percolator_id)).status, 404);
    });

    test('ingest percolates: one alert per matching rule, with the selection that held', async () => {
      const rule = await createRule(admin, { yaml_content: equalsRule('Cmd by bob', 'User', 'bob', 'high'), deploy: true });
      const response = await ingest(service, pattern, [
        { '@timestamp': '2026-11-20T10:00:00Z', User: 'BOB', Image: 'C:\\cmd.exe' },
        { '@timestamp': '2026-11-20T10:00:01Z', User: 'alice' },
      ]);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.data.alerts_created, 1);
      const [alert] = await service.db.query<Json>('SELECT * FROM alerts WHERE rule_id = $1', [rule.id]);
      assert.equal(alert.event.User, 'BOB');
      assert.deepEqual(alert.matched_conditions, [{ selection: { User: 'BOB' } }]);
    });

    test("the process tree is built from the host's process starts on the cluster (found by the indexed host)", async () => {
      const rule = await createRule(admin, { yaml_content: equalsRule('Tree tool', 'Tool', 'tree-tool', 'low'), deploy: true });
      const start = { Computer: 'ws-1', ProcessGuid: '{p}', ProcessId: 20, ParentProcessGuid: '{g}', ParentProcessId: 10, ParentImage: 'C:\\explorer.exe', Image: 'C:\\cmd.exe' };
      const elsewhere = { ...start, '@timestamp': '2026-11-20T10:59:00Z', Computer: 'ws-2', Image: 'C:\\other.exe' };
      const event = { '@timestamp': '2026-11-20T11:00:00Z', Tool: 'tree-tool', Computer: 'ws-1', ProcessGuid: '{c}', ProcessId: 30, ParentProcessGuid: '{p}', ParentProcessId: 20, ParentImage: 'C:\\cmd.exe', Image: 'C:\\tool.exe' };
      assert.equal((await ingest(service, pattern, [{ ...start, '@timestamp': '2026-11-20T10:58:00Z' }, elsewhere, event])).statusCode, 200);
      const [alert] = await service.db.query<Json>('SELECT id FROM alerts WHERE rule_id = $1', [rule.id]);
      const tree = await admin.get(`/api/alerts/${alert.id}/process_tree`);
      assert.equal(tree.statusCode, 200, tree.body);
      assert.equal(tree.data.unavailable_reason, undefined, tree.body);
      assert.deepEqual(
        tree.data.nodes.map((n: Json) => [n.key, n.image, n.is_alert_process, n.event_time]),
        [
          ['guid:{g}', 'C:\\explorer.exe', false, null],
          ['guid:{p}', 'C:\\cmd.exe', false, '2026-11-20T10:58:00.000Z'],
          ['guid:{c}', 'C:\\tool.exe', true, '2026-11-20T11:00:00.000Z'],
        ],
      );
    });

    test('a correlation deploys its rule as a percolator document; its windows are kept in the database and fire', async () => {
      const base = await createRule(admin, {
        yaml_content: `title: Share Access\nname: share_access\nlogsource:\n  product: windows\ndetection:\n  selection:\n    EventID: 5140\n  condition: selection\nlevel: low\n`,
      });
      const correlation = await createRule(admin, {
        yaml_content: `title: Many Shares From One Host\ncorrelation:\n  type: value_count\n  rules:\n    - share_access\n  group-by:\n    - IpAddress\n  timespan: 10m\n  condition:\n    field: ShareName\n    gte: 3\nlevel: high\n`,
        deploy: true,
      });
      assert.equal(correlation.rule_type, 'correlation');
      assert.equal((await stored(base.id as string)).status, 200);
      const share = (name: string, minute: number) => ({ '@timestamp': `2026-11-20T11:0${minute}:00Z`, EventID: 5140, IpAddress: '10.9.9.9', ShareName: name });
      const response = await ingest(service, pattern, [share('C$', 0), share('ADMIN$', 1), share('C$', 2), share('IPC$', 3)]);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.data.alerts_created, 1, response.body);
      const [alert] = await service.db.query<Json>('SELECT correlation FROM alerts WHERE rule_id = $1', [correlation.id]);
      assert.deepEqual(alert.correlation.group, { IpAddress: '10.9.9.9' });
      assert.equal(alert.correlation.value, 3);
      assert.equal(alert.correlation.event_count, 4);
      assert.equal((await admin.post(`/api/rules/${correlation.id}/undeploy`)).statusCode, 200);
      assert.equal((await admin.post(`/api/rules/${base.id}/undeploy`)).statusCode, 200);
    });

    test('bulk deploy writes every rule; every matching rule is returned, far beyond ten', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 25; i++) ids.push((await createRule(admin, { yaml_content: equalsRule(`Many ${i}`, 'Tag', 'many') })).id);
      const bulk = await admin.post('/api/rules/bulk/deploy', { ids });
      assert.equal(bulk.data.deployed, 25, bulk.body);
      const events = Array.from({ length: 30 }, (_, i) => ({ '@timestamp': '2026-11-20T11:00:00Z', Tag: 'many', n: i }));
      const response = await ingest(service, pattern, events);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.data.alerts_created, 25 * 30);
      for (const id of ids) assert.equal((await admin.post(`/api/rules/${id}/undeploy`)).statusCode, 200);
    });

    test('cidr, numbers, wildcards, regexes, keywords and dotted fields behave as in the embedded matcher', async () => {
      const cases: Array<[string, object, object]> = [
        ["  selection:\n    SourceIp|cidr: '10.0.0.0/8'\n  condition: selection", { SourceIp: '10.2.3.4' }, { SourceIp: '11.2.3.4' }],
        ['  selection:\n    Size|gte: 100\n  condition: selection', { Size: 150 }, { Size: 99 }],
        ["  selection:\n    CommandLine|contains|all:\n      - '-enc'\n      - 'bypass'\n  condition: selection", { CommandLine: 'PowerShell -EncodedCommand x -ExecutionPolicy ByPass' }, { CommandLine: 'powershell -enc' }],
        ["  selection:\n    Query|re: '^[a-z]+\\.evil\\.(com|net)$'\n  condition: selection", { Query: 'abc.evil.net' }, { Query: 'abc.evil.org' }],
        ["  keywords:\n    - 'mimikatz'\n  condition: keywords", { Message: 'ran MIMIKATZ here', '@timestamp': '2026-11-20T12:00:00Z' }, { Message: 'nothing' }],
        ["  selection:\n    user.name: 'root'\n    user: 'x'\n  condition: selection", { user: { name: 'root' } }, { 'user.name': 'rooty' }],
        ['  selection:\n    Parent: null\n  condition: selection', { Other: 1 }, { Parent: 'x' }],
        ["  selection:\n    Name|contains: 'Élan'\n  condition: selection", { Name: 'un éLAN vital' }, { Name: 'un elan vital' }],
        ["  selection:\n    Agent: ''\n  condition: selection", { Agent: '' }, { Agent: 'curl' }],
        ["  selection:\n    Greek|endswith: 'ΣΟΦΟΣ'\n  condition: selection", { Greek: 'ο σοφος' }, { Greek: 'σοφο' }],
      ];
      for (const [n, [detection, hit, miss]] of cases.entries()) {
        const rule = await createRule(admin, { yaml_content: sigma({ title: `Case ${n}`, detection }), deploy: true });
        const answer = await ingest(service, pattern, [hit, miss]);
        assert.equal(answer.statusCode, 200, answer.body);
        assert.equal(await countRows(service, 'alerts WHERE rule_id = $1', [rule.id]), detection.includes('user: ') ? 0 : 1, detection);
        await admin.post(`/api/rules/${rule.id}/undeploy`);
      }
    });

    const fieldref = () => sigma({ title: 'Fieldref', detection: '  selection:\n    TargetUser|fieldref: SubjectUser\n  condition: selection' });
    // Past the cluster's 1,024 clauses of one query (indices.query.bool.max_clause_count).
    const tooManyClauses = () => sigma({ title: 'Many names', detection: `  selection:\n    Image|endswith:\n${Array.from({ length: 1100 }, (_, i) => `      - '\\\\tool${i}.exe'`).join('\n')}\n  condition: selection` });

    if (matching === 'cluster') {
      test('a rule the DSL cannot express is refused at deploy with the reason', async () => {
        const created = await createRule(admin, { yaml_content: fieldref() });
        const deploy = await admin.post(`/api/rules/${created.id}/deploy`);
        assertError(deploy, 400, /^Validation failed: the rule cannot be expressed as an OpenSearch query: TargetUser: fieldref/);
        assert.equal((await stored(created.id)).status, 404);
        assert.notEqual((await admin.get(`/api/rules/${created.id}`)).data.status, 'deployed');
      });

      test('a rule past the cluster\'s clause limit is refused at deploy with the reason', async () => {
        const created = await createRule(admin, { yaml_content: tooManyClauses() });
        const deploy = await admin.post(`/api/rules/${created.id}/deploy`);
        assertError(deploy, 400, /the query needs 1100 clauses; OpenSearch allows 1024/);
        assert.notEqual((await admin.get(`/api/rules/${created.id}`)).data.status, 'deployed');
      });
    } else {
      test('a rule the DSL cannot express deploys with a stand-in document naming the reason, and raises its alerts', async () => {
        const rule = await createRule(admin, { yaml_content: fieldref(), deploy: true });
        assert.equal(rule.status, 'deployed');
        const doc = await stored(rule.percolator_id);
        assert.equal(doc.status, 200, JSON.stringify(doc.body));
        assert.match(doc.body._source['%query'].match_none._name, /^matched by Vigil, not on the cluster: TargetUser: fieldref/);
        const answer = await ingest(service, pattern, [
          { '@timestamp': '2026-11-20T13:00:00Z', TargetUser: 'eve', SubjectUser: 'eve' },
          { '@timestamp': '2026-11-20T13:00:01Z', TargetUser: 'eve', SubjectUser: 'bob' },
        ]);
        assert.equal(answer.statusCode, 200, answer.body);
        assert.equal(await countRows(service, 'alerts WHERE rule_id = $1', [rule.id]), 1);
        assert.equal((await admin.post(`/api/rules/${rule.id}/undeploy`)).statusCode, 200);
        assert.equal((await stored(rule.percolator_id)).status, 404);
      });

      test('a rule past the cluster\'s clause limit deploys with a stand-in document, and raises its alerts', async () => {
        const rule = await createRule(admin, { yaml_content: tooManyClauses(), deploy: true });
        assert.equal(rule.status, 'deployed');
        const doc = await stored(rule.percolator_id);
        assert.equal(doc.status, 200, JSON.stringify(doc.body));
        assert.match(doc.body._source['%query'].match_none._name, /^matched by Vigil, not on the cluster: the query needs 1100 clauses; OpenSearch allows 1024/);
        const answer = await ingest(service, pattern, [{ '@timestamp': '2026-11-20T13:00:00Z', Image: 'C:\\bin\\tool1042.exe' }, { Image: 'C:\\bin\\tool.exe' }]);
        assert.equal(answer.statusCode, 200, answer.body);
        assert.equal(await countRows(service, 'alerts WHERE rule_id = $1', [rule.id]), 1);
        // Reconciliation keeps the stand-in: nothing to write, nothing refused.
        const reconciled = await admin.post('/api/rules/reconcile');
        assert.equal(reconciled.statusCode, 200, reconciled.body);
        assert.equal((await stored(rule.percolator_id)).status, 200);
        assert.equal((await admin.post(`/api/rules/${rule.id}/undeploy`)).statusCode, 200);
      });
    }

    test('reconcile restores a removed document and removes a stray one', async () => {
      const rule = await createRule(admin, { yaml_content: equalsRule('Reconciled', 'User', 'eve'), deploy: true });
      await openSearch('DELETE', `/${percolatorIndex()}/_doc/${rule.percolator_id}?refresh=true`);
      await openSearch('PUT', `/${percolatorIndex()}/_doc/stray?refresh=true`, { '%query': { match_all: {} }, '%rule_id': 'stray', '%rule_version': 1 });
      const report = await admin.post('/api/rules/reconcile');
      assert.equal(report.statusCode, 200, report.body);
      assert.equal(report.data.backend, 'opensearch');
      assert.ok(report.data.created >= 1, report.body);
      assert.ok(report.data.deleted >= 1, report.body);
      assert.equal((await stored(rule.percolator_id)).status, 200);
      assert.equal((await stored('stray')).status, 404);
      const again = await admin.post('/api/rules/reconcile');
      assert.deepEqual([again.data.created, again.data.updated, again.data.deleted], [0, 0, 0]);
      assert.equal((await ingest(service, pattern, [{ '@timestamp': '2026-11-20T13:00:00Z', User: 'eve' }])).data.alerts_created, 1);
    });

    test('events are kept in svc-events-{pattern}, once each; the historical test searches there', async () => {
      const hist = await createPattern(admin, { name: 'hist' });
      const rule = await createRule(admin, { yaml_content: equalsRule('History', 'Action', 'history-probe'), index_pattern: 'hist' });
      const now = Date.now();
      const events = Array.from({ length: 12 }, (_, i) => ({ '@timestamp': new Date(now - i * 60_000).toISOString(), Action: i % 3 === 0 ? 'history-probe' : 'other', i }));
      assert.equal((await ingest(service, hist, events)).statusCode, 200);
      assert.equal((await ingest(service, hist, events)).statusCode, 200);
      await openSearch('POST', `/${indices.prefix}svc-events-hist*/_refresh`);
      const count = await openSearch<Json>('POST', `/${indices.prefix}svc-events-hist*/_count`, { query: { range: { event_time: { gte: new Date(now - 3_600_000).toISOString() } } } });
      assert.equal(count.body.count, 12);
      const historical = await admin.post(`/api/rules/${rule.id}/test/historical`, { time_range: '1h', limit: 10 });
      assert.equal(historical.statusCode, 200, historical.body);
      assert.equal(historical.data.matches, 4, historical.body);
      assert.equal(historical.data.events_scanned, 12, historical.body);
      const stats = await admin.get('/api/stats');
      assert.ok(stats.data.ingest.events_total >= 12, stats.body);
    });

    test('deleting a pattern deletes its events on the cluster; a new pattern of that name starts empty', async () => {
      const gone = await createPattern(admin, { name: 'gone' });
      assert.equal((await ingest(service, gone, [{ '@timestamp': new Date().toISOString(), a: 1 }, { '@timestamp': new Date().toISOString(), a: 2 }])).statusCode, 200);
      const deleted = await admin.delete(`/api/index_patterns/${gone.id}`);
      assert.equal(deleted.statusCode, 204, deleted.body);
      const left = await openSearch<Json>('GET', `/${indices.prefix}svc-events-gone*/_count`);
      assert.equal(left.body.count, 0);
      const again = await createPattern(admin, { name: 'gone' });
      const rule = await createRule(admin, { yaml_content: equalsRule('Gone again', 'a', '3'), index_pattern: 'gone' });
      assert.equal((await ingest(service, again, [{ '@timestamp': new Date().toISOString(), a: 3 }])).statusCode, 200);
      const historical = await admin.post(`/api/rules/${rule.id}/test/historical`, { time_range: '1h', limit: 10 });
      assert.equal(historical.data.events_scanned, 1, historical.body);
      assert.equal(historical.data.matches, 1, historical.body);
    });

    test('retention deletes the events older than the pattern keeps, on the cluster', async () => {
      const kept = await createPattern(admin, { name: 'kept', retention_days: 1 });
      const old = new Date(Date.now() - 3 * 86_400_000).toISOString();
      const recent = new Date().toISOString();
      assert.equal((await ingest(service, kept, [{ '@timestamp': old, a: 'old' }, { '@timestamp': recent, a: 'new' }])).statusCode, 200);
      const removed = await purgeExpiredEvents(service.db, service.context.history);
      assert.ok(removed >= 1, `${removed} removed`);
      await openSearch('POST', `/${indices.prefix}svc-events-kept*/_refresh`);
      const left = await openSearch<Json>('GET', `/${indices.prefix}svc-events-kept*/_count`);
      assert.equal(left.body.count, 1);
    });

    test(`import with deploy ${matching === 'cluster' ? 'reports a rule the DSL cannot express, and deploys the others' : 'deploys a rule the DSL cannot express too'}`, async () => {
      const yaml = [equalsRule('Importable', 'User', 'imp'), sigma({ title: 'Not expressible', detection: '  selection:\n    A|fieldref: B\n  condition: selection' })].join('---\n');
      const response = await admin.post('/api/rules/import?deploy=true', yaml, { 'content-type': 'application/yaml' });
      assert.ok([200, 201].includes(response.statusCode), response.body);
      if (matching === 'local') {
        assert.equal(response.data.created, 2, response.body);
        assert.equal(response.data.failed.length, 0);
        return;
      }
      assert.equal(response.data.created, 1, response.body);
      assert.equal(response.data.failed.length, 1);
      assert.match(response.data.failed[0].error, /cannot be expressed as an OpenSearch query/);
    });
  });
}

describe('OpenSearch backend unreachable', { skip: missing ?? false }, () => {
  let service: Awaited<ReturnType<typeof startService>>;
  let admin: Client;
  let pattern: CreatedPattern;
  before(async () => {
    service = await startService('pglite', { SEARCH_BACKEND: 'opensearch', OPENSEARCH_URL: 'http://127.0.0.1:1', OPENSEARCH_INDEX_PREFIX: 'unreachable-' });
    admin = await loginAdmin(service);
    pattern = await createPattern(admin, { name: 'win', is_default: true });
  });
  after(async () => service?.close());

  test('health says unavailable; deploy and ingest answer 503 and store nothing', async () => {
    assert.equal((await admin.get('/api/health')).data.search_backend, 'unavailable');
    const rule = await createRule(admin, { yaml_content: sigma() });
    assertError(await admin.post(`/api/rules/${rule.id}/deploy`), 503, 'Search backend connection failed');
    assert.notEqual((await admin.get(`/api/rules/${rule.id}`)).data.status, 'deployed');
    const answer = await ingest(service, pattern, [{ User: 'x' }]);
    assert.equal(answer.statusCode, 503, answer.body);
    assert.equal(await countRows(service, 'events', []), 0);
    assertError(await admin.post('/api/rules/reconcile'), 503, 'Search backend connection failed');
  });
});

/** A TCP relay to the test node that can be cut and restored, to take the cluster away mid-run. */
class Relay {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  port = 0;

  async open(): Promise<void> {
    const target = new URL(OPENSEARCH_TEST_URL);
    this.server = createServer((client) => {
      const upstream = connect(Number(target.port || 80), target.hostname);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async cut(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

describe('OpenSearch backend losing the cluster mid-run', { skip: missing ?? false }, () => {
  const indices = testIndices();
  const relay = new Relay();
  let service: Awaited<ReturnType<typeof startService>>;
  let admin: Client;
  let pattern: CreatedPattern;
  before(async () => {
    await relay.open();
    service = await startService('pglite', { SEARCH_BACKEND: 'opensearch', OPENSEARCH_URL: `http://127.0.0.1:${relay.port}`, OPENSEARCH_INDEX_PREFIX: indices.prefix });
    admin = await loginAdmin(service);
    pattern = await createPattern(admin, { name: 'win', is_default: true });
  });
  after(async () => {
    await service?.close();
    await relay.cut();
    await indices.deleteAll();
  });

  test('while the cluster is away everything answers 503; afterwards a retry stores each event and alert once', async () => {
    const rule = await createRule(admin, { yaml_content: equalsRule('Outage', 'User', 'mallory'), deploy: true });
    const events = [
      { '@timestamp': '2026-11-21T10:00:00Z', User: 'mallory', n: 1 },
      { '@timestamp': '2026-11-21T10:00:01Z', User: 'mallory', n: 2 },
    ];
    assert.equal((await ingest(service, pattern, events.slice(0, 1))).data.alerts_created, 1);

    await relay.cut();
    assert.equal((await admin.get('/api/health')).data.search_backend, 'unavailable');
    const refused = await ingest(service, pattern, events);
    assert.equal(refused.statusCode, 503, refused.body);
    assertError(await admin.post(`/api/rules/${rule.id}/undeploy`), 503, 'Search backend connection failed');
    assert.equal((await admin.get(`/api/rules/${rule.id}`)).data.status, 'deployed');

    await relay.open();
    const retried = await ingest(service, pattern, events);
    assert.equal(retried.statusCode, 200, retried.body);
    assert.equal(retried.data.alerts_created, 1);
    assert.equal(await countRows(service, 'alerts WHERE rule_id = $1', [rule.id]), 2);
    await openSearch('POST', `/${indices.prefix}svc-events-win*/_refresh`);
    const stored = await openSearch<Json>('GET', `/${indices.prefix}svc-events-win*/_count`);
    assert.equal(stored.body.count, 2);
  });
});

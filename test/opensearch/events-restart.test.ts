// Ingest against an OpenSearch node killed (SIGKILL) and started again on the same data while events
// keep coming: every event the service acknowledged to its sender is on the cluster afterwards (each
// found by its hash), requests sent while the node is down answer 503 and never 2xx, and ingest
// succeeds again once the node is back. Runs a dedicated node (test/helpers/opensearch-node.ts): the
// shared one is never taken down.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { stringifyJson } from '../../src/http/exact-json.js';
import { eventHash } from '../../src/ingest/event-hash.js';
import { openSearchMissing } from '../helpers/opensearch.js';
import { DedicatedNode } from '../helpers/opensearch-node.js';
import { loginAdmin, startService } from '../helpers/service.js';
import { createPattern, ingest, type CreatedPattern, type Json } from '../rules/fixtures.js';

const missing = await openSearchMissing();

describe('OpenSearch node restarted during ingest', { skip: missing ?? false }, () => {
  let node: DedicatedNode;
  let service: Awaited<ReturnType<typeof startService>>;
  let pattern: CreatedPattern;

  before(async () => {
    node = await DedicatedNode.start();
    service = await startService('pglite', { SEARCH_BACKEND: 'opensearch', OPENSEARCH_URL: node.url, OPENSEARCH_INDEX_PREFIX: 'restart-' });
    pattern = await createPattern(await loginAdmin(service), { name: 'flow' });
  });
  after(async () => {
    await service?.close();
    await node?.destroy();
  });

  test('no acknowledged event is lost; requests while the node is down answer 503', async (t) => {
    const acknowledged: Record<string, unknown>[] = [];
    const whileDown: number[] = [];
    const phase = { state: 'before' as 'before' | 'killing' | 'down' | 'restarting' | 'after' };
    let sending = true;
    let batch = 0;
    let okAfterRestart = 0;
    const sender = (async () => {
      while (sending) {
        const sentWhile = phase.state;
        const events = Array.from({ length: 25 }, (_, i) => ({ '@timestamp': new Date().toISOString(), batch: String(batch), i: String(i) }));
        batch++;
        const answer = await ingest(service, pattern, events);
        if (answer.statusCode === 200) acknowledged.push(...events);
        else assert.equal(answer.statusCode, 503, answer.body);
        if (sentWhile === 'down') whileDown.push(answer.statusCode);
        if (sentWhile === 'after' && answer.statusCode === 200) okAfterRestart++;
        if (answer.statusCode !== 200) await new Promise((done) => setTimeout(done, 200));
      }
    })();
    const waitFor = async (ok: () => boolean, what: string, ms = 120_000) => {
      const deadline = Date.now() + ms;
      while (!ok()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((done) => setTimeout(done, 100));
      }
    };
    try {
      await waitFor(() => acknowledged.length >= 100, 'events acknowledged before the kill');
      // Killed while the sender keeps sending: a request may be in flight.
      phase.state = 'killing';
      await node.kill();
      phase.state = 'down';
      await waitFor(() => whileDown.length >= 3, 'requests while the node is down');
      phase.state = 'restarting';
      await node.restart();
      phase.state = 'after';
      await waitFor(() => okAfterRestart >= 2, 'ingest to succeed after the restart', 180_000);
    } finally {
      sending = false;
      await sender;
    }

    assert.deepEqual([...new Set(whileDown)], [503]);
    const hashes = acknowledged.map((event) => eventHash(event, stringifyJson(event)));
    await fetch(`${node.url}/restart-svc-events-flow*/_refresh`, { method: 'POST' });
    const count = (await (await fetch(`${node.url}/restart-svc-events-flow*/_count`)).json()) as Json;
    assert.ok(count.count >= acknowledged.length, `${count.count} events on the cluster, ${acknowledged.length} acknowledged`);
    const found = new Set<string>();
    for (let i = 0; i < hashes.length; i += 500) {
      const res = await fetch(`${node.url}/restart-svc-events-flow*/_search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: { ids: { values: hashes.slice(i, i + 500) } }, size: 500, _source: false }),
      });
      for (const hit of ((await res.json()) as Json).hits.hits as Json[]) found.add(hit._id as string);
    }
    t.diagnostic(`${batch} requests of 25 events, ${acknowledged.length} events acknowledged, ${whileDown.length} requests while the node was down, ${count.count} events on the cluster`);
    const lost = hashes.filter((h) => !found.has(h));
    assert.deepEqual(lost, [], `${lost.length} of ${hashes.length} acknowledged events are not on the cluster`);
  });
});

// Back-pressure of _bulk on a real listener: while as many bulk requests as the receiver processes at
// once are in progress (here: connections that sent their headers and part of their body), one more
// is refused with 429, Retry-After and Elasticsearch's error shape; once they are gone, bulk requests
// are accepted again (an abandoned request gives its slot back).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { MAX_BULK_IN_FLIGHT } from '../../../src/ingest/es/overload.js';
import { loginAdmin, startService, type TestService } from '../../helpers/service.js';
import { createPattern, type CreatedPattern } from '../../rules/fixtures.js';

describe('bulk back-pressure', () => {
  let service: TestService & { close(): Promise<void> };
  let pattern: CreatedPattern;
  let port: number;

  before(async () => {
    service = await startService('pglite');
    pattern = await createPattern(await loginAdmin(service), { name: 'pressure' });
    await service.app.listen({ port: 0, host: '127.0.0.1' });
    port = (service.app.server.address() as { port: number }).port;
  });
  after(async () => {
    await service?.close();
  });

  const probe = () =>
    fetch(`http://127.0.0.1:${port}/api/es/_bulk`, {
      method: 'POST',
      headers: { authorization: `Bearer ${pattern.ingest_token}`, 'content-type': 'application/x-ndjson' },
      body: '{"index":{}}\n{"probe":true}\n',
    });

  /** Sends probes until one answers `status` (at most 20 s); answers the last one. */
  async function probeUntil(status: number): Promise<Response> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const response = await probe();
      if (response.status === status || Date.now() > deadline) return response;
      await response.arrayBuffer();
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  test('one request over the limit is refused with 429 and Retry-After; the slots come back when requests end', async () => {
    const held: Socket[] = [];
    try {
      for (let i = 0; i < MAX_BULK_IN_FLIGHT; i++) {
        const socket = connect(port, '127.0.0.1');
        socket.on('error', () => {});
        socket.write(
          'POST /api/es/_bulk HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-ndjson\r\n' +
            `Authorization: Bearer ${pattern.ingest_token}\r\nContent-Length: 100000\r\n\r\n{"index":{}}\n`,
        );
        held.push(socket);
      }
      const refused = await probeUntil(429);
      assert.equal(refused.status, 429);
      assert.equal(refused.headers.get('retry-after'), '1');
      assert.equal(refused.headers.get('x-elastic-product'), 'Elasticsearch');
      const body = (await refused.json()) as { status: number; error: { type: string } };
      assert.equal(body.status, 429);
      assert.equal(body.error.type, 'es_rejected_execution_exception');
    } finally {
      for (const socket of held) socket.destroy();
    }
    const accepted = await probeUntil(200);
    assert.equal(accepted.status, 200, await accepted.text());
  });
});

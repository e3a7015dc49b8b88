// Requests the HTTP parser refuses before routing (oversized headers, a malformed request line) get
// the error model and the security headers like every other answer.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { startService, type TestService } from '../helpers/service.js';
import type { TestDatabase } from '../helpers/databases.js';

/** Sends raw bytes and reads the whole answer until the server closes the connection. */
function raw(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(request));
    let data = '';
    socket.setEncoding('utf8').on('data', (d: string) => (data += d));
    socket.on('close', () => resolve(data));
    socket.on('error', reject);
  });
}

function parse(answer: string): { status: number; headers: Record<string, string>; body: unknown } {
  const [head, body] = answer.split('\r\n\r\n');
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) };
}

describe('answers of the HTTP parser', () => {
  let service: TestService & { testDb: TestDatabase };
  let port: number;
  before(async () => {
    service = await startService('pglite');
    await service.app.listen({ port: 0, host: '127.0.0.1' });
    port = (service.app.server.address() as AddressInfo).port;
  });
  after(async () => {
    await service?.close();
  });

  const cases: [string, string, number, string][] = [
    ['headers over the limit', `GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'Request headers too large'],
    ['a malformed request line', 'GARBAGE\r\n\r\n', 400, 'Malformed HTTP request'],
  ];
  for (const [name, request, status, detail] of cases) {
    test(`${name}: ${status} with the error model and the security headers`, async () => {
      const answer = parse(await raw(port, request));
      assert.equal(answer.status, status);
      assert.deepEqual(answer.body, { detail, status_code: status });
      assert.equal(answer.headers['x-content-type-options'], 'nosniff');
      assert.equal(answer.headers['x-frame-options'], 'DENY');
      assert.equal(answer.headers['content-security-policy'], "default-src 'self'");
      assert.equal(answer.headers['cache-control'], 'no-store');
    });
  }
});

// Slow and idle connections are closed by the server (HTTP_HEADERS_TIMEOUT, HTTP_REQUEST_TIMEOUT,
// HTTP_KEEP_ALIVE_TIMEOUT, set short here): a body trickled byte by byte is answered 408 with the error
// model and the connection closed, so is a request whose headers never end or a connection that sends
// nothing; an idle keep-alive connection is closed after its answer. A wrong ingest token is refused
// before the body is read. Real sockets against a real listener.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { loadConfig } from '../../src/config.js';
import { loginAdmin, startService, type TestService } from '../helpers/service.js';
import type { TestDatabase } from '../helpers/databases.js';
import { createPattern, type CreatedPattern } from '../rules/fixtures.js';

/** Far longer than any limit set here: a connection still open by then was never cut. */
const GENEROUS_MS = 20_000;

interface Outcome {
  /** Everything the server sent before it closed the connection. */
  answer: string;
  closedByServer: boolean;
}

/** Opens a connection, lets `drive` write to it, and waits until the server closes it (or the generous bound passes). */
function converse(port: number, drive: (socket: Socket) => void): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => drive(socket));
    let answer = '';
    let closedByServer = true;
    const bound = setTimeout(() => {
      closedByServer = false;
      socket.destroy();
    }, GENEROUS_MS);
    socket.setEncoding('utf8').on('data', (d: string) => (answer += d));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(bound);
      resolve({ answer, closedByServer });
    });
  });
}

/** Writes one byte of `body` every `everyMs` until the connection closes. */
function trickle(socket: Socket, body: string, everyMs: number): void {
  let i = 0;
  const timer = setInterval(() => {
    if (i >= body.length || socket.destroyed || !socket.writable) return clearInterval(timer);
    socket.write(body[i++]);
  }, everyMs);
  socket.on('close', () => clearInterval(timer));
}

function statusOf(answer: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
}

function bodyOf(answer: string): unknown {
  return JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
}

test('timeouts are read from the environment, in seconds, with documented defaults', () => {
  assert.deepEqual(loadConfig({}).http, { headersMs: 20_000, requestMs: 120_000, keepAliveMs: 72_000, idleMs: 300_000 });
  assert.deepEqual(loadConfig({ HTTP_HEADERS_TIMEOUT: '0.5', HTTP_REQUEST_TIMEOUT: '30', HTTP_KEEP_ALIVE_TIMEOUT: '5', HTTP_IDLE_TIMEOUT: '0' }).http, {
    headersMs: 500,
    requestMs: 30_000,
    keepAliveMs: 5_000,
    idleMs: 0,
  });
  assert.throws(() => loadConfig({ HTTP_REQUEST_TIMEOUT: 'soon' }), /HTTP_REQUEST_TIMEOUT must be a number of seconds/);
  assert.throws(() => loadConfig({ HTTP_KEEP_ALIVE_TIMEOUT: '0' }), /HTTP_KEEP_ALIVE_TIMEOUT must be a number of seconds above 0/);
  assert.throws(() => loadConfig({ HTTP_HEADERS_TIMEOUT: '30', HTTP_REQUEST_TIMEOUT: '10' }), /HTTP_HEADERS_TIMEOUT must not be longer than HTTP_REQUEST_TIMEOUT/);
});

describe('slow and idle connections are closed', () => {
  let service: TestService & { testDb: TestDatabase };
  let port: number;
  let pattern: CreatedPattern;

  before(async () => {
    service = await startService('pglite', { HTTP_HEADERS_TIMEOUT: '1', HTTP_REQUEST_TIMEOUT: '2', HTTP_KEEP_ALIVE_TIMEOUT: '1', HTTP_IDLE_TIMEOUT: '10' });
    pattern = await createPattern(await loginAdmin(service), { name: 'slow-senders' });
    await service.app.listen({ port: 0, host: '127.0.0.1' });
    port = (service.app.server.address() as AddressInfo).port;
  });
  after(async () => {
    await service?.close();
  });

  test('an ingest body trickled byte by byte is answered 408 and the connection closed', async () => {
    // 2,000 bytes at one byte per 50 ms would take 100 s to arrive; the request limit is 2 s.
    const body = JSON.stringify({ message: 'x'.repeat(1980) });
    const head =
      `POST /api/logs/${pattern.name} HTTP/1.1\r\nHost: vigil\r\nAuthorization: Bearer ${pattern.ingest_token}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
    const outcome = await converse(port, (socket) => {
      socket.write(head);
      trickle(socket, body, 50);
    });
    assert.ok(outcome.closedByServer, 'the server kept the trickling connection open');
    assert.equal(statusOf(outcome.answer), 408, outcome.answer);
    assert.deepEqual(bodyOf(outcome.answer), { detail: 'The request did not arrive in time', status_code: 408 });
    assert.match(outcome.answer, /\r\nX-Content-Type-Options: nosniff\r\n/i);
    const stored = await service.db.query('SELECT 1 FROM events WHERE index_pattern_id = $1', [pattern.id]);
    assert.equal(stored.length, 0, 'nothing of the cut request is stored');
  });

  test('headers that never end are answered 408 and the connection closed', async () => {
    const outcome = await converse(port, (socket) => {
      socket.write('GET /api/health HTTP/1.1\r\nHost: vigil\r\n');
      trickle(socket, 'X-Slow: ' + 'a'.repeat(500), 50);
    });
    assert.ok(outcome.closedByServer, 'the server kept the connection open');
    assert.equal(statusOf(outcome.answer), 408, outcome.answer);
  });

  test('a connection that sends nothing is closed', async () => {
    const outcome = await converse(port, () => {});
    assert.ok(outcome.closedByServer, 'the server kept the silent connection open');
  });

  test('an idle keep-alive connection is closed after its answer', async () => {
    const outcome = await converse(port, (socket) => socket.write('GET /api/health HTTP/1.1\r\nHost: vigil\r\n\r\n'));
    assert.ok(outcome.closedByServer, 'the server kept the idle connection open');
    assert.equal(statusOf(outcome.answer), 200, outcome.answer);
    assert.equal(outcome.answer.match(/HTTP\/1\.1 /g)?.length, 1, 'one answer, nothing written after it');
  });

  test('a wrong ingest token is refused before the body is read', async () => {
    // The body is announced but never sent: the 401 comes from the headers alone.
    const outcome = await converse(port, (socket) =>
      socket.write(
        `POST /api/logs/${pattern.name} HTTP/1.1\r\nHost: vigil\r\nAuthorization: Bearer svc_it_wrong\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${10 * 1024 * 1024}\r\n\r\n`,
      ),
    );
    assert.equal(statusOf(outcome.answer), 401, outcome.answer);
    assert.equal(outcome.answer.match(/HTTP\/1\.1 /g)?.length, 1, `one answer, nothing written after it: ${outcome.answer}`);
  });
});

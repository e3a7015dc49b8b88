// A _bulk request refused before its body is read (wrong ingest token) is answered 401 with
// `Connection: close` and its connection is closed: the server never reads and drops the body it has
// refused. Many such senders at once (real sockets, each pushing a body of megabytes) leave
// /api/health answered and the event loop free (within a second, or three times what they took idle
// on a machine too loaded for that).
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describeEachDatabase } from '../helpers/service.js';
import { createPattern } from '../rules/fixtures.js';
import { loginAdmin } from '../helpers/service.js';
import { RESPONSIVE_BOUND_MS, listening, probeHealthDuring } from './ingest-busy-probe.js';

const BODY_BYTES = 8 * 1024 * 1024;
const SENDERS = 40;
const PIECE = Buffer.alloc(64 * 1024, '{"index":{}}\n{"a":1}\n');

interface Refusal {
  answer: string;
  /** Body bytes the sender managed to hand to its socket before the server closed the connection. */
  written: number;
  closedByServer: boolean;
}

/** Sends a _bulk request with a wrong token announcing `BODY_BYTES` of body, and writes that body as
 * fast as the connection takes it, until the server closes the connection (or 20 s pass). */
function refusedSender(port: number): Promise<Refusal> {
  return new Promise((resolve) => {
    let answer = '';
    let written = 0;
    let closedByServer = true;
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(
        'POST /api/es/_bulk HTTP/1.1\r\nHost: vigil\r\nAuthorization: Bearer svc_it_wrong\r\n' +
          `Content-Type: application/x-ndjson\r\nContent-Length: ${BODY_BYTES}\r\n\r\n`,
      );
      const pump = () => {
        while (written < BODY_BYTES && !socket.destroyed) {
          const piece = PIECE.subarray(0, Math.min(PIECE.length, BODY_BYTES - written));
          written += piece.length;
          if (!socket.write(piece)) return void socket.once('drain', pump);
        }
      };
      pump();
    });
    const bound = setTimeout(() => {
      closedByServer = false;
      socket.destroy();
    }, 20_000);
    socket.setEncoding('utf8').on('data', (d: string) => (answer += d));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(bound);
      resolve({ answer, written, closedByServer });
    });
  });
}

describeEachDatabase('a refused _bulk body is never read', (ctx) => {
  let port: number;

  before(async () => {
    await createPattern(await loginAdmin(ctx.service), { name: 'refused-unread' });
    port = Number(new URL(await listening(ctx.service)).port);
  });

  test('a wrong token is answered 401 with Connection: close and the connection closed before the body is sent', async () => {
    const refusal = await refusedSender(port);
    assert.ok(refusal.closedByServer, 'the server kept the connection open');
    assert.match(refusal.answer, /^HTTP\/1\.1 401 /, refusal.answer.slice(0, 300));
    assert.match(refusal.answer, /\r\nconnection: close\r\n/i);
    assert.match(refusal.answer, /"type":"security_exception"/);
    assert.ok(refusal.written < BODY_BYTES, `the server read the whole refused body of ${BODY_BYTES} bytes`);
  });

  test('many refused senders at once leave health answered and the event loop free', async () => {
    const base = `http://127.0.0.1:${port}`;
    // On this machine under its present load: the slowest of a few health answers with nothing else running.
    const idle = await probeHealthDuring(base, () => new Promise((resolve) => setTimeout(resolve, 300)));
    const probe = await probeHealthDuring(base, () => Promise.all(Array.from({ length: SENDERS }, () => refusedSender(port))));
    for (const refusal of probe.result) {
      assert.ok(refusal.closedByServer, 'the server kept a connection open');
      assert.match(refusal.answer, /^HTTP\/1\.1 401 /);
    }
    const bound = Math.max(RESPONSIVE_BOUND_MS, 3 * idle.slowestHealthMs);
    assert.ok(probe.slowestHealthMs < bound, `the slowest health answer took ${probe.slowestHealthMs} ms (idle: ${idle.slowestHealthMs} ms)`);
    assert.ok(probe.longestLoopStallMs < Math.max(RESPONSIVE_BOUND_MS, 3 * idle.longestLoopStallMs), `the event loop was held for ${Math.round(probe.longestLoopStallMs)} ms`);
  });
});

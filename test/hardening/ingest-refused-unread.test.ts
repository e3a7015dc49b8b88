// A _bulk request refused before its body is read (wrong ingest token) is answered 401 with
// `Connection: close` and its connection is closed: the server never reads and drops the body it has
// refused. Many such senders at once (real sockets in a process of their own, as other machines would
// be, each pushing a body of megabytes) leave
// /api/health answered and the event loop free (within a second, or three times what they took idle
// on a machine too loaded for that).
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { childLoader, projectModule } from '../helpers/child-node.js';
import { BODY_BYTES, refusedSender, type Refusal } from './refused-sender.js';
import { describeEachDatabase } from '../helpers/service.js';
import { createPattern } from '../rules/fixtures.js';
import { loginAdmin } from '../helpers/service.js';
import { RESPONSIVE_BOUND_MS, listening, probeHealthDuring } from './ingest-busy-probe.js';

const SENDERS = 40;

/** Runs the senders in a child process (as other machines would be), answering their outcomes. */
function refusedSenders(port: number, count: number): Promise<Refusal[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...childLoader, projectModule('test/hardening/refused-senders-main.ts'), String(port), String(count)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as Refusal[]) : reject(new Error(`the senders' process ended with ${code}`))));
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
    const probe = await probeHealthDuring(base, () => refusedSenders(port, SENDERS));
    // Every connection is closed by the server. A sender still writing when the server closes gets a
    // reset from its own kernel, which may drop the 401 it had not read yet (TCP, not the server: the
    // test above checks the answer of one sender); an answer that arrived is the 401.
    for (const refusal of probe.result) {
      assert.ok(refusal.closedByServer, 'the server kept a connection open');
      if (refusal.answer !== '') assert.match(refusal.answer, /^HTTP\/1\.1 401 /);
    }
    const bound = Math.max(RESPONSIVE_BOUND_MS, 3 * idle.slowestHealthMs);
    assert.ok(probe.slowestHealthMs < bound, `the slowest health answer took ${probe.slowestHealthMs} ms (idle: ${idle.slowestHealthMs} ms)`);
    assert.ok(probe.longestLoopStallMs < Math.max(RESPONSIVE_BOUND_MS, 3 * idle.longestLoopStallMs), `the event loop was held for ${Math.round(probe.longestLoopStallMs)} ms`);
  });
});

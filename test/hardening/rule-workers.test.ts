// Rule tests run off the event loop, on worker threads with a time and a memory budget: on a real
// listener, /api/health answers while a costly rule test runs; a test past its time budget, or whose
// thread runs out of its memory budget, answers 422 naming the budget and the service goes on (the next
// test runs on a fresh thread); a sample too large for the rule's matching cost answers 413 up front.
// Runs alone: a small rule test on a fresh thread must fit the 0.05 s time budget, which other files'
// load on a 2-core machine can exceed.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { describeEachDatabase, loginAdmin, type Client } from '../helpers/service.js';
import { sigma } from '../rules/fixtures.js';

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
/** Nine regexes of about a thousand automaton states each (matching cost 9,018, within the limit of 10,000). */
const COSTLY = sigma({
  title: 'Costly but allowed',
  detection: `  selection:\n    CommandLine|re:\n${range(9)
    .map((i) => `      - '[a-${String.fromCharCode(122 - i)}]{999}[0-9]'`)
    .join('\n')}\n  condition: selection`,
});
/** 100,000 characters on which every COSTLY regex keeps a thousand states alive and never matches. */
const HUNDRED_KB = ('a'.repeat(500) + '0').repeat(200).slice(0, 100_000);
const SMALL = sigma({ title: 'Small', detection: "  selection:\n    CommandLine|contains: whoami\n  condition: selection" });

/** Talks to the service over a real socket. */
async function listen(admin: Client) {
  await admin.service.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = admin.service.app.server.address() as AddressInfo;
  return async (method: string, path: string, body?: unknown) => {
    const headers: Record<string, string> = { authorization: `Bearer ${admin.token}`, 'x-csrf-token': admin.csrf! };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    return { status: response.status, data: text ? JSON.parse(text) : undefined, text };
  };
}

describeEachDatabase('rule tests off the event loop', (ctx) => {
  let call: Awaited<ReturnType<typeof listen>>;
  before(async () => {
    call = await listen(await loginAdmin(ctx.service));
  });

  test('/api/health answers while a costly rule test runs', async () => {
    let testDone = false;
    const running = call('POST', '/api/rules/test', { yaml_content: COSTLY, sample_log: { CommandLine: HUNDRED_KB } }).then((r) => {
      testDone = true;
      return r;
    });
    // Health checks one after the other for as long as the rule test runs: they keep being answered.
    let answered = 0;
    while (!testDone) {
      const health = await call('GET', '/api/health');
      assert.equal(health.status, 200, health.text);
      if (!testDone) answered++;
    }
    assert.ok(answered >= 3, `only ${answered} health checks were answered while the rule test ran`);
    const tested = await running;
    assert.equal(tested.status, 200, tested.text);
    assert.equal(tested.data.matches, false);
  });

  test("/api/health answers while the probe's 45,000-regex rule is refused on create (422 naming the limit)", async () => {
    const regexes = range(45_000)
      .map((i) => `'[a-z]{999}${i}'`)
      .join(',');
    const yaml_content = sigma({ title: 'Probe', detection: `  selection:\n    CommandLine|re: [${regexes}]\n  condition: selection` });
    let done = false;
    const creating = call('POST', '/api/rules', { yaml_content }).then((r) => {
      done = true;
      return r;
    });
    let answered = 0;
    while (!done) {
      const health = await call('GET', '/api/health');
      assert.equal(health.status, 200, health.text);
      if (!done) answered++;
    }
    assert.ok(answered >= 3, `only ${answered} health checks were answered while the rule was checked`);
    const created = await creating;
    assert.equal(created.status, 422, created.text);
    assert.deepEqual(created.data.errors, [{ field: 'detection', message: 'the rule has 45,000 regular expressions (limit 200 per rule)' }]);
  });

  test('a sample too large for the rule is 413 naming the work budget, before any work', async () => {
    const tested = await call('POST', '/api/rules/test', { yaml_content: COSTLY, sample_log: { CommandLine: HUNDRED_KB + HUNDRED_KB } });
    assert.equal(tested.status, 413, tested.text);
    assert.equal(tested.data.status_code, 413);
    assert.equal(
      tested.data.detail,
      "Rule test too large: the sample's 200,011 characters of text times the rule's matching cost of 9,018 exceed the work budget of 1,000,000,000 per test",
    );
  });
});

describeEachDatabase(
  'rule tests past their time budget',
  (ctx) => {
    let admin: Client;
    before(async () => {
      admin = await loginAdmin(ctx.service);
    });

    test('422 naming the budget; the thread is replaced and the next test answers', async () => {
      const slow = await admin.post('/api/rules/test', { yaml_content: COSTLY, sample_log: { CommandLine: HUNDRED_KB } });
      assert.equal(slow.statusCode, 422, slow.body);
      assert.deepEqual(slow.data, { detail: 'Rule work stopped: it ran past its time budget of 0.05 s', status_code: 422 });
      const next = await admin.post('/api/rules/test', { yaml_content: SMALL, sample_log: { CommandLine: 'whoami /all' } });
      assert.equal(next.statusCode, 200, next.body);
      assert.equal(next.data.matches, true);
    });
  },
  // A fresh thread compiles COSTLY's regexes (a quarter to most of a second) before matching; warm, the
  // match alone takes about 40 ms. The budget sits well under the cold job and well over SMALL's.
  { RULE_WORK_TIMEOUT: '0.05' },
);

describeEachDatabase(
  'rule tests past their memory budget',
  (ctx) => {
    let admin: Client;
    before(async () => {
      admin = await loginAdmin(ctx.service);
    });

    test('422 naming the budget; the service lives on and the next test answers', async () => {
      const values = range(30_000)
        .map((i) => `      - 'value-number-${i}'`)
        .join('\n');
      const big = sigma({ title: 'Big', detection: `  selection:\n    CommandLine:\n${values}\n  condition: selection` });
      const heavy = await admin.post('/api/rules/test', { yaml_content: big, sample_log: { CommandLine: 'x' } });
      assert.equal(heavy.statusCode, 422, heavy.body);
      assert.deepEqual(heavy.data, { detail: 'Rule work stopped: it needed more than its memory budget of 16 MB', status_code: 422 });
      const health = await admin.get('/api/health');
      assert.equal(health.statusCode, 200, health.body);
      const next = await admin.post('/api/rules/test', { yaml_content: SMALL, sample_log: { CommandLine: 'whoami /all' } });
      assert.equal(next.statusCode, 200, next.body);
      assert.equal(next.data.matches, true);
    });
  },
  { RULE_WORK_MEMORY_MB: '16' },
);

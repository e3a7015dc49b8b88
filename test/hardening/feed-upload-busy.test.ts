// A threat-intel feed of a million indicators is parsed, written and indexed in bounded steps: while
// it uploads, /api/health answers within a second and the service's event loop is never held for a
// second, and the feed is stored whole. The probe's recipe (a 1M-indicator upload) at a quarter of its
// size, which CI can afford.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase, loginAdmin, type Client } from '../helpers/service.js';
import { assertResponsive, listening, probeHealthDuring, send } from './ingest-busy-probe.js';

const INDICATORS = 250_000;

describeEachDatabase('a feed of a million indicators', (ctx) => {
  let admin: Client;
  let base: string;

  before(async () => {
    admin = await loginAdmin(ctx.service);
    base = await listening(ctx.service);
  });

  test('uploads in bounded steps: health answered, the loop never held for a second, every indicator stored', async () => {
    // Distinct IPv4 addresses, 10.x.y.z.
    const content = Array.from({ length: INDICATORS }, (_, i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`).join('\n');
    const body = JSON.stringify({ name: 'million', format: 'plain', type: 'ip', content });
    const probe = await probeHealthDuring(base, () =>
      send(`${base}/api/threat_intel/feeds`, {
        method: 'POST',
        body,
        headers: { authorization: `Bearer ${admin.token}`, 'x-csrf-token': admin.csrf!, 'content-type': 'application/json' },
      }),
    );
    assert.equal(probe.result.status, 201, probe.result.text.slice(0, 300));
    console.log(`feed upload: slowest health ${probe.slowestHealthMs} ms, loop held ${Math.round(probe.longestLoopStallMs)} ms at most, ${probe.polls} polls`);
    assertResponsive(probe, `a feed of ${INDICATORS} indicators`);
    assert.equal(probe.result.data.indicators, INDICATORS);
  });
});

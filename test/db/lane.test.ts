// The ingest lane of the database queue: at most `width` holders at once, the rest served in arrival
// order, a turn passed straight to the next in line so a newcomer cannot overtake those waiting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Lane } from '../../src/db/lane.js';
import { INGEST_CONNECTIONS, POOL_CONNECTIONS } from '../../src/db/postgres.js';

test('at most width transactions hold the lane; the others go in arrival order', async () => {
  const lane = new Lane(2);
  let holding = 0;
  let most = 0;
  const order: number[] = [];
  await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      lane.run(async () => {
        holding++;
        most = Math.max(most, holding);
        order.push(i);
        await new Promise((resolve) => setTimeout(resolve, 5));
        holding--;
      }),
    ),
  );
  assert.equal(most, 2);
  assert.deepEqual(order, [0, 1, 2, 3, 4, 5, 6, 7]);
});

test('a turn left by a failing transaction passes on; leaving twice frees one turn only', async () => {
  const lane = new Lane(1);
  await assert.rejects(lane.run(() => Promise.reject(new Error('rolled back'))), /rolled back/);
  const leave = await lane.enter();
  leave();
  leave();
  const first = await lane.enter();
  let second = false;
  const waiting = lane.enter().then((l) => ((second = true), l));
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(second, false, 'a second holder entered a lane one wide');
  first();
  (await waiting)();
});

test('on PostgreSQL ingest leaves most of the pool to other requests', () => {
  assert.ok(INGEST_CONNECTIONS < POOL_CONNECTIONS / 2, `${INGEST_CONNECTIONS} of ${POOL_CONNECTIONS}`);
});

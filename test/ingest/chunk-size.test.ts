// The ingest chunk's size: fewer events as more of them alert, and a request's first chunk sized by
// what its index pattern's last chunks taught (a pattern not seen yet: as if half its events alert).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { ALERT_WEIGHT, ChunkSize, INGEST_CHUNK } from '../../src/ingest/chunk-size.js';

test('a pattern not seen yet starts as if half its events alert; later chunks follow the share seen', () => {
  const size = new ChunkSize(randomUUID());
  assert.equal(size.events, Math.round(INGEST_CHUNK / (1 + ALERT_WEIGHT / 2)));
  size.record(500, 0);
  assert.equal(size.events, INGEST_CHUNK);
  size.record(500, 500);
  assert.equal(size.events, INGEST_CHUNK / (1 + ALERT_WEIGHT));
});

test("a request's first chunk follows the share its pattern's last chunk had", () => {
  const quiet = randomUUID();
  const noisy = randomUUID();
  new ChunkSize(quiet).record(1000, 3);
  new ChunkSize(noisy).record(200, 200);
  assert.equal(new ChunkSize(quiet).events, Math.round(INGEST_CHUNK / (1 + (ALERT_WEIGHT * 3) / 1000)));
  assert.equal(new ChunkSize(noisy).events, INGEST_CHUNK / (1 + ALERT_WEIGHT));
});

// The runs the alert fan-out writes to every stream: the events of consecutive changes serialised once
// into one buffer of at most RUN_BYTES (a bigger single event alone), byte for byte the events each
// change would send on its own, in order, with changes whose alert is gone left out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AlertChange } from '../../src/alerts/change-store.js';
import { RUN_BYTES, runsOf } from '../../src/alerts/fan-out.js';
import { changeEvent } from '../../src/alerts/sse.js';

const change = (seq: number, title = `Rule ${seq}`): AlertChange => ({
  seq,
  kind: seq % 3 === 0 ? 'updated' : 'created',
  alert: {
    id: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
    rule_id: '00000000-0000-4000-8000-000000000001',
    rule_title: title,
    severity: 'high',
    status: 'new',
    created_at: '2026-12-01T00:00:00.000Z',
    updated_at: '2026-12-01T00:00:00.000Z',
  },
});

test('runs hold every change with an alert, in order, as the events each would send alone', () => {
  const changes = Array.from({ length: 2000 }, (_, i) => (i % 97 === 5 ? { seq: i + 1, kind: 'created' as const } : change(i + 1)));
  const runs = runsOf(changes);
  assert.ok(runs.length > 1, 'a burst is cut into several runs');
  const withAlert = changes.filter((c) => c.alert);
  assert.deepEqual(runs.flatMap((r) => r.changes.map((c) => c.seq)), withAlert.map((c) => c.seq));
  assert.equal(runs.map((r) => r.bytes.toString('utf8')).join(''), withAlert.map((c) => changeEvent(c)).join(''));
  for (const run of runs) {
    assert.ok(run.bytes.length <= RUN_BYTES, `a run of ${run.bytes.length} bytes`);
    assert.equal(run.firstSeq, run.changes[0].seq);
    assert.equal(run.lastSeq, run.changes[run.changes.length - 1].seq);
  }
});

test('an event bigger than a run is a run of its own; nothing gives no run', () => {
  const big = change(7, 'x'.repeat(RUN_BYTES + 10));
  const runs = runsOf([change(6), big, change(8)]);
  assert.deepEqual(runs.map((r) => r.changes.map((c) => c.seq)), [[6], [7], [8]]);
  assert.deepEqual(runsOf([]), []);
  assert.deepEqual(runsOf([{ seq: 1, kind: 'updated' }]), []);
});

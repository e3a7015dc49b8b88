// flattenWindowsEvent reproduces the regression corpus flattening from the raw evtx_dump events.
// Reads the shared corpus.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { flattenWindowsEvent } from '../../src/sigma/index.js';
import { regressionCases } from './corpus-helpers.js';

test('raw_events flatten to events for every regression case', () => {
  const cases = regressionCases();
  let n = 0;
  for (const c of cases) {
    c.raw_events.forEach((raw, i) => {
      assert.deepEqual(flattenWindowsEvent(raw), c.events[i]);
      n++;
    });
  }
  assert.equal(n, 107);
});

test('UserData children and element attributes', () => {
  const ev = flattenWindowsEvent({
    Event: { System: { EventID: 5858 }, UserData: { Operation_ClientFailure: { '#attributes': { xmlns: 'x', a: 1 }, 'Client Machine': 'PC' } } },
  });
  assert.deepEqual(ev, { EventID: 5858, Operation_ClientFailure_a: 1, ClientMachine: 'PC' });
});

test('a name is given once: System first, and no EventData entry replaces it; __proto__ is a field like any other', () => {
  const ev = flattenWindowsEvent(
    JSON.parse(
      '{"Event":{"System":{"EventID":4688,"Channel":"Security"},"EventData":{"Event ID":1,"Channel":"x","NewProcessName":"C:\\\\a.exe",' +
        '"__proto__":{"CommandLine":"spoofed"}},"UserData":{"E":{"NewProcessName":"later"}}}}',
    ),
  );
  assert.equal(ev.EventID, 4688);
  assert.equal(ev.Channel, 'Security');
  assert.equal(ev.NewProcessName, 'C:\\a.exe');
  assert.equal(Object.getPrototypeOf(ev), Object.prototype);
  assert.equal(ev.CommandLine, undefined);
  assert.deepEqual(Object.keys(ev), ['EventID', 'Channel', 'NewProcessName', '__proto__']);
  assert.deepEqual(Object.getOwnPropertyDescriptor(ev, '__proto__')?.value, { CommandLine: 'spoofed' });
});

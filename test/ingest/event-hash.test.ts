// The canonical text behind an event's idempotency key stays what stored events were keyed with: every
// object's keys in code-point order at every level (as JSON.stringify writes a value given the sorted
// list of all its keys), for events of many shapes, keys beyond the BMP, integer-like keys, NUL inside
// keys (two lists of keys that join alike), nesting in arrays and the values JSON.stringify writes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJson, compareKeys, eventHash } from '../../src/ingest/event-hash.js';

/** The definition: all keys at any level, sorted by code point, as JSON.stringify's property list. */
function reference(value: unknown): string {
  const keys: string[] = [];
  const collect = (v: unknown): void => {
    if (v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) return v.forEach(collect);
    for (const [key, item] of Object.entries(v)) {
      keys.push(key);
      collect(item);
    }
  };
  collect(value);
  return JSON.stringify(value, keys.sort(compareKeys));
}

const CASES: unknown[] = [
  { b: 1, a: [{ z: 1, y: { '10': 1, '2': 2, '\u{10000}': 3, '\ue000': 4 } }, 'x', null, [], {}] },
  { 'a\u0000b': 1, c: 2 },
  { a: 1, 'b\u0000c': 2 },
  { 'a\u0000b': 1, c: 2 },
  [1, { b: 2, a: 1 }, [{ d: true, c: false }]],
  'text',
  5,
  null,
  {},
  { x: -0, y: 1e21, z: 'é"\\\n\u2028', n: 1.5e-7, big: 2 ** 53 + 2 },
  { Event: { System: { TimeCreated: { SystemTime: 't' }, EventID: 1 }, EventData: { Data: [{ Name: 'b', '#text': 1 }, { '#text': 2, Name: 'a' }] } } },
];

test('canonical text is the sorted-keys serialisation, whatever the shape (and again from the plans kept)', () => {
  for (let round = 0; round < 2; round++) {
    for (const value of CASES) assert.equal(canonicalJson(value), reference(value), JSON.stringify(value));
  }
  // Many shapes: past the plans kept, texts stay right.
  for (let i = 0; i < 5000; i++) {
    const event = { [`k${i % 4099}`]: i, a: { [`n${i % 7}`]: [i, { z: i, y: 'v' }] }, Z: null };
    assert.equal(canonicalJson(event), reference(event));
  }
});

test('the same event with its keys in another order has the same key', () => {
  const one = { User: 'bob', Image: 'a.exe', Nested: { b: 1, a: 2 } };
  const other = { Nested: { a: 2, b: 1 }, Image: 'a.exe', User: 'bob' };
  assert.equal(eventHash(one, JSON.stringify(one)), eventHash(other, JSON.stringify(other)));
  const sorted = { Image: 'a.exe', Nested: { a: 2, b: 1 }, User: 'bob' };
  assert.equal(eventHash(sorted, JSON.stringify(sorted)), eventHash(one, JSON.stringify(one)));
});

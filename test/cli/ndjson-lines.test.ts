// ndjsonBatches: lines end at '\n' only, one CR before it is dropped, a leading BOM is dropped, UTF-8 split
// across chunks decodes whole, lines longer than the limit come out as null without being kept, and a
// batch holds the lines a chunk completed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { ndjsonBatches } from '../../src/cli/ndjson-lines.js';

async function lines(chunks: Array<Buffer | string>, max?: number): Promise<Array<string | null>> {
  const out: Array<string | null> = [];
  for await (const batch of ndjsonBatches(Readable.from(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c) : c))), max)) {
    assert.ok(batch.length > 0, 'batches are never empty');
    out.push(...batch);
  }
  return out;
}

test('lines end at LF only; CRLF loses its CR, a lone CR stays inside the line', async () => {
  assert.deepEqual(await lines(['a\r\nb\rc\n', '\n', 'last']), ['a', 'b\rc', '', 'last']);
  assert.deepEqual(await lines(['x\n']), ['x']);
  assert.deepEqual(await lines([]), []);
  assert.deepEqual(await lines(['a\r', '\nb\r', '\r\n']), ['a', 'b\r']); // a CRLF split across chunks
});

test('a byte order mark at the start is dropped (only there)', async () => {
  assert.deepEqual(await lines([Buffer.from([0xef, 0xbb]), Buffer.from([0xbf, 0x7b, 0x7d, 0x0a]), '\ufeff{}\n']), ['{}', '\ufeff{}']);
});

test('UTF-8 characters split across chunks decode whole', async () => {
  const text = Buffer.from('é😀\n€');
  const chunks = [...text].map((b) => Buffer.from([b]));
  assert.deepEqual(await lines(chunks), ['é😀', '€']);
});

test('lines longer than the limit are null, the next lines unaffected', async () => {
  assert.deepEqual(await lines(['12345\n123', '456789', '0\nabc\n', '12345\r\n', '123456'], 5), ['12345', null, 'abc', '12345', null]);
});

test('a batch holds the lines a chunk completes', async () => {
  const batches: Array<Array<string | null>> = [];
  for await (const b of ndjsonBatches(Readable.from([Buffer.from('a\nb\nc'), Buffer.from('d\ne'), Buffer.from('f')]))) batches.push(b);
  assert.deepEqual(batches, [['a', 'b'], ['cd'], ['ef']]);
});

// Reading and writing JSON with numbers exactly as sent (src/http/exact-json.ts), checked against
// JSON.parse: the values read are JSON.parse's own, text is written back with the digits it came with,
// the cheap pre-check agrees with a plain regular expression, and malformed text fails as JSON.parse does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mayHoldLongNumber, parseJson, restoreNumbers, stringifyJson, wireValue } from '../../src/http/exact-json.js';

const KEYWORDS = '-9214364837600034816';
const MAX_U64 = '18446744073709551615';

/** The pre-check's meaning, said with a regular expression. */
function reference(text: string): boolean {
  for (const m of text.matchAll(/\d{16,}/g)) {
    const before = m.index === 0 ? null : text[m.index - 1];
    const endAt = m.index + m[0].length;
    const after = endAt === text.length ? null : text[endAt];
    if ((before === null || ':,[ \t\n\r-.+'.includes(before)) && (after === null || ',]} \t\n\r.eE'.includes(after))) return true;
  }
  return false;
}

/** A random generator with a seed, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

test('a Windows event keeps its Keywords and a u64 maximum; JSON.parse values are answered', () => {
  const text = `{"EventID":4688,"Keywords":${KEYWORDS},"Data":{"Max":${MAX_U64},"List":[1,${MAX_U64}],"Hex":"0x8000000000000000","Text":"${KEYWORDS}"},"f":0.10000000000000000555}`;
  const value = parseJson(text) as Record<string, unknown>;
  assert.deepEqual(value, JSON.parse(text));
  assert.equal(stringifyJson(value), text);
  assert.equal(restoreNumbers(JSON.stringify({ alert: { event: wireValue(value) } })), `{"alert":{"event":${text}}}`);
  // A value changed since it was read is written as it is now.
  (value.Data as Record<string, unknown>).Max = 7;
  assert.ok(stringifyJson(value).includes('"Max":7'));
  assert.ok(stringifyJson(value).includes(`"Keywords":${KEYWORDS}`));
});

test('text without long numbers is read by JSON.parse alone and written as JSON.stringify writes it', () => {
  for (const text of ['{"a":1}', '[1,2,3]', '{"hash":"0x8000000000000000","id":"12345678901234567890"}', '{"n":1234567890123456}', '"x"', '12']) {
    assert.deepEqual(parseJson(text), JSON.parse(text));
    assert.equal(stringifyJson(parseJson(text)), JSON.stringify(JSON.parse(text)));
  }
});

test('the pre-check agrees with a regular expression on random text', () => {
  const next = random(7);
  const alphabet = '0123456789012345678901234567890123456789x":,[]} .-e';
  for (let k = 0; k < 50_000; k++) {
    let text = '';
    for (let i = 0, n = 1 + (k % 90); i < n; i++) text += alphabet[Math.floor(next() * alphabet.length)];
    assert.equal(mayHoldLongNumber(text), reference(text), JSON.stringify(text));
  }
});

test('random documents with long numbers round-trip to the same text and read as JSON.parse reads them', () => {
  const next = random(11);
  const digits = (n: number) => Array.from({ length: n }, () => Math.floor(next() * 10)).join('');
  const big = () => `${next() < 0.5 ? '-' : ''}${1 + Math.floor(next() * 9)}${digits(15 + Math.floor(next() * 10))}`;
  for (let k = 0; k < 2000; k++) {
    const text = `{"a":${big()},"b":[${big()},"${big()}",{"c":${big()}.${digits(18)}}],"k7":${big()},"d":"x${big()}","e":${big()}e5}`;
    assert.equal(stringifyJson(parseJson(text)), text);
    assert.deepEqual(parseJson(text), JSON.parse(text));
  }
});

test('a long number written inside a string where a value could stand is left alone', () => {
  const text = `{"message":"ids: ${MAX_U64}, ${KEYWORDS} ]","id":${MAX_U64},"list":[ ${KEYWORDS} ]}`;
  assert.deepEqual(parseJson(text), JSON.parse(text));
  assert.equal(stringifyJson(parseJson(text)), text.replace('[ ', '[').replace(' ]}', ']}'));
});

test('malformed text fails with the error JSON.parse gives, never naming the internal mark', () => {
  const text = `{"a":${MAX_U64},}`;
  const expected = (() => {
    try {
      JSON.parse(text);
    } catch (error) {
      return (error as Error).message;
    }
  })();
  assert.throws(() => parseJson(text), (error: Error) => error.message === expected && !error.message.includes('\u0000'));
});

// The OpenSearch DSL compiler where Lucene and OpenSearch differ from the matcher's regex engine and from a
// plain keyword: empty alternatives, case-insensitive ranges, OpenSearch's regexp length and automaton
// limits, cidr through an ip subfield and comparisons through a numeric subfield. Each DSL is evaluated
// with OpenSearch's semantics (dsl-eval.ts) against the JS matcher on the same events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileDsl } from '../../src/sigma/index.js';
import type { DslOptions } from '../../src/sigma/index.js';
import { toLuceneRegex } from '../../src/sigma/opensearch/lucene-regex.js';
import { compile } from './helpers.js';
import { evalDsl, IP_SUBFIELD, NUMERIC_SUBFIELD } from './dsl-eval.js';

const plain = { i: false, m: false, s: false };
const SUBFIELDS: DslOptions = { ipSubfield: IP_SUBFIELD, numericSubfield: NUMERIC_SUBFIELD };

/** The rule's DSL agrees with its matcher on every event; returns the DSL text. */
function agree(detection: string, events: object[], options: DslOptions = SUBFIELDS): string {
  const m = compile(detection);
  const r = compileDsl(m.ir, options);
  assert.ok(r.ok, JSON.stringify(r));
  if (!r.ok) return '';
  for (const e of events) assert.equal(evalDsl(r.query, e), m.match(e), `${detection} on ${JSON.stringify(e)}`);
  return JSON.stringify(r.query);
}

function refusal(detection: string, options: DslOptions = SUBFIELDS): string {
  const r = compileDsl(compile(detection).ir, options);
  assert.equal(r.ok, false);
  return r.ok ? '' : r.errors.join('; ');
}

test('an empty alternative becomes () (Lucene would read the character after a bare | as text)', () => {
  assert.equal((toLuceneRegex('a(|b)c', plain) as { source: string }).source, '.*a(()|b)c.*');
  assert.equal((toLuceneRegex('a(?:b|)c', plain) as { source: string }).source, '.*a(b|())c.*');
  assert.equal((toLuceneRegex('a||b', plain) as { source: string }).source, '.*(a|()|b).*');
  assert.equal((toLuceneRegex('ab|', plain) as { source: string }).source, '.*(ab|()).*');
  const events = ['ac', 'abc', 'a|bc', 'xacx', 'ab'].map((x) => ({ F: x }));
  agree(`sel:\n    F|re: 'a(|b)c'\ncondition: sel`, events);
  agree(`sel:\n    F|re: 'cmd(?:\\s|)"set'\ncondition: sel`, ['cmd"set', 'cmd "set', 'cmd  "set', 'cmdx"set'].map((x) => ({ F: x })));
  agree(`sel:\n    F|re: '^(a|)$'\ncondition: sel`, ['', 'a', 'b'].map((x) => ({ F: x })));
});

test('under i, a class with a range also lists the other case of its letters (Lucene folds single characters only)', () => {
  assert.equal((toLuceneRegex('(?i)x[a-c]', plain) as { source: string }).source, '.*x[a-cABC].*');
  assert.equal((toLuceneRegex('(?i)x[ab]', plain) as { source: string }).source, '.*x[ab].*');
  agree(`sel:\n    F|re: '(?i)ipfs\\.io/.+\\.[a-z]+$'\ncondition: sel`, ['https://IPFS.IO/x.COM', 'ipfs.io/a.b', 'IPFS.IO/x.123'].map((x) => ({ F: x })));
  agree(`sel:\n    F|re: '(?i)^[^a-z]+$'\ncondition: sel`, ['ABC', '123', 'abc', '1A'].map((x) => ({ F: x })));
  agree(`sel:\n    F|re|i: '[D-f]x'\ncondition: sel`, ['dX', 'Ex', '_x', 'gx', 'Gx', '[x'].map((x) => ({ F: x })));
});

test("regexps OpenSearch would refuse are refused with the reason: over index.max_regex_length, or with a wide bounded repeat unanchored", () => {
  const long = toLuceneRegex('a' + '\\s'.repeat(130), plain);
  assert.equal(long.ok, false);
  if (!long.ok) assert.match(long.message, /1045 characters long; OpenSearch allows 1000 \(index\.max_regex_length\)/);
  assert.equal(toLuceneRegex('a' + '\\s'.repeat(100), plain).ok, true);
  for (const wide of ['(Copy-Item|cpi) .{2,128} -Destination', '\\\\[^\\\\]{1,256}$']) {
    const r = toLuceneRegex(wide, plain);
    assert.equal(r.ok, false, wide);
    if (!r.ok) assert.match(r.message, /bounded repeat \d+ wide in an unanchored regex/);
  }
  assert.equal(toLuceneRegex('werfault[^"]{0,64}x', plain).ok, true);
  assert.equal(toLuceneRegex('^a.{1,256}b', plain).ok, true);
  assert.equal(toLuceneRegex('.{200,}', plain).ok, true);
});

test('cidr goes through an ip subfield (and is refused without one); a "-" in the field is no address', () => {
  const rule = `sel:\n    IpAddress|cidr: 10.0.0.0/8\ncondition: sel`;
  assert.match(refusal(rule, {}), /IpAddress: cidr needs an ip-typed subfield/);
  const dsl = agree(rule, [{ IpAddress: '10.1.2.3' }, { IpAddress: '192.168.0.1' }, { IpAddress: '-' }, {}, { IpAddress: ['-', '10.9.9.9'] }]);
  assert.ok(dsl.includes('{"term":{"IpAddress.ip":"10.0.0.0/8"}}'), dsl);
  agree(`sel:\n    IpAddress|cidr: 10.0.0.0/8\nfilter:\n    IpAddress: '-'\ncondition: not sel and not filter`, [{ IpAddress: '10.1.2.3' }, { IpAddress: '8.8.8.8' }, { IpAddress: '-' }]);
  agree(`sel:\n    IpAddress|cidr: 'fe80::/10'\ncondition: sel`, [{ IpAddress: 'fe80::1' }, { IpAddress: '::1' }]);
});

test('gt/gte/lt/lte go through a numeric subfield (and are refused without one: a keyword range compares text)', () => {
  const rule = `sel:\n    Size|gte: 5\ncondition: sel`;
  assert.match(refusal(rule, {}), /Size: gte needs a numeric subfield/);
  const dsl = agree(rule, [{ Size: 10 }, { Size: '10' }, { Size: 4 }, { Size: '4.5' }, { Size: 'abc' }, { Size: true }, {}, { Size: [1, 7] }]);
  assert.ok(dsl.includes('{"range":{"Size.num":{"gte":5}}}'), dsl);
  agree(`sel:\n    Size|lt: 100\ncondition: sel`, [{ Size: '50' }, { Size: 150 }, { Size: '1e3' }]);
});

// IP addresses and networks: strict parsing, canonical text (checked against the WHATWG URL parser's
// IPv6 serialisation, which follows RFC 5952), and the per-feed index answering network, domain-suffix
// and exact lookups.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatAddress, parseAddress, parseIpv4Number, parseNetwork } from '../../src/threat-intel/addresses.js';
import { FeedIndex } from '../../src/threat-intel/feed-index.js';
import { detectType, normalise } from '../../src/threat-intel/indicators.js';

test('IPv4: four decimal parts 0..255 without leading zeros', () => {
  assert.equal(parseIpv4Number('0.0.0.0'), 0);
  assert.equal(parseIpv4Number('255.255.255.255'), 0xffffffff);
  for (const bad of ['1.2.3', '1.2.3.4.5', '01.2.3.4', '1.2.3.256', '1..2.3', '1.2.3.4 ', '+1.2.3.4', '1.2.3.0x1', '']) {
    assert.equal(parseIpv4Number(bad), undefined, bad);
  }
});

test('IPv6 canonical form agrees with the URL parser on many shapes', () => {
  const samples = ['::', '::1', '1::', '2001:db8::1', '2001:DB8:0:0:1:0:0:1', '2001:db8:0:1:1:1:1:1', '0:0:1:0:0:0:0:1', 'fe80::1:0:0:0', '1:2:3:4:5:6:7:8', '::1.2.3.4', '64:ff9b::192.0.2.33'];
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let i = 0; i < 500; i++) {
    const groups = Array.from({ length: 8 }, () => (random() < 0.5 ? '0' : Math.floor(random() * 0x10000).toString(16)));
    samples.push(groups.join(':'));
  }
  for (const text of samples) {
    const address = parseAddress(text);
    assert.ok(address, text);
    const expected = new URL(`http://[${text}]/`).hostname.slice(1, -1);
    assert.equal(formatAddress(address), expected, text);
  }
  assert.equal(formatAddress(parseAddress('::ffff:192.0.2.1')!), '192.0.2.1', 'IPv4-mapped reads as IPv4');
  assert.equal(formatAddress(parseAddress('fe80::1%eth0')!), 'fe80::1', 'zone dropped');
  for (const bad of [':::', '1::2::3', '1:2:3:4:5:6:7:8:9', '12345::', 'g::1', '1:2:3:4:5:6:7', '::1.2.3']) assert.equal(parseAddress(bad), undefined, bad);
});

test('networks: host bits cleared, prefix bounds, mapped IPv4 networks', () => {
  assert.equal(normalise('cidr', '10.1.2.3/8'), '10.0.0.0/8');
  assert.equal(normalise('cidr', '2001:db8:abcd::1/33'), '2001:db8:8000::/33');
  assert.equal(normalise('cidr', '::ffff:10.0.0.0/104'), '10.0.0.0/8');
  assert.equal(normalise('cidr', '0.0.0.0/0'), '0.0.0.0/0');
  for (const bad of ['10.0.0.0/33', '::/129', '10.0.0.0/', '10.0.0.0/-1', '10.0.0.0/08x']) assert.equal(parseNetwork(bad), undefined, bad);
});

test('type detection by shape', () => {
  const cases: [string, string | undefined][] = [
    ['1.2.3.4', 'ip'],
    ['2001:db8::1', 'ip'],
    ['10.0.0.0/8', 'cidr'],
    ['https://a.example/x', 'url'],
    ['d41d8cd98f00b204e9800998ecf8427e', 'md5'],
    ['da39a3ee5e6b4b0d3255bfef95601890afd80709', 'sha1'],
    ['e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'sha256'],
    ['bücher.example', 'domain'],
    ['evil.example/path', undefined],
    ['hello', undefined],
  ];
  for (const [value, type] of cases) assert.equal(detectType(value), type, value);
  assert.equal(normalise('domain', 'Bücher.Example.'), 'xn--bcher-kva.example');
});

test('a feed index: nested networks all match, most specific first; parent domains match, siblings do not', () => {
  const index = new FeedIndex('f', 'Feed', 75);
  for (const value of ['10.0.0.0/8', '10.1.0.0/16', '10.1.2.0/24', '2001:db8::/32']) index.add({ type: 'cidr', value });
  index.add({ type: 'ip', value: '10.1.2.3', score: 99 });
  index.add({ type: 'domain', value: 'evil.example' });
  const hits = (text: string) => index.matchAddress(parseAddress(text)!, formatAddress(parseAddress(text)!)).map((h) => h.value);
  assert.deepEqual(hits('10.1.2.3'), ['10.1.2.3', '10.1.2.0/24', '10.1.0.0/16', '10.0.0.0/8']);
  assert.deepEqual(hits('10.9.9.9'), ['10.0.0.0/8']);
  assert.deepEqual(hits('11.0.0.1'), []);
  assert.deepEqual(hits('2001:db8:ffff::1'), ['2001:db8::/32']);
  assert.deepEqual(hits('2001:db9::1'), []);
  assert.equal(index.matchAddress(parseAddress('10.1.2.3')!, '10.1.2.3')[0].score, 99);
  assert.equal(index.matchDomain('x.y.evil.example')?.value, 'evil.example');
  assert.equal(index.matchDomain('evil.example')?.value, 'evil.example');
  assert.equal(index.matchDomain('notevil.example'), undefined);
  assert.equal(index.matchDomain('example'), undefined);
});

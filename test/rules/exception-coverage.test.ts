// Exceptions that close what they cover: the preview (open alerts covered, stored events of the last 7
// days it would have suppressed), creation with close_matching (new alerts acknowledged then closed as
// false positives, both moves recorded, one audit entry), expiry (an expired exception suppresses
// nothing at ingest and in tests, stays listed as expired; an expiry in the past is a 422), and the hit
// count each exception keeps from ingest.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase, type Client } from '../helpers/service.js';
import { assertError, createRule, equalsRule, ingest, setUpTeam, whileBackendOffline, type CreatedPattern, type Json } from './fixtures.js';

const event = (host: string, n: number) => ({ '@timestamp': new Date(Date.now() - n * 1000).toISOString(), action: 'scan', host: { name: host }, n });

describeEachDatabase('exception coverage, close and expiry', (ctx) => {
  let admin: Client;
  let analyst: Client;
  let viewer: Client;
  let pattern: CreatedPattern;
  let ruleId: string;

  const send = async (events: object[]) => {
    const response = await ingest(ctx.service, pattern, events);
    assert.equal(response.statusCode, 200, response.body);
    return response.data as { accepted: number; alerts_created: number };
  };

  before(async () => {
    ({ admin, analyst, viewer, pattern } = await setUpTeam(ctx.service, 'cover-analyst', 'cover-viewer', { name: 'cover', is_default: true }));
    ruleId = (await createRule(analyst, { yaml_content: equalsRule('Port scan', 'action', 'scan'), deploy: true })).id;
    // Three alerts from build hosts, two from others.
    const sent = await send([event('build-01', 1), event('build-02', 2), event('BUILD-03', 3), event('web-01', 4), event('db-01', 5)]);
    assert.equal(sent.alerts_created, 5);
    // One build alert is already under investigation: it is covered too.
    const [acked] = await ctx.service.db.query<{ id: string }>(`SELECT id FROM alerts WHERE rule_id = $1 AND host = 'build-02'`, [ruleId]);
    assert.equal((await analyst.patch(`/api/alerts/${acked.id}`, { status: 'acknowledged' })).statusCode, 200);
  });

  const build = { field: 'host.name', operator: 'startswith', value: 'build-' };

  test('the preview counts the open alerts covered and the stored events it would have suppressed', async () => {
    const response = await analyst.post(`/api/rules/${ruleId}/exceptions/preview`, build);
    assert.equal(response.statusCode, 200, response.body);
    const preview = response.data;
    assert.equal(preview.open_alerts, 3);
    assert.equal(preview.sample_alert_ids.length, 3);
    assert.equal(preview.open_alerts_scanned, 5);
    assert.equal(preview.open_alerts_capped, false);
    assert.equal(preview.events_last_7_days, 3);
    assert.equal(preview.events_scanned, 5);
    assert.equal(preview.events_capped, false);
    const hosts = await ctx.service.db.query<{ host: string }>('SELECT host FROM alerts WHERE id = ANY($1::uuid[]) ORDER BY host', [preview.sample_alert_ids]);
    assert.deepEqual(hosts.map((h) => h.host), ['BUILD-03', 'build-01', 'build-02'].sort());
    // Nothing is written by a preview.
    const list = await analyst.get(`/api/rules/${ruleId}/exceptions`);
    assert.equal(list.data.total, 0);
  });

  test('bad input: a bad body names the field, an expiry in the past is a 422 naming expires_at', async () => {
    const noValue = await analyst.post(`/api/rules/${ruleId}/exceptions/preview`, { field: 'host.name', operator: 'equals' });
    assert.equal(noValue.statusCode, 400, noValue.body);
    assert.ok(noValue.data.errors.some((e: Json) => e.field === 'body.value'), noValue.body);
    const badOperator = await analyst.post(`/api/rules/${ruleId}/exceptions`, { ...build, operator: 'near' });
    assert.equal(badOperator.statusCode, 400, badOperator.body);
    assert.ok(badOperator.data.errors.some((e: Json) => e.field === 'body.operator'), badOperator.body);
    const badDate = await analyst.post(`/api/rules/${ruleId}/exceptions`, { ...build, expires_at: 'tomorrow' });
    assert.equal(badDate.statusCode, 400, badDate.body);
    assert.ok(badDate.data.errors.some((e: Json) => e.field === 'body.expires_at'), badDate.body);
    const badClose = await analyst.post(`/api/rules/${ruleId}/exceptions`, { ...build, close_matching: 'yes' });
    assert.equal(badClose.statusCode, 400, badClose.body);
    assert.ok(badClose.data.errors.some((e: Json) => e.field === 'body.close_matching'), badClose.body);
    for (const url of [`/api/rules/${ruleId}/exceptions`, `/api/rules/${ruleId}/exceptions/preview`]) {
      const past = await analyst.post(url, { ...build, expires_at: new Date(Date.now() - 60_000).toISOString() });
      assertError(past, 422, 'Invalid exception');
      assert.deepEqual(past.data.errors, [{ field: 'body.expires_at', message: 'must be in the future' }]);
    }
    assertError(await analyst.post(`/api/rules/${ruleId}/exceptions/preview`, { field: 'ip', operator: 'cidr', value: 'not-an-ip' }), 400, 'Invalid exception');
    assertError(await analyst.post('/api/rules/00000000-0000-4000-8000-000000000000/exceptions/preview', build), 404, 'Rule not found');
    assertError(await viewer.post(`/api/rules/${ruleId}/exceptions/preview`, build), 403, 'Not enough permissions');
    const offline = await whileBackendOffline(ctx.service, () => analyst.post(`/api/rules/${ruleId}/exceptions/preview`, build));
    assertError(offline, 503, 'Search backend unavailable: the preview cannot read the stored events');
    // Nothing was stored, nothing closed.
    assert.equal((await analyst.get(`/api/rules/${ruleId}/exceptions`)).data.total, 0);
    const open = await ctx.service.db.query(`SELECT 1 FROM alerts WHERE rule_id = $1 AND status IN ('new', 'acknowledged')`, [ruleId]);
    assert.equal(open.length, 5);
  });

  test('close_matching closes the covered open alerts as false positives, both moves recorded, audited once', async () => {
    const created = await analyst.post(`/api/rules/${ruleId}/exceptions`, { ...build, reason: 'build farm', close_matching: true });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.data.closed_alerts, 3);
    assert.equal(created.data.hit_count, 0);
    assert.equal(created.data.last_hit_at, null);
    assert.equal(created.data.expires_at, null);
    assert.equal(created.data.expired, false);
    const rows = await ctx.service.db.query<{ id: string; host: string; status: string; acknowledged_by: string | null }>(
      'SELECT id, host, status, acknowledged_by FROM alerts WHERE rule_id = $1 ORDER BY host',
      [ruleId],
    );
    for (const row of rows) {
      const covered = row.host.toLowerCase().startsWith('build-');
      assert.equal(row.status, covered ? 'false_positive' : 'new', row.host);
      if (covered) assert.equal(row.acknowledged_by, 'cover-analyst');
    }
    const newOne = rows.find((r) => r.host === 'build-01')!;
    const moves = await ctx.service.db.query<{ status: string }>('SELECT status FROM alert_changes WHERE alert_id = $1 ORDER BY seq', [newOne.id]);
    assert.deepEqual(moves.map((m) => m.status).slice(-2), ['acknowledged', 'false_positive']);
    const acked = rows.find((r) => r.host === 'build-02')!;
    const ackedMoves = await ctx.service.db.query<{ status: string }>('SELECT status FROM alert_changes WHERE alert_id = $1 ORDER BY seq', [acked.id]);
    assert.deepEqual(ackedMoves.map((m) => m.status).slice(-1), ['false_positive']);
    const audit = await ctx.service.db.query<{ details: Json; actor: string }>(`SELECT details, actor FROM audit_log WHERE action = 'alert.bulk_changed' AND details->>'exception_id' = $1`, [
      created.data.id,
    ]);
    assert.equal(audit.length, 1);
    assert.equal(audit[0].actor, 'cover-analyst');
    assert.equal(audit[0].details.status, 'false_positive');
    assert.equal(audit[0].details.acknowledge_first, true);
    assert.equal(audit[0].details.updated, 3);
    assert.equal(audit[0].details.rule_id, ruleId);
    const createdAudit = await ctx.service.db.query(`SELECT 1 FROM audit_log WHERE action = 'rule.exception_create' AND details->>'exception_id' = $1`, [created.data.id]);
    assert.equal(createdAudit.length, 1);
    // The preview now finds nothing open to cover.
    const after = await analyst.post(`/api/rules/${ruleId}/exceptions/preview`, { ...build, value: 'BUILD-' });
    assert.equal(after.data.open_alerts, 0);
  });

  test('each exception counts the matches it suppressed at ingest', async () => {
    const sent = await send([event('build-07', 10), event('build-08', 11), event('web-02', 12)]);
    assert.equal(sent.alerts_created, 1);
    const list = await analyst.get(`/api/rules/${ruleId}/exceptions`);
    const exception = list.data.items.find((e: Json) => e.value === 'build-');
    assert.equal(exception.hit_count, 2);
    assert.ok(Date.now() - Date.parse(exception.last_hit_at) < 60_000, exception.last_hit_at);
    await send([event('build-09', 13)]);
    const again = (await analyst.get(`/api/rules/${ruleId}/exceptions`)).data.items.find((e: Json) => e.value === 'build-');
    assert.equal(again.hit_count, 3);
  });

  test('an expired exception no longer suppresses at ingest nor in tests, and stays listed as expired', async () => {
    const created = await analyst.post(`/api/rules/${ruleId}/exceptions`, { field: 'host.name', operator: 'equals', value: 'web-09', expires_at: new Date(Date.now() + 1500).toISOString() });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.data.expired, false);
    const sample = { action: 'scan', host: { name: 'web-09' } };
    assert.equal((await analyst.post(`/api/rules/${ruleId}/test`, { sample_log: sample })).data.excepted, true);
    assert.equal((await send([event('web-09', 20)])).alerts_created, 0);
    await new Promise((resolve) => setTimeout(resolve, 1600));
    assert.equal((await analyst.post(`/api/rules/${ruleId}/test`, { sample_log: sample })).data.excepted, false);
    assert.equal((await send([event('web-09', 21)])).alerts_created, 1);
    const listed = (await analyst.get(`/api/rules/${ruleId}/exceptions`)).data.items.find((e: Json) => e.id === created.data.id);
    assert.equal(listed.expired, true);
    assert.equal(listed.hit_count, 1);
    // Its expiry can be moved forward again, or cleared; not into the past.
    assertError(await analyst.patch(`/api/rules/${ruleId}/exceptions/${created.data.id}`, { expires_at: '2001-01-01T00:00:00Z' }), 422, 'Invalid exception');
    const cleared = await analyst.patch(`/api/rules/${ruleId}/exceptions/${created.data.id}`, { expires_at: null });
    assert.equal(cleared.statusCode, 200, cleared.body);
    assert.equal(cleared.data.expires_at, null);
    assert.equal(cleared.data.expired, false);
    assert.equal((await send([event('web-09', 22)])).alerts_created, 0);
    void admin;
  });
});

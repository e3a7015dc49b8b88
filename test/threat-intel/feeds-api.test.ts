// The feeds API: admins upload (JSON, up to 20 MiB), list and delete feeds; every signed-in user may
// list them; analysts and viewers may not change them. Bad uploads answer 400 with what is wrong.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase, anonymous, type Client } from '../helpers/service.js';
import { assertError, countRows, setUpTeam, NIL_UUID } from '../rules/fixtures.js';
import { uploadFeed } from './helpers.js';

describeEachDatabase('threat-intel feeds API', (ctx) => {
  let admin: Client;
  let analyst: Client;
  let viewer: Client;

  before(async () => {
    ({ admin, analyst, viewer } = await setUpTeam(ctx.service, 'fay', 'gus', { name: 'feeds-api' }));
  });

  test('an admin uploads a plain list: 201 with counts, type and score; rejected lines are reported', async () => {
    const created = await uploadFeed(admin, { name: 'C2 addresses', format: 'plain', type: 'ip', content: '# c2\n198.51.100.1\n198.51.100.2\nnot-an-ip\n', risk_score: 80 });
    assert.match(created.id, /^[0-9a-f-]{36}$/);
    assert.equal(created.name, 'C2 addresses');
    assert.equal(created.format, 'plain');
    assert.equal(created.type, 'ip');
    assert.equal(created.risk_score, 80);
    assert.equal(created.indicators, 2);
    assert.equal(created.rejected, 1);
    assert.deepEqual(created.indicator_types, { ip: 2 });
    assert.deepEqual(created.problems, [{ at: 'line 4', reason: 'not a valid ip: "not-an-ip"' }]);
    assert.ok(!Number.isNaN(Date.parse(created.created_at)));
    assert.equal(await countRows(ctx.service, 'threat_intel_indicators WHERE feed_id = $1', [created.id]), 2);
    assert.equal(await countRows(ctx.service, `audit_log WHERE action = 'threat_intel_feed.create' AND target_id = $1`, [created.id]), 1);
  });

  test('without a score the feed scores 75; without a type each value is typed by its shape', async () => {
    const created = await uploadFeed(admin, { name: 'Mixed', format: 'plain', content: '192.0.2.9\nmixed.example\nhttp://mixed.example/x\n' });
    assert.equal(created.risk_score, 75);
    assert.equal(created.type, null);
    assert.deepEqual(created.indicator_types, { ip: 1, domain: 1, url: 1 });
  });

  test('analysts and viewers may list feeds but not upload or delete them', async () => {
    const body = { name: 'Nope', format: 'plain', type: 'ip', content: '192.0.2.1\n' };
    assertError(await analyst.post('/api/threat_intel/feeds', body), 403, 'Not enough permissions');
    assertError(await viewer.post('/api/threat_intel/feeds', body), 403, 'Not enough permissions');
    const feed = await uploadFeed(admin, { name: 'Kept', format: 'plain', type: 'ip', content: '192.0.2.1\n' });
    assertError(await analyst.delete(`/api/threat_intel/feeds/${feed.id}`), 403, 'Not enough permissions');
    const listed = await viewer.get('/api/threat_intel/feeds?page_size=100');
    assert.equal(listed.statusCode, 200, listed.body);
    assert.ok(listed.data.items.some((f: { id: string }) => f.id === feed.id));
    assertError(await anonymous(ctx.service).get('/api/threat_intel/feeds'), 401, 'Could not validate credentials');
  });

  test('an upload with no valid indicator, unreadable content or bad fields answers 400', async () => {
    const none = await admin.post('/api/threat_intel/feeds', { name: 'Empty', format: 'plain', type: 'ip', content: '# nothing\nfoo\nbar\n' });
    assertError(none, 400, 'The feed holds no valid indicators (2 entries rejected)');
    assert.deepEqual(none.data.errors[0], { field: 'body.content', message: 'line 2: not a valid ip: "foo"' });
    assertError(await admin.post('/api/threat_intel/feeds', { name: 'Comments', format: 'plain', content: '# only\n' }), 400, 'The feed holds no valid indicators (the content is empty)');
    assertError(await admin.post('/api/threat_intel/feeds', { name: 'Bad', format: 'misp', content: '{"Event": ' }), 400, /not valid JSON/);
    assertError(await admin.post('/api/threat_intel/feeds', { name: 'Bad', format: 'csv', content: 'a,b\n1,2\n' }), 400, /no header row/);
    const badFields = await admin.post('/api/threat_intel/feeds', { name: ' ', format: 'yaml', content: '1.2.3.4', risk_score: 101, type: 'email' });
    assertError(badFields, 400, 'Invalid request');
    const fields = badFields.data.errors.map((e: { field: string }) => e.field).sort();
    assert.deepEqual(fields, ['body.format', 'body.name', 'body.risk_score', 'body.type']);
    const missing = await admin.post('/api/threat_intel/feeds', { name: 'No content', format: 'plain' });
    assertError(missing, 400, 'Invalid request');
    assert.deepEqual(missing.data.errors, [{ field: 'body.content', message: 'is required' }]);
    assertError(await admin.post('/api/threat_intel/feeds', { name: 'x', format: 'plain', content: '1.2.3.4', extra: 1 }), 400, 'Invalid request');
    assert.equal(await countRows(ctx.service, 'threat_intel_feeds WHERE name IN ($1, $2)', ['Empty', 'Bad']), 0);
  });

  test('control characters inside a feed’s notes are dropped, not stored or refused', async () => {
    const event = { Event: { info: 'Nul\u0000 in info', threat_level_id: '2', Attribute: [{ type: 'domain', value: 'nul-note.example', to_ids: true, comment: 'a\u0000b' }] } };
    const created = await uploadFeed(admin, { name: 'Notes', format: 'misp', content: JSON.stringify(event) });
    assert.equal(created.indicators, 1);
    const [row] = await ctx.service.db.query<{ description: string }>('SELECT description FROM threat_intel_indicators WHERE feed_id = $1', [created.id]);
    assert.equal(row.description, 'ab');
  });

  test('uploads past the default 2 MiB body limit are accepted up to 20 MiB', async () => {
    const padding = `# ${'x'.repeat(3 * 1024 * 1024)}\n`;
    const created = await uploadFeed(admin, { name: 'Big file', format: 'plain', type: 'ip', content: `${padding}192.0.2.200\n` });
    assert.equal(created.indicators, 1);
    const tooBig = await admin.post('/api/threat_intel/feeds', { name: 'Too big', format: 'plain', content: 'x'.repeat(21 * 1024 * 1024) });
    assert.equal(tooBig.statusCode, 413, tooBig.body.slice(0, 200));
  });

  /** A multipart/form-data body of text fields and an optional file part, as browsers send it. */
  function form(fields: Record<string, string>, file?: { name: string; content: string }): { body: string; type: string } {
    const boundary = '----vigil-test-boundary-7MA4YWxkTrZu0gW';
    const parts = Object.entries(fields).map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
    if (file) parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: text/csv\r\n\r\n${file.content}\r\n`);
    return { body: `${parts.join('')}--${boundary}--\r\n`, type: `multipart/form-data; boundary=${boundary}` };
  }

  test('an upload as multipart/form-data with the feed as a file part', async () => {
    const upload = form({ name: 'Feodo file', format: 'abusech', risk_score: '85' }, { name: 'ipblocklist.csv', content: '# Feodo\n"first_seen_utc","dst_ip","dst_port"\n"2026-11-01","203.0.113.5","443"\n' });
    const created = await admin.request('POST', '/api/threat_intel/feeds', upload.body, { 'content-type': upload.type });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.data.indicators, 1);
    assert.equal(created.data.risk_score, 85);
    assert.equal(created.data.format, 'abusech');
    const asField = form({ name: 'Text field', format: 'plain', type: 'domain', content: 'field.example\n' });
    const second = await admin.request('POST', '/api/threat_intel/feeds', asField.body, { 'content-type': asField.type });
    assert.equal(second.statusCode, 201, second.body);
    assert.deepEqual(second.data.indicator_types, { domain: 1 });
    const bad = form({ name: 'Bad score', format: 'plain', risk_score: 'high' }, { name: 'x.txt', content: '1.2.3.4\n' });
    const refused = await admin.request('POST', '/api/threat_intel/feeds', bad.body, { 'content-type': bad.type });
    assertError(refused, 400, 'Invalid request');
    assert.deepEqual(refused.data.errors.map((e: { field: string }) => e.field), ['body.risk_score']);
    const both = form({ name: 'Both', format: 'plain', content: '1.2.3.4' }, { name: 'x.txt', content: '1.2.3.5\n' });
    assertError(await admin.request('POST', '/api/threat_intel/feeds', both.body, { 'content-type': both.type }), 400, 'Invalid request');
    const viewerTry = await viewer.request('POST', '/api/threat_intel/feeds', upload.body, { 'content-type': upload.type });
    assertError(viewerTry, 403, 'Not enough permissions');
    const truncated = await admin.request('POST', '/api/threat_intel/feeds', upload.body.slice(0, 120), { 'content-type': upload.type });
    assertError(truncated, 400, /^Malformed multipart body/);
    const huge = form({ name: 'Huge', format: 'plain' }, { name: 'huge.txt', content: 'x'.repeat(21 * 1024 * 1024) });
    assertError(await admin.request('POST', '/api/threat_intel/feeds', huge.body, { 'content-type': huge.type }), 413, 'The feed file is larger than 20 MiB');
  });

  test('the list has the list shape, sorts and filters by format; delete answers 204 then 404', async () => {
    const stix = await uploadFeed(admin, {
      name: 'STIX one',
      format: 'stix',
      content: JSON.stringify({ type: 'bundle', objects: [{ type: 'domain-name', value: 'stix-list.example' }] }),
    });
    const list = await admin.get('/api/threat_intel/feeds?format=stix');
    assert.equal(list.statusCode, 200, list.body);
    assert.deepEqual(Object.keys(list.data).sort(), ['items', 'page', 'page_size', 'pages', 'total']);
    assert.equal(list.data.total, 1);
    assert.deepEqual(Object.keys(list.data.items[0]).sort(), ['created_at', 'created_by', 'format', 'id', 'indicator_types', 'indicators', 'name', 'rejected', 'risk_score', 'type']);
    assert.equal(list.data.items[0].id, stix.id);
    assert.equal(list.data.items[0].created_by, 'admin');
    const byName = await admin.get('/api/threat_intel/feeds?sort_by=name&sort_order=asc&page_size=100');
    const names = byName.data.items.map((f: { name: string }) => f.name);
    assert.deepEqual(names, [...names].sort());
    assert.equal((await admin.get('/api/threat_intel/feeds?search=stix')).data.total, 1);
    assertError(await admin.get('/api/threat_intel/feeds?format=yaml'), 400, 'Invalid request');

    const deleted = await admin.delete(`/api/threat_intel/feeds/${stix.id}`);
    assert.equal(deleted.statusCode, 204, deleted.body);
    assert.equal(await countRows(ctx.service, 'threat_intel_indicators WHERE feed_id = $1', [stix.id]), 0);
    assert.equal(await countRows(ctx.service, `audit_log WHERE action = 'threat_intel_feed.delete' AND target_id = $1`, [stix.id]), 1);
    assertError(await admin.delete(`/api/threat_intel/feeds/${stix.id}`), 404, 'Feed not found');
    assertError(await admin.delete(`/api/threat_intel/feeds/${NIL_UUID}`), 404, 'Feed not found');
    assertError(await admin.delete('/api/threat_intel/feeds/not-a-uuid'), 404, 'Feed not found');
    assert.equal((await admin.get('/api/threat_intel/feeds?format=stix')).data.total, 0);
  });
});

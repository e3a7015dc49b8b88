// Alert triage: PATCH /api/alerts/{id} through the state machine (allowed moves, 409 for the rest,
// no-ops), bulk status changes, comments, who may do what, CSRF, and the audit trail.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachDatabase } from '../helpers/service.js';
import { assertError, countRows, ingest, NIL_UUID, type Json } from '../rules/fixtures.js';
import { alertWorld, type AlertWorld } from './fixtures.js';

describeEachDatabase('alert triage', (ctx) => {
  let world: AlertWorld;
  let seq = 0;

  before(async () => {
    world = await alertWorld(ctx.service, 'triage');
  });

  /** A fresh alert (status new) of the login rule. */
  async function newAlert(): Promise<string> {
    const response = await ingest(ctx.service, world.win, [{ Action: 'login', User: `u${++seq}`, Computer: 'ws-09' }]);
    assert.equal(response.data.alerts_created, 1, response.body);
    const [row] = await ctx.service.db.query<{ id: string }>(`SELECT id FROM alerts WHERE "user" = $1`, [`u${seq}`]);
    return row.id;
  }
  const read = async (id: string): Promise<Json> => (await world.viewer.get(`/api/alerts/${id}`)).data;
  const patch = (id: string, body: unknown) => world.analyst.patch(`/api/alerts/${id}`, body);
  const auditRows = (id: string) =>
    ctx.service.db.query<{ actor: string; action: string; details: Json }>(`SELECT actor, action, details FROM audit_log WHERE target_id = $1 ORDER BY created_at, id`, [id]);

  test('acknowledging a new alert records who and when; resolving keeps it; back to new clears it', async () => {
    const id = await newAlert();
    const before = await read(id);
    const acked = await patch(id, { status: 'acknowledged' });
    assert.equal(acked.statusCode, 200, acked.body);
    assert.equal(acked.data.id, id);
    assert.equal(acked.data.status, 'acknowledged');
    assert.equal(acked.data.acknowledged_by, 'triage-analyst');
    assert.match(acked.data.acknowledged_at, /^\d{4}-\d\d-\d\dT.*Z$/);
    assert.equal(acked.data.comment_added, false);
    const afterAck = await read(id);
    assert.equal(afterAck.status, 'acknowledged');
    assert.equal(afterAck.acknowledged_by, 'triage-analyst');
    assert.equal(afterAck.acknowledged_at, acked.data.acknowledged_at);
    assert.ok(afterAck.updated_at > before.updated_at, 'updated_at moves');

    const resolved = await patch(id, { status: 'resolved', comment: 'benign admin work' });
    assert.equal(resolved.statusCode, 200, resolved.body);
    assert.deepEqual(resolved.data, { id, status: 'resolved', acknowledged_at: acked.data.acknowledged_at, acknowledged_by: 'triage-analyst', assignee: null, comment_added: true });

    const reopened = await world.admin.patch(`/api/alerts/${id}`, { status: 'new' });
    assert.equal(reopened.statusCode, 200, reopened.body);
    assert.deepEqual(reopened.data, { id, status: 'new', acknowledged_at: null, acknowledged_by: null, assignee: null, comment_added: false });
    const afterNew = await read(id);
    assert.equal('acknowledged_at' in afterNew, false);
    assert.equal('acknowledged_by' in afterNew, false);
    assert.equal(afterNew.comments_count, 1);

    const actions = (await auditRows(id)).map((r) => [r.actor, r.action, r.details.from, r.details.to]);
    assert.deepEqual(actions, [
      ['triage-analyst', 'alert.status_changed', 'new', 'acknowledged'],
      ['triage-analyst', 'alert.status_changed', 'acknowledged', 'resolved'],
      ['admin', 'alert.status_changed', 'resolved', 'new'],
    ]);
  });

  test('acknowledged alerts may become false positives, and any status may go back to new', async () => {
    const id = await newAlert();
    assert.equal((await patch(id, { status: 'acknowledged' })).statusCode, 200);
    const tuned = await patch(id, { status: 'false_positive' });
    assert.equal(tuned.statusCode, 200, tuned.body);
    assert.equal(tuned.data.status, 'false_positive');
    assert.equal(tuned.data.acknowledged_by, 'triage-analyst');
    assert.equal((await patch(id, { status: 'new' })).data.status, 'new');
  });

  test('an alert id in capitals names the same alert', async () => {
    const id = await newAlert();
    const response = await patch(id.toUpperCase(), { status: 'acknowledged', comment: 'upper' });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.data.id, id);
    const comment = await world.analyst.post(`/api/alerts/${id.toUpperCase()}/comments`, { text: 'again' });
    assert.equal(comment.statusCode, 201, comment.body);
    assert.equal(comment.data.alert_id, id);
    assert.equal((await world.viewer.get(`/api/alerts/${id.toUpperCase()}`)).data.comments_count, 2);
  });

  test('moves outside the state machine answer 409 and change nothing', async () => {
    const id = await newAlert();
    assertError(await patch(id, { status: 'resolved' }), 409, 'Invalid status transition from new to resolved');
    assertError(await patch(id, { status: 'false_positive', comment: 'not stored' }), 409, 'Invalid status transition from new to false_positive');
    assert.equal((await patch(id, { status: 'acknowledged' })).statusCode, 200);
    assert.equal((await patch(id, { status: 'resolved' })).statusCode, 200);
    assertError(await patch(id, { status: 'acknowledged' }), 409, 'Invalid status transition from resolved to acknowledged');
    assertError(await patch(id, { status: 'false_positive' }), 409, 'Invalid status transition from resolved to false_positive');
    const alert = await read(id);
    assert.equal(alert.status, 'resolved');
    assert.equal(alert.comments_count, 0, 'a refused change stores no comment');
  });

  test('asking for the current status is a 200 no-op that still stores the comment', async () => {
    const id = await newAlert();
    const before = await read(id);
    const same = await patch(id, { status: 'new' });
    assert.equal(same.statusCode, 200, same.body);
    assert.deepEqual(same.data, { id, status: 'new', acknowledged_at: null, acknowledged_by: null, assignee: null, comment_added: false });
    assert.equal((await read(id)).updated_at, before.updated_at, 'nothing changed');
    assert.deepEqual(await auditRows(id), []);

    assert.equal((await patch(id, { status: 'acknowledged' })).statusCode, 200);
    const acked = await read(id);
    const again = await world.admin.patch(`/api/alerts/${id}`, { status: 'acknowledged', comment: 'still looking' });
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.data.comment_added, true);
    assert.equal(again.data.acknowledged_by, 'triage-analyst', 'the first acknowledgement stands');
    assert.equal(again.data.acknowledged_at, acked.acknowledged_at);
    const comments = (await world.viewer.get(`/api/alerts/${id}/comments`)).data;
    assert.deepEqual(comments.items.map((c: Json) => [c.user, c.text]), [['admin', 'still looking']]);
    assert.equal((await auditRows(id)).at(-1)?.action, 'alert.comment_added');
  });

  test('a bad status or body answers 400; an unknown alert 404', async () => {
    const id = await newAlert();
    const bad = await patch(id, { status: 'closed' });
    assertError(bad, 400, 'Invalid status value');
    assert.equal(bad.data.errors[0].field, 'body.status');
    assertError(await patch(id, {}), 400, 'Invalid status value');
    assertError(await patch(id, { status: 'new', note: 'x' }), 400, 'Invalid request');
    assertError(await patch(id, { status: 'acknowledged', comment: '' }), 400, 'Invalid request');
    assertError(await patch(id, { status: 'acknowledged', comment: 'x'.repeat(10_001) }), 400, 'Invalid request');
    assertError(await patch(NIL_UUID, { status: 'acknowledged' }), 404, 'Alert not found');
    assertError(await patch('12345', { status: 'acknowledged' }), 404, 'Alert not found');
    assert.equal((await read(id)).status, 'new');
  });

  test('viewers read but may not triage; analysts and admins may; writes need the CSRF token', async () => {
    const id = await newAlert();
    assert.equal((await world.viewer.get(`/api/alerts/${id}`)).statusCode, 200);
    assert.equal((await world.viewer.get(`/api/alerts/${id}/comments`)).statusCode, 200);
    assertError(await world.viewer.patch(`/api/alerts/${id}`, { status: 'acknowledged' }), 403, 'Not enough permissions');
    assertError(await world.viewer.post(`/api/alerts/${id}/comments`, { text: 'hi' }), 403, 'Not enough permissions');
    assertError(await world.viewer.post('/api/alerts/bulk/status', { ids: [id], status: 'acknowledged' }), 403, 'Not enough permissions');
    assertError(await world.analyst.patch(`/api/alerts/${id}`, { status: 'acknowledged' }, { 'x-csrf-token': 'wrong' }), 403, 'CSRF token missing or invalid');
    assertError(await world.analyst.post(`/api/alerts/${id}/comments`, { text: 'hi' }, { 'x-csrf-token': '' }), 403, 'CSRF token missing or invalid');
    assertError(await world.analyst.post('/api/alerts/bulk/status', { ids: [id], status: 'acknowledged' }, { 'x-csrf-token': 'x' }), 403, 'CSRF token missing or invalid');
    assert.equal((await read(id)).status, 'new');
    assert.equal((await read(id)).comments_count, 0);
    const anonymous = await ctx.service.app.inject({ method: 'PATCH', url: `/api/alerts/${id}`, payload: { status: 'acknowledged' } });
    assert.equal(anonymous.statusCode, 401);
  });

  test('bulk status: valid moves applied, unknown ids and refused moves listed in failed', async () => {
    const [a, b, c, d] = [await newAlert(), await newAlert(), await newAlert(), await newAlert()];
    assert.equal((await patch(c, { status: 'acknowledged' })).statusCode, 200);
    assert.equal((await patch(c, { status: 'resolved' })).statusCode, 200);
    assert.equal((await patch(d, { status: 'acknowledged' })).statusCode, 200);
    const response = await world.analyst.post('/api/alerts/bulk/status', {
      ids: [a, b, a.toUpperCase(), c, d, NIL_UUID, 'nope'],
      status: 'acknowledged',
      comment: 'batch triage',
    });
    assert.equal(response.statusCode, 200, response.body);
    // a and b move; d is already acknowledged (a no-op, counted as updated); repeated ids count once.
    assert.equal(response.data.updated, 3);
    assert.deepEqual(response.data.failed, [
      { id: c, error: 'Invalid status transition from resolved to acknowledged' },
      { id: NIL_UUID, error: 'Alert not found' },
      { id: 'nope', error: 'Alert not found' },
    ]);
    for (const id of [a, b, d]) {
      const alert = await read(id);
      assert.equal(alert.status, 'acknowledged');
      assert.equal(alert.acknowledged_by, 'triage-analyst');
      assert.equal(alert.comments_count, 1, 'the comment is stored on every updated alert');
    }
    assert.equal((await read(c)).status, 'resolved');
    assert.equal((await read(c)).comments_count, 0);
    const audit = await auditRows(a);
    assert.deepEqual(audit.map((r) => [r.action, r.details.from, r.details.to, r.details.bulk]), [['alert.status_changed', 'new', 'acknowledged', true]]);
    assert.equal((await auditRows(d)).at(-1)?.action, 'alert.comment_added');

    const back = await world.analyst.post('/api/alerts/bulk/status', { ids: [a, b, c], status: 'new' });
    assert.deepEqual(back.data, { updated: 3, failed: [] });
    assert.equal('acknowledged_by' in (await read(a)), false);
  });

  test('bulk status takes 1 to 1000 ids and a valid status', async () => {
    assertError(await world.analyst.post('/api/alerts/bulk/status', { ids: [], status: 'new' }), 400, 'Invalid request');
    const tooMany = Array.from({ length: 1001 }, () => NIL_UUID);
    const over = await world.analyst.post('/api/alerts/bulk/status', { ids: tooMany, status: 'new' });
    assertError(over, 400, 'Invalid request');
    assert.equal(over.data.errors[0].field, 'body.ids');
    assertError(await world.analyst.post('/api/alerts/bulk/status', { ids: [NIL_UUID], status: 'done' }), 400, 'Invalid status value');
    assertError(await world.analyst.post('/api/alerts/bulk/status', { ids: [NIL_UUID] }), 400, 'Invalid status value');
    const thousand = await world.analyst.post('/api/alerts/bulk/status', { ids: Array.from({ length: 1000 }, () => NIL_UUID), status: 'new' });
    assert.deepEqual(thousand.data, { updated: 0, failed: [{ id: NIL_UUID, error: 'Alert not found' }] });
  });

  test('comments: 201 with the record, listed oldest first and paged, status unchanged, audited', async () => {
    const id = await newAlert();
    const first = await world.analyst.post(`/api/alerts/${id}/comments`, { text: 'looking into it' });
    assert.equal(first.statusCode, 201, first.body);
    assert.deepEqual(Object.keys(first.data).sort(), ['alert_id', 'created_at', 'id', 'text', 'user']);
    assert.equal(first.data.alert_id, id);
    assert.equal(first.data.user, 'triage-analyst');
    assert.equal(first.data.text, 'looking into it');
    const long = 'é'.repeat(10_000);
    assert.equal((await world.admin.post(`/api/alerts/${id}/comments`, { text: 'second' })).statusCode, 201);
    assert.equal((await world.analyst.post(`/api/alerts/${id}/comments`, { text: long })).statusCode, 201);
    const listed = (await world.viewer.get(`/api/alerts/${id}/comments`)).data;
    assert.equal(listed.total, 3);
    assert.deepEqual(listed.items.map((c: Json) => c.text), ['looking into it', 'second', long]);
    assert.deepEqual(listed.items[0], first.data);
    const paged = (await world.viewer.get(`/api/alerts/${id}/comments?page_size=1&page=2`)).data;
    assert.deepEqual([paged.total, paged.pages, paged.items[0].text], [3, 3, 'second']);
    const alert = await read(id);
    assert.equal(alert.status, 'new');
    assert.equal(alert.comments_count, 3);
    const audit = await auditRows(id);
    assert.deepEqual(audit.map((r) => [r.actor, r.action]), [['triage-analyst', 'alert.comment_added'], ['admin', 'alert.comment_added'], ['triage-analyst', 'alert.comment_added']]);
    assert.equal(audit[0].details.comment_id, first.data.id);
  });

  test('comments: text of 1..10000 characters, not blank; unknown alerts 404', async () => {
    const id = await newAlert();
    for (const text of ['', '   ', 'x'.repeat(10_001)]) {
      const response = await world.analyst.post(`/api/alerts/${id}/comments`, { text });
      assertError(response, 400, 'Invalid request');
      assert.equal(response.data.errors[0].field, 'body.text');
    }
    assertError(await world.analyst.post(`/api/alerts/${id}/comments`, {}), 400, 'Invalid request');
    assertError(await world.analyst.post(`/api/alerts/${NIL_UUID}/comments`, { text: 'hi' }), 404, 'Alert not found');
    assertError(await world.viewer.get(`/api/alerts/${NIL_UUID}/comments`), 404, 'Alert not found');
    assertError(await world.viewer.get('/api/alerts/xyz/comments'), 404, 'Alert not found');
    assert.equal(await countRows(ctx.service, 'alert_comments WHERE alert_id = $1', [id]), 0);
  });

  test('concurrent changes to one alert apply one after the other', async () => {
    const id = await newAlert();
    const answers = await Promise.all([patch(id, { status: 'acknowledged' }), world.admin.patch(`/api/alerts/${id}`, { status: 'acknowledged' })]);
    assert.deepEqual(answers.map((r) => r.statusCode), [200, 200]);
    const alert = await read(id);
    assert.equal(answers[0].data.acknowledged_by, alert.acknowledged_by);
    assert.equal(answers[1].data.acknowledged_by, alert.acknowledged_by, 'the second sees the first acknowledgement');
    assert.equal((await auditRows(id)).filter((r) => r.action === 'alert.status_changed').length, 1);
  });
});

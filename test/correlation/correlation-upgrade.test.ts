// Correlation windows saved before migration 20 (each correlation's whole state as one JSON row) are
// continued after the upgrade: the first chunk that feeds the correlation restores the whole state,
// fires what it completes, and saves it in parts (a head row, a row per window, a row per waiting
// match); later chunks continue from the parts. With a lateness, the matches that were waiting for it
// are evaluated once the clock passes them. The whole state written here is of version 1 (one event
// clock per correlation): it is upgraded to clocks per group.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from '../../src/server.js';
import { compileCorrelations, entryText, feed, groupKeyText, headOf, headText, liveEntries, newestOf, newState, parseRule, settle, waitingText, windowsOf, type EngineState } from '../../src/sigma/index.js';
import { groupHash } from '../../src/correlation/states.js';
import { describeEachDatabase, type Client } from '../helpers/service.js';
import { setUpTeam } from '../rules/fixtures.js';
import { alertsOf, at, correlation, detection, event, scenario, send, T0 } from './scenario.js';

const failed = (seconds: number, User: string) => event(seconds, { EventID: 4625, User });

/** A state as the engine saved it before clocks per group (version 1): one clock, one floor. */
function asVersion1(state: EngineState): string {
  const { clocks, version: _version, ...rest } = state;
  const floors = Object.values(clocks).flatMap((c) => (c.floor === null ? [] : [c.floor]));
  return JSON.stringify({ ...rest, version: 1, floor: floors.length > 0 ? Math.max(...floors) : null, pending: state.pending.map(({ k: _k, m: _m, a: _a, ...p }) => p) });
}

/** The correlation compiled as stored, with the engine's state fed these matches (none fires). */
async function fedState(service: Service, correlationId: string, latenessMs: number, matches: { seconds: number; user: string; id: string }[]) {
  const [row] = await service.db.query<{ yaml_content: string }>('SELECT yaml_content FROM rules WHERE id = $1', [correlationId]);
  const parsed = parseRule(row.yaml_content);
  assert.ok(parsed.ok);
  const { set } = compileCorrelations([parsed.rule], { latenessMs });
  const state = newState(set);
  for (const m of matches) assert.deepEqual(feed(set, state, { ruleRef: ['up_failed'], eventId: m.id, time: T0 + m.seconds * 1000, fields: { User: m.user } }).firings, []);
  assert.deepEqual(settle(set, state).firings, []);
  return { set, state };
}

/** Writes the correlation's state as the service wrote it before migration 20: the engine's whole state, fed these matches. */
async function writeWholeState(service: Service, correlationId: string, latenessMs: number, matches: { seconds: number; user: string; id: string }[]): Promise<void> {
  const { set, state } = await fedState(service, correlationId, latenessMs, matches);
  await service.db.query('UPDATE correlation_states SET fingerprint = $2, revision = 7, state = $3 WHERE rule_id = $1', [correlationId, set.fingerprint, asVersion1(state)]);
  await service.db.query('DELETE FROM correlation_windows WHERE rule_id = $1', [correlationId]);
}

/** Writes the correlation's state in parts as the service wrote it before migration 25 (a head of
 * version 2 with one clock and floor, window rows, waiting rows without their group clock). */
async function writeVersion2Parts(service: Service, correlationId: string, latenessMs: number, matches: { seconds: number; user: string; id: string }[]): Promise<void> {
  const { set, state } = await fedState(service, correlationId, latenessMs, matches);
  const floors = Object.values(state.clocks).flatMap((c) => (c.floor === null ? [] : [c.floor]));
  const head = { ...headOf(state), version: 2, floor: floors.length > 0 ? Math.max(...floors) : null };
  await service.db.query('UPDATE correlation_states SET fingerprint = $2, revision = 3, state = $3 WHERE rule_id = $1', [correlationId, set.fingerprint, headText(head as unknown as ReturnType<typeof headOf>)]);
  for (const { correlation: member, id, window } of windowsOf(state)) {
    const entries = liveEntries(window);
    await service.db.query(
      'INSERT INTO correlation_windows (rule_id, member, group_hash, group_id, group_key, newest, first_input, next_input) VALUES ($1, $2, $3, $4, $5, $6, 0, $7)',
      [correlationId, member, groupHash(id), id, groupKeyText(window), newestOf(window), entries.length],
    );
    for (const [n, e] of entries.entries()) {
      await service.db.query('INSERT INTO correlation_window_inputs (rule_id, member, group_hash, n, input) VALUES ($1, $2, $3, $4, $5)', [correlationId, member, groupHash(id), n, entryText(e)]);
    }
  }
  for (const { k: _k, m: _m, a: _a, ...p } of state.pending) {
    await service.db.query('INSERT INTO correlation_waiting (rule_id, seq, event_time, input) VALUES ($1, $2, $3, $4)', [correlationId, p.s, p.t, waitingText(p)]);
  }
}

async function parts(service: Service, correlationId: string): Promise<{ head: Record<string, unknown>; windows: string[]; waiting: number }> {
  const [row] = await service.db.query<{ state: string }>('SELECT state FROM correlation_states WHERE rule_id = $1', [correlationId]);
  const windows = await service.db.query<{ group_id: string }>('SELECT group_id FROM correlation_windows WHERE rule_id = $1 ORDER BY group_id', [correlationId]);
  const [waiting] = await service.db.query<{ n: number }>('SELECT count(*)::int AS n FROM correlation_waiting WHERE rule_id = $1', [correlationId]);
  return { head: JSON.parse(row.state) as Record<string, unknown>, windows: windows.map((w) => w.group_id), waiting: waiting.n };
}

const threeFailures = correlation({ title: 'Three failures', type: 'event_count', rules: ['up_failed'], groupBy: ['User'], timespan: '10m', condition: { gte: 3 } });

describeEachDatabase('correlation windows saved whole before the upgrade', (ctx) => {
  let admin: Client;
  let analyst: Client;

  before(async () => {
    ({ admin, analyst } = await setUpTeam(ctx.service, 'ursula', 'ulrich', { name: 'upgrade-default', is_default: true }));
  });

  test('a window begun before the upgrade fires with its old matches; the others are continued from their parts', async () => {
    const { pattern, correlationId } = await scenario(admin, analyst, [detection('up_failed', { EventID: 4625 })], threeFailures);
    await writeWholeState(ctx.service, correlationId, 0, [
      { seconds: 0, user: 'alice', id: 'before-1' },
      { seconds: 5, user: 'bob', id: 'before-2' },
      { seconds: 10, user: 'alice', id: 'before-3' },
    ]);
    assert.equal((await send(ctx.service, pattern, [failed(20, 'alice')])).data.alerts_created, 1);
    const [alice] = await alertsOf(ctx.service, correlationId);
    assert.equal(alice.correlation.window_start, at(0));
    assert.equal(alice.correlation.window_end, at(20));
    assert.deepEqual(alice.correlation.event_ids.slice(0, 2), ['before-1', 'before-3']);
    // Saved in parts: a head (its revision continued), bob's window (alice's fired and is gone).
    const after = await parts(ctx.service, correlationId);
    assert.equal(after.head.version, 3);
    assert.equal(after.head.waiting, 0);
    assert.deepEqual(after.windows, ['["bob"]']);
    const [{ revision }] = await ctx.service.db.query<{ revision: string }>('SELECT revision FROM correlation_states WHERE rule_id = $1', [correlationId]);
    assert.equal(Number(revision), 8);

    assert.equal((await send(ctx.service, pattern, [failed(30, 'bob'), failed(40, 'bob')])).data.alerts_created, 1);
    const bob = (await alertsOf(ctx.service, correlationId))[1];
    assert.equal(bob.correlation.window_start, at(5));
    assert.equal(bob.correlation.event_ids[0], 'before-2');
    assert.equal((await alertsOf(ctx.service, correlationId)).length, 2);
  });

  test('windows saved in parts with one clock per correlation (before migration 25) continue with clocks per group', async () => {
    const { pattern, correlationId } = await scenario(admin, analyst, [detection('up_failed', { EventID: 4625 })], threeFailures);
    await writeVersion2Parts(ctx.service, correlationId, 0, [
      { seconds: 100, user: 'olga', id: 'parts-1' },
      { seconds: 105, user: 'pete', id: 'parts-2' },
      { seconds: 110, user: 'olga', id: 'parts-3' },
    ]);
    assert.deepEqual((await parts(ctx.service, correlationId)).windows, ['["olga"]', '["pete"]']);
    assert.equal((await send(ctx.service, pattern, [failed(120, 'olga')])).data.alerts_created, 1);
    const [olga] = await alertsOf(ctx.service, correlationId);
    assert.deepEqual(olga.correlation.event_ids.slice(0, 2), ['parts-1', 'parts-3']);
    const after = await parts(ctx.service, correlationId);
    assert.equal(after.head.version, 3);
    assert.deepEqual(after.windows, ['["pete"]']);
    // A group new since the upgrade is not late against the others' newer events.
    assert.equal((await send(ctx.service, pattern, [failed(0, 'quinn'), failed(10, 'quinn'), failed(20, 'quinn')])).data.alerts_created, 1);
    assert.equal((await send(ctx.service, pattern, [failed(130, 'pete'), failed(140, 'pete')])).data.alerts_created, 1);
    const pete = (await alertsOf(ctx.service, correlationId)).find((a) => (a.correlation.group as { User: string }).User === 'pete')!;
    assert.equal(pete.correlation.window_start, at(105));
    assert.equal(pete.correlation.event_ids[0], 'parts-2');
  });

  test('a state of other rules (the correlation changed since) starts over empty', async () => {
    const { pattern, correlationId } = await scenario(admin, analyst, [detection('up_failed', { EventID: 4625 })], threeFailures);
    await ctx.service.db.query(`UPDATE correlation_states SET fingerprint = 'another', state = '{"version":1}' WHERE rule_id = $1`, [correlationId]);
    assert.equal((await send(ctx.service, pattern, [failed(0, 'carol'), failed(10, 'carol')])).data.alerts_created, 0);
    assert.deepEqual((await parts(ctx.service, correlationId)).windows, ['["carol"]']);
    assert.equal((await send(ctx.service, pattern, [failed(20, 'carol')])).data.alerts_created, 1);
  });
});

describeEachDatabase(
  'correlation matches waiting for the lateness before the upgrade',
  (ctx) => {
    test('the waiting matches are kept as rows and evaluated once the clock passes them', async () => {
      const { admin, analyst } = await setUpTeam(ctx.service, 'uma', 'uwe', { name: 'upgrade-late', is_default: true });
      const { pattern, correlationId } = await scenario(admin, analyst, [detection('up_failed', { EventID: 4625 })], threeFailures);
      await writeWholeState(ctx.service, correlationId, 60_000, [
        { seconds: 0, user: 'dave', id: 'waiting-1' },
        { seconds: 10, user: 'dave', id: 'waiting-2' },
      ]);
      assert.equal((await send(ctx.service, pattern, [failed(20, 'dave')])).data.alerts_created, 0);
      let now = await parts(ctx.service, correlationId);
      assert.equal(now.waiting, 3);
      assert.equal(now.head.waiting, 3);
      assert.deepEqual(now.windows, []);
      // Their group's clock passes them: all three are evaluated, in time order, and fire.
      assert.equal((await send(ctx.service, pattern, [failed(200, 'dave')])).data.alerts_created, 1);
      const [dave] = await alertsOf(ctx.service, correlationId);
      assert.deepEqual(dave.correlation.group, { User: 'dave' });
      assert.equal(dave.correlation.window_start, at(0));
      assert.deepEqual(dave.correlation.event_ids.slice(0, 2), ['waiting-1', 'waiting-2']);
      now = await parts(ctx.service, correlationId);
      assert.equal(now.waiting, 1);
      assert.equal(now.head.waiting, 1);
    });

    test('matches waiting in parts before migration 25 wait on their group clocks after it', async () => {
      const { admin, analyst } = await setUpTeam(ctx.service, 'uri', 'una', { name: 'upgrade-late-parts', is_default: true });
      const { pattern, correlationId } = await scenario(admin, analyst, [detection('up_failed', { EventID: 4625 })], threeFailures);
      await writeVersion2Parts(ctx.service, correlationId, 60_000, [
        { seconds: 0, user: 'ron', id: 'waiting-parts-1' },
        { seconds: 10, user: 'ron', id: 'waiting-parts-2' },
      ]);
      assert.equal((await parts(ctx.service, correlationId)).waiting, 2);
      assert.equal((await send(ctx.service, pattern, [failed(20, 'ron')])).data.alerts_created, 0);
      assert.equal((await parts(ctx.service, correlationId)).waiting, 3);
      assert.equal((await send(ctx.service, pattern, [failed(200, 'ron')])).data.alerts_created, 1);
      const [ron] = await alertsOf(ctx.service, correlationId);
      assert.deepEqual(ron.correlation.event_ids.slice(0, 2), ['waiting-parts-1', 'waiting-parts-2']);
      assert.equal((await parts(ctx.service, correlationId)).waiting, 1);
    });
  },
  { CORRELATION_LATENESS: '60' },
);

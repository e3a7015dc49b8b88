// One event is one event: the same event re-delivered with its keys in another order (at any level)
// is recognised as a repeat (stored once, one alert), while a different array order is a different
// event; events and alerts stored before the canonical key (keyed by the text as received) are re-keyed
// by the upgrade, so their re-delivery after it is recognised too, and nothing stored is deleted.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describeEachDatabase, type Client } from '../helpers/service.js';
import { countRows, createRule, equalsRule, ingest, setUpTeam, type CreatedPattern } from '../rules/fixtures.js';
import { migrate } from '../../src/db/migrate.js';
import type { Database } from '../../src/db/database.js';

/** The same value with every object's keys in reverse order. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reversedKeys(v)]));
}

/** The key events had before canonical keys: the hash of the text as received. */
const legacyHash = (event: unknown) => createHash('sha256').update(JSON.stringify(event)).digest('hex');

/**
 * Puts the stored events back as they were kept before the canonical key and the event blocks (one row
 * per event in an `events` table) and forgets both migrations, so the next migrate() runs them as an
 * upgrade would (the hourly counts are left as they are: they count the same events).
 */
async function toRowsBeforeCanonicalKeys(db: Database): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query(`CREATE TABLE events_before AS SELECT gen_random_uuid() AS id, index_pattern_id, event_time, received_at, event_hash, event FROM events`);
    await tx.query(`DROP VIEW events`);
    await tx.query(`DROP TABLE event_blocks, event_hashes`);
    await tx.query(`DROP TRIGGER index_patterns_drop_event_hashes ON index_patterns`);
    for (const fn of ['drop_pattern_event_hashes', 'count_inserted_event_blocks', 'count_updated_event_blocks', 'count_deleted_event_blocks']) await tx.query(`DROP FUNCTION ${fn}()`);
    await tx.query(`ALTER TABLE events_before RENAME TO events`);
    await tx.query(`CREATE UNIQUE INDEX events_pattern_hash_idx ON events (index_pattern_id, event_hash)`);
    await tx.query(`DELETE FROM schema_migrations WHERE version IN (12, 15)`);
  });
}

/** An event that exercises the canonical text: nesting, arrays of objects, integer-like keys, keys
 * beyond the Basic Multilingual Plane and in the private-use area (UTF-16 and code-point order differ),
 * escapes, numbers, empty containers. */
function trickyEvent(marker: string): Record<string, unknown> {
  return {
    zeta: { b: 2, a: [{ y: 'é', x: null }, [], {}], '10': 'ten', '9': 'nine' },
    Image: `${marker}.exe`,
    '\u{1F600}key': 'astral',
    '\uE000key': 'private use',
    quote: 'a "quoted" \\ back\nslash\ttab \u0001 ctrl </script>',
    numbers: [0, -1, 1.5, 1e-7, 2 ** 70, 1e21, true, false],
    case: marker,
  };
}

describeEachDatabase('events with their keys in another order', (ctx) => {
  let analyst: Client;
  let pattern: CreatedPattern;
  let ruleId: string;

  before(async () => {
    ({ analyst, pattern } = await setUpTeam(ctx.service, 'olga', 'otto', { name: 'key-order', is_default: true }));
    ruleId = (await createRule(analyst, { yaml_content: equalsRule('Key order rule', 'case', 'key-order'), deploy: true })).id;
  });

  const eventsOf = (marker: string) => countRows(ctx.service, `events WHERE index_pattern_id = $1 AND event->>'case' = $2`, [pattern.id, marker]);
  const alertsOf = (marker: string) => countRows(ctx.service, `alerts WHERE rule_id = $1 AND event->>'case' = $2`, [ruleId, marker]);

  test('a re-delivery with keys reordered at every level is a repeat: stored once, one alert', async () => {
    const event = trickyEvent('key-order');
    const first = await ingest(ctx.service, pattern, [event]);
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.data.alerts_created, 1);
    const again = await ingest(ctx.service, pattern, [reversedKeys(event), event]);
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.data.accepted, 2);
    assert.equal(again.data.alerts_created, 0);
    // NDJSON text with its keys written in another order is the same event too.
    const text = `${JSON.stringify(reversedKeys(event))}\n`;
    const ndjson = await analyst.service.app.inject({ method: 'POST', url: `/api/logs/${pattern.name}`, payload: text, headers: { authorization: `Bearer ${pattern.ingest_token}`, 'content-type': 'application/x-ndjson' } });
    assert.equal(ndjson.statusCode, 200, ndjson.body);
    assert.equal(await eventsOf('key-order'), 1);
    assert.equal(await alertsOf('key-order'), 1);
  });

  test('the same values in another array order are a different event', async () => {
    const event = { case: 'array-order', list: [1, 2] };
    assert.equal((await ingest(ctx.service, pattern, [event])).statusCode, 200);
    assert.equal((await ingest(ctx.service, pattern, [{ case: 'array-order', list: [2, 1] }])).statusCode, 200);
    assert.equal(await eventsOf('array-order'), 2);
  });

  test('the upgrade re-keys events and alerts stored before: their re-delivery in any key order is a repeat, nothing is deleted', async () => {
    // State before the upgrade: the event received twice in two key orders (both kept, as the old key
    // allowed), each with its alert, all keyed by the hash of the text as received.
    const event = { ...trickyEvent('legacy'), case: 'key-order', tag: 'legacy' };
    const other = reversedKeys(event);
    const response = await ingest(ctx.service, pattern, [event]);
    assert.equal(response.statusCode, 200, response.body);
    await toRowsBeforeCanonicalKeys(ctx.service.db);
    const db = ctx.service.db;
    await db.query(`UPDATE events SET event_hash = $1 WHERE event->>'tag' = 'legacy'`, [legacyHash(event)]);
    await db.query(
      `INSERT INTO events (id, index_pattern_id, event_time, received_at, event_hash, event)
         SELECT gen_random_uuid(), index_pattern_id, event_time, received_at + interval '1 second', $1, $2::json FROM events WHERE event->>'tag' = 'legacy'`,
      [legacyHash(other), JSON.stringify(other)],
    );
    await db.query(`UPDATE alerts SET event_hash = $1 WHERE event->>'tag' = 'legacy'`, [legacyHash(event)]);
    await db.query(`CREATE TEMPORARY TABLE legacy_alert AS SELECT * FROM alerts WHERE event->>'tag' = 'legacy'`);
    await db.query(`UPDATE legacy_alert SET id = gen_random_uuid(), event_hash = $1, event = $2::jsonb, created_at = created_at + interval '1 second'`, [legacyHash(other), JSON.stringify(other)]);
    await db.query(`INSERT INTO alerts SELECT * FROM legacy_alert`);
    await db.query(`DROP TABLE legacy_alert`);
    const legacyRows = await db.query<{ event_hash: string }>(`SELECT event_hash FROM events WHERE event->>'tag' = 'legacy' ORDER BY received_at`);
    assert.deepEqual(legacyRows.map((r) => r.event_hash), [legacyHash(event), legacyHash(other)]);
    const count = (table: string) => countRows(ctx.service, `${table} WHERE event->>'tag' = 'legacy'`, []);
    assert.equal(await count('events'), 2);
    assert.equal(await count('alerts'), 2);

    assert.deepEqual(await migrate(db), [12, 15]);

    for (const sent of [event, other, reversedKeys(reversedKeys(other))]) {
      const response = await ingest(ctx.service, pattern, [sent]);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.data.alerts_created, 0, 'a re-delivery after the upgrade raises no alert');
    }
    assert.equal(await count('events'), 2, 'nothing stored twice, nothing deleted');
    assert.equal(await count('alerts'), 2);
  });

  test('an alert whose event is gone (retention) is re-keyed from its own copy of the event', async () => {
    const event = { zeta: { b: 'two', a: ['x', { d: 4, c: 3 }] }, case: 'key-order', tag: 'retained', host: { name: 'ws-07' } };
    assert.equal((await ingest(ctx.service, pattern, [event])).data.alerts_created, 1);
    await toRowsBeforeCanonicalKeys(ctx.service.db);
    await ctx.service.db.query(`DELETE FROM events WHERE event->>'tag' = 'retained'`);
    await ctx.service.db.query(`UPDATE alerts SET event_hash = $1 WHERE event->>'tag' = 'retained'`, [legacyHash(event)]);
    assert.deepEqual(await migrate(ctx.service.db), [12, 15]);
    const response = await ingest(ctx.service, pattern, [reversedKeys(event)]);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.data.alerts_created, 0);
    assert.equal(await countRows(ctx.service, `alerts WHERE event->>'tag' = 'retained'`, []), 1);
  });
});

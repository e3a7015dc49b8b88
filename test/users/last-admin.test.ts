// The last active admin cannot be lost: two admins demoting, disabling or deleting each other at the
// same moment — on one instance or on two instances sharing PostgreSQL — always leave one admin.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Database } from '../../src/db/database.js';
import { describeTwoInstances } from '../helpers/instances.js';
import { describeEachDatabase, login, loginAdmin, type Client } from '../helpers/service.js';
import { userAs } from '../rules/fixtures.js';

type Move = (client: Client, targetId: string) => Promise<{ statusCode: number }>;
const MOVES: Record<string, Move> = {
  demote: (c, id) => c.patch(`/api/users/${id}`, { role: 'analyst' }),
  disable: (c, id) => c.patch(`/api/users/${id}`, { disabled: true }),
  delete: (c, id) => c.delete(`/api/users/${id}`),
};

async function activeAdmins(db: Database): Promise<number> {
  const [{ n }] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM users WHERE role = 'admin' AND NOT disabled`);
  return n;
}

/** Two admins act on each other at once; exactly one of them may succeed, and one admin remains. */
async function duel(db: Database, one: Client, two: Client, oneId: string, twoId: string, move: Move): Promise<void> {
  const answers = await Promise.all([move(one, twoId), move(two, oneId)]);
  const codes = answers.map((a) => a.statusCode).sort();
  assert.equal(await activeAdmins(db) >= 1, true, `no admin left after ${codes.join(', ')}`);
  assert.ok(codes.filter((c) => c === 200 || c === 204).length <= 1, `both succeeded: ${codes.join(', ')}`);
  for (const c of codes) assert.ok([200, 204, 401, 403, 409].includes(c), `unexpected ${c}`);
}

describeEachDatabase('the last admin remains', (ctx) => {
  let root: Client;
  before(async () => {
    root = await loginAdmin(ctx.service);
  });

  for (const [name, move] of Object.entries(MOVES)) {
    test(`two admins who ${name} each other at once leave one admin`, async () => {
      // The bootstrap admin steps aside so the two are the only admins.
      const a = await userAs(root, 'admin', `${name}-a`);
      const b = await userAs(root, 'admin', `${name}-b`);
      const ids = await ctx.service.db.query<{ id: string; username: string }>(`SELECT id, username FROM users WHERE username IN ($1, $2)`, [`${name}-a`, `${name}-b`]);
      const idOf = (u: string) => ids.find((r) => r.username === u)!.id;
      await ctx.service.db.query(`UPDATE users SET role = 'analyst' WHERE role = 'admin' AND username NOT IN ($1, $2)`, [`${name}-a`, `${name}-b`]);
      await duel(ctx.service.db, a, b, idOf(`${name}-a`), idOf(`${name}-b`), move);
      await ctx.service.db.query(`UPDATE users SET role = 'admin', disabled = false WHERE username = 'admin'`);
      root = await loginAdmin(ctx.service);
    });
  }
});

describeTwoInstances('the last admin remains across two instances', (instances) => {
  test('ten rounds of two admins demoting each other through different instances', async () => {
    const { a, b, connections } = instances;
    const root = await loginAdmin(a);
    const password = 'duel-password-123';
    for (const username of ['duel-a', 'duel-b']) assert.equal((await root.post('/api/users', { username, password, role: 'admin' })).statusCode, 201);
    const [{ id: rootId }] = await connections[0].query<{ id: string }>(`SELECT id FROM users WHERE username = 'admin'`);
    const ids = await connections[0].query<{ id: string; username: string }>(`SELECT id, username FROM users WHERE username LIKE 'duel-%' ORDER BY username`);
    for (let round = 0; round < 10; round++) {
      await connections[0].query(`UPDATE users SET role = 'admin', disabled = false WHERE username LIKE 'duel-%'`);
      await connections[0].query(`UPDATE users SET role = 'analyst' WHERE id = $1`, [rootId]);
      const one = await login(a, 'duel-a', password);
      const two = await login(b, 'duel-b', password);
      await duel(connections[0], one, two, ids[0].id, ids[1].id, MOVES.demote);
    }
  });
});

// The SQL of the correlation state (migration 17): each deployed correlation's head row in
// correlation_states, locked for the ingest transaction that feeds it (instances sharing one PostgreSQL
// take turns on it, so the windows and waiting inputs under it are read and written by one transaction
// at a time), its windows in correlation_windows by (member, group hash) and its waiting inputs in
// correlation_waiting. Every statement reads or writes the rows a chunk names, or expired ones by index.
import type { Queryable } from '../db/database.js';

export type HeadRow = {
  rule_id: string;
  fingerprint: string;
  revision: number;
  state: string;
};

export interface WindowKey {
  member: number;
  hash: string;
}

export type WindowRow = {
  member: number;
  group_id: string;
  window_state: string;
};

export interface WindowWrite extends WindowKey {
  id: string;
  newest: number;
  text: string;
}

const LOCK_HEADS = 'SELECT rule_id, fingerprint, revision, state FROM correlation_states WHERE rule_id = ANY($1::uuid[]) ORDER BY rule_id FOR UPDATE';

/** Locks (in rule order) and reads the head rows of these correlations, creating those missing. */
export async function lockHeads(tx: Queryable, ids: string[]): Promise<Map<string, HeadRow>> {
  const rowsOf = async () => new Map((await tx.query<HeadRow>(LOCK_HEADS, [ids])).map((r) => [r.rule_id, { ...r, revision: Number(r.revision) }]));
  let heads = await rowsOf();
  if (heads.size < ids.length) {
    // Deployed before head rows were written at deployment: created here, then locked like the others.
    await tx.query(`INSERT INTO correlation_states (rule_id, fingerprint, state) SELECT id, '', '' FROM unnest($1::uuid[]) AS s (id) ON CONFLICT (rule_id) DO NOTHING`, [ids.filter((id) => !heads.has(id))]);
    heads = await rowsOf();
  }
  return heads;
}

export async function writeHead(tx: Queryable, ruleId: string, fingerprint: string, revision: number, text: string): Promise<void> {
  await tx.query('UPDATE correlation_states SET fingerprint = $2, revision = $3, state = $4, updated_at = now() WHERE rule_id = $1', [ruleId, fingerprint, revision, text]);
}

/** Drops a correlation's windows and waiting inputs (its rules or options changed). */
export async function clearParts(tx: Queryable, ruleId: string): Promise<void> {
  await tx.query('DELETE FROM correlation_windows WHERE rule_id = $1', [ruleId]);
  await tx.query('DELETE FROM correlation_waiting WHERE rule_id = $1', [ruleId]);
}

/** Deletes the windows whose newest input is older than their member's bound; answers how many per member. */
export async function expireWindows(tx: Queryable, ruleId: string, bounds: { member: number; before: number }[]): Promise<Map<number, number>> {
  const gone = new Map<number, number>();
  if (bounds.length === 0) return gone;
  const rows = await tx.query<{ member: number; n: number }>(
    `WITH gone AS (
       DELETE FROM correlation_windows w USING unnest($2::int[], $3::float8[]) AS b (member, before)
       WHERE w.rule_id = $1 AND w.member = b.member AND w.newest < b.before RETURNING w.member)
     SELECT member, count(*)::int AS n FROM gone GROUP BY member`,
    [ruleId, bounds.map((b) => b.member), bounds.map((b) => b.before)],
  );
  for (const r of rows) gone.set(r.member, r.n);
  return gone;
}

/** The windows of these keys that exist. */
export async function readWindows(tx: Queryable, ruleId: string, keys: WindowKey[]): Promise<WindowRow[]> {
  if (keys.length === 0) return [];
  return tx.query<WindowRow>(
    `SELECT w.member, w.group_id, w.window_state FROM correlation_windows w
     JOIN unnest($2::int[], $3::text[]) AS k (member, group_hash) ON w.member = k.member AND w.group_hash = k.group_hash
     WHERE w.rule_id = $1`,
    [ruleId, keys.map((k) => k.member), keys.map((k) => k.hash)],
  );
}

/** A member's windows whose newest input is older than `before` (those a sweep at the group cap may drop). */
export async function readExpiring(tx: Queryable, ruleId: string, member: number, before: number): Promise<WindowRow[]> {
  return tx.query<WindowRow>('SELECT member, group_id, window_state FROM correlation_windows WHERE rule_id = $1 AND member = $2 AND newest < $3', [ruleId, member, before]);
}

export async function writeWindows(tx: Queryable, ruleId: string, windows: WindowWrite[]): Promise<void> {
  if (windows.length === 0) return;
  await tx.query(
    `INSERT INTO correlation_windows (rule_id, member, group_hash, group_id, newest, window_state)
     SELECT $1, member, group_hash, group_id, newest, window_state
     FROM unnest($2::int[], $3::text[], $4::text[], $5::float8[], $6::text[]) AS s (member, group_hash, group_id, newest, window_state)
     ON CONFLICT (rule_id, member, group_hash) DO UPDATE SET newest = EXCLUDED.newest, window_state = EXCLUDED.window_state`,
    [ruleId, windows.map((w) => w.member), windows.map((w) => w.hash), windows.map((w) => w.id), windows.map((w) => w.newest), windows.map((w) => w.text)],
  );
}

export async function deleteWindows(tx: Queryable, ruleId: string, keys: WindowKey[]): Promise<void> {
  if (keys.length === 0) return;
  await tx.query(
    `DELETE FROM correlation_windows w USING unnest($2::int[], $3::text[]) AS k (member, group_hash)
     WHERE w.rule_id = $1 AND w.member = k.member AND w.group_hash = k.group_hash`,
    [ruleId, keys.map((k) => k.member), keys.map((k) => k.hash)],
  );
}

/** The waiting inputs at or before `upTo` (none when null) and the `oldest` first, in (time, sequence) order. */
export async function readWaiting(tx: Queryable, ruleId: string, upTo: number | null, oldest: number): Promise<string[]> {
  const rows = await tx.query<{ input: string }>(
    `SELECT input FROM (
       (SELECT seq, event_time, input FROM correlation_waiting WHERE rule_id = $1 AND event_time <= $2::float8)
       UNION
       (SELECT seq, event_time, input FROM correlation_waiting WHERE rule_id = $1 ORDER BY event_time, seq LIMIT $3)
     ) AS w ORDER BY event_time, seq`,
    [ruleId, upTo, oldest],
  );
  return rows.map((r) => r.input);
}

export async function writeWaiting(tx: Queryable, ruleId: string, inputs: { seq: number; t: number; text: string }[]): Promise<void> {
  if (inputs.length === 0) return;
  await tx.query(
    `INSERT INTO correlation_waiting (rule_id, seq, event_time, input)
     SELECT $1, seq, event_time, input FROM unnest($2::bigint[], $3::float8[], $4::text[]) AS s (seq, event_time, input)`,
    [ruleId, inputs.map((i) => i.seq), inputs.map((i) => i.t), inputs.map((i) => i.text)],
  );
}

export async function deleteWaiting(tx: Queryable, ruleId: string, seqs: number[]): Promise<void> {
  if (seqs.length === 0) return;
  await tx.query('DELETE FROM correlation_waiting WHERE rule_id = $1 AND seq = ANY($2::bigint[])', [ruleId, seqs]);
}

// The SQL of the correlation state (migration 20): each deployed correlation's head row in
// correlation_states, locked for the ingest transaction that feeds it (instances sharing one PostgreSQL
// take turns on it, so the windows and waiting inputs under it are read and written by one transaction
// at a time), its windows in correlation_windows by (member, group hash), their inputs one by one in
// correlation_window_inputs, its waiting inputs in correlation_waiting and its groups' event clocks in
// correlation_clocks (migration 25). Every statement reads or writes the rows a chunk names, or expired ones by index.
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
  group_hash: string;
  group_id: string;
  group_key: string;
  first_input: number;
  next_input: number;
};

export type InputRow = {
  member: number;
  group_hash: string;
  input: string;
};

export interface WindowWrite extends WindowKey {
  id: string;
  key: string;
  newest: number;
  first: number;
  next: number;
}

export interface InputWrite extends WindowKey {
  n: number;
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

/** Drops a correlation's windows, clocks and waiting inputs (its rules or options changed). */
export async function clearParts(tx: Queryable, ruleId: string): Promise<void> {
  await tx.query('DELETE FROM correlation_windows WHERE rule_id = $1', [ruleId]);
  await tx.query('DELETE FROM correlation_window_inputs WHERE rule_id = $1', [ruleId]);
  await tx.query('DELETE FROM correlation_waiting WHERE rule_id = $1', [ruleId]);
  await tx.query('DELETE FROM correlation_clocks WHERE rule_id = $1', [ruleId]);
}

/** Every window of a correlation (a head of an older version is upgraded whole). */
export async function readAllWindows(tx: Queryable, ruleId: string): Promise<WindowRow[]> {
  return tx.query<WindowRow>(`SELECT ${WINDOW_COLUMNS} FROM correlation_windows w WHERE w.rule_id = $1`, [ruleId]);
}

/** Every waiting input of a correlation, in (time, sequence) order. */
export async function readAllWaiting(tx: Queryable, ruleId: string): Promise<string[]> {
  return (await tx.query<{ input: string }>('SELECT input FROM correlation_waiting WHERE rule_id = $1 ORDER BY event_time, seq', [ruleId])).map((r) => r.input);
}

export type ClockRow = { clock_id: string; clock: string };

/** The clocks of these identities (by hash) that exist. */
export async function readClocks(tx: Queryable, ruleId: string, hashes: string[]): Promise<ClockRow[]> {
  if (hashes.length === 0) return [];
  return tx.query<ClockRow>('SELECT clock_id, clock FROM correlation_clocks WHERE rule_id = $1 AND clock_hash = ANY($2::text[])', [ruleId, hashes]);
}

export async function writeClocks(tx: Queryable, ruleId: string, clocks: { hash: string; id: string; newest: number; text: string }[]): Promise<void> {
  if (clocks.length === 0) return;
  await tx.query(
    `INSERT INTO correlation_clocks (rule_id, clock_hash, clock_id, newest, clock)
     SELECT $1, clock_hash, clock_id, newest, clock FROM unnest($2::text[], $3::text[], $4::float8[], $5::text[]) AS s (clock_hash, clock_id, newest, clock)
     ON CONFLICT (rule_id, clock_hash) DO UPDATE SET newest = EXCLUDED.newest, clock = EXCLUDED.clock`,
    [ruleId, clocks.map((c) => c.hash), clocks.map((c) => c.id), clocks.map((c) => c.newest), clocks.map((c) => c.text)],
  );
}

export async function deleteClocks(tx: Queryable, ruleId: string, hashes: string[]): Promise<void> {
  if (hashes.length === 0) return;
  await tx.query('DELETE FROM correlation_clocks WHERE rule_id = $1 AND clock_hash = ANY($2::text[])', [ruleId, hashes]);
}

/** Forgets the clocks older than `before` with nothing waiting on them (their groups fell silent long ago). */
export async function forgetStaleClocks(tx: Queryable, ruleId: string, before: number): Promise<void> {
  await tx.query(
    `DELETE FROM correlation_clocks c WHERE c.rule_id = $1 AND c.newest < $2
       AND NOT EXISTS (SELECT 1 FROM correlation_waiting w WHERE w.rule_id = $1 AND w.clock_hash = c.clock_hash)`,
    [ruleId, before],
  );
}

/** The waiting inputs on these clocks (by hash). */
export async function readWaitingOn(tx: Queryable, ruleId: string, hashes: string[]): Promise<string[]> {
  if (hashes.length === 0) return [];
  return (await tx.query<{ input: string }>('SELECT input FROM correlation_waiting WHERE rule_id = $1 AND clock_hash = ANY($2::text[])', [ruleId, hashes])).map((r) => r.input);
}

/** The correlations with waiting inputs that arrived at or before `arrivedBy` (wall clock, ms). */
export async function correlationsDue(db: Queryable, arrivedBy: number): Promise<string[]> {
  return (await db.query<{ rule_id: string }>('SELECT DISTINCT rule_id FROM correlation_waiting WHERE arrival <= $1', [arrivedBy])).map((r) => r.rule_id);
}

/** Deletes the windows whose newest input is older than their member's bound; answers how many per member. */
export async function expireWindows(tx: Queryable, ruleId: string, bounds: { member: number; before: number }[]): Promise<Map<number, number>> {
  const gone = new Map<number, number>();
  if (bounds.length === 0) return gone;
  const rows = await tx.query<{ member: number; n: number }>(
    `WITH gone AS (
       DELETE FROM correlation_windows w USING unnest($2::int[], $3::float8[]) AS b (member, before)
       WHERE w.rule_id = $1 AND w.member = b.member AND w.newest < b.before RETURNING w.member, w.group_hash),
     inputs AS (
       DELETE FROM correlation_window_inputs i USING gone WHERE i.rule_id = $1 AND i.member = gone.member AND i.group_hash = gone.group_hash)
     SELECT member, count(*)::int AS n FROM gone GROUP BY member`,
    [ruleId, bounds.map((b) => b.member), bounds.map((b) => b.before)],
  );
  for (const r of rows) gone.set(r.member, r.n);
  return gone;
}

const WINDOW_COLUMNS = 'w.member, w.group_hash, w.group_id, w.group_key, w.first_input, w.next_input';

/** The windows of these keys that exist. */
export async function readWindows(tx: Queryable, ruleId: string, keys: WindowKey[]): Promise<WindowRow[]> {
  if (keys.length === 0) return [];
  return tx.query<WindowRow>(
    `SELECT ${WINDOW_COLUMNS} FROM correlation_windows w
     JOIN unnest($2::int[], $3::text[]) AS k (member, group_hash) ON w.member = k.member AND w.group_hash = k.group_hash
     WHERE w.rule_id = $1`,
    [ruleId, keys.map((k) => k.member), keys.map((k) => k.hash)],
  );
}

/** A member's windows whose newest input is older than `before` (those a sweep at the group cap may drop). */
export async function readExpiring(tx: Queryable, ruleId: string, member: number, before: number): Promise<WindowRow[]> {
  return tx.query<WindowRow>(`SELECT ${WINDOW_COLUMNS} FROM correlation_windows w WHERE w.rule_id = $1 AND w.member = $2 AND w.newest < $3`, [ruleId, member, before]);
}

/** The live inputs of these windows, in order. */
export async function readInputs(tx: Queryable, ruleId: string, windows: { member: number; hash: string; first: number }[]): Promise<InputRow[]> {
  if (windows.length === 0) return [];
  return tx.query<InputRow>(
    `SELECT i.member, i.group_hash, i.input FROM correlation_window_inputs i
     JOIN unnest($2::int[], $3::text[], $4::bigint[]) AS k (member, group_hash, first) ON i.member = k.member AND i.group_hash = k.group_hash AND i.n >= k.first
     WHERE i.rule_id = $1 ORDER BY i.member, i.group_hash, i.n`,
    [ruleId, windows.map((w) => w.member), windows.map((w) => w.hash), windows.map((w) => w.first)],
  );
}

export async function writeInputs(tx: Queryable, ruleId: string, inputs: InputWrite[]): Promise<void> {
  if (inputs.length === 0) return;
  await tx.query(
    `INSERT INTO correlation_window_inputs (rule_id, member, group_hash, n, input)
     SELECT $1, member, group_hash, n, input FROM unnest($2::int[], $3::text[], $4::bigint[], $5::text[]) AS s (member, group_hash, n, input)`,
    [ruleId, inputs.map((i) => i.member), inputs.map((i) => i.hash), inputs.map((i) => i.n), inputs.map((i) => i.text)],
  );
}

/** Deletes the inputs of these windows numbered below `first` (cut off from the window). */
export async function dropInputs(tx: Queryable, ruleId: string, windows: { member: number; hash: string; first: number }[]): Promise<void> {
  if (windows.length === 0) return;
  await tx.query(
    `DELETE FROM correlation_window_inputs i USING unnest($2::int[], $3::text[], $4::bigint[]) AS k (member, group_hash, first)
     WHERE i.rule_id = $1 AND i.member = k.member AND i.group_hash = k.group_hash AND i.n < k.first`,
    [ruleId, windows.map((w) => w.member), windows.map((w) => w.hash), windows.map((w) => w.first)],
  );
}

export async function writeWindows(tx: Queryable, ruleId: string, windows: WindowWrite[]): Promise<void> {
  if (windows.length === 0) return;
  await tx.query(
    `INSERT INTO correlation_windows (rule_id, member, group_hash, group_id, group_key, newest, first_input, next_input)
     SELECT $1, member, group_hash, group_id, group_key, newest, first_input, next_input
     FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::float8[], $7::bigint[], $8::bigint[]) AS s (member, group_hash, group_id, group_key, newest, first_input, next_input)
     ON CONFLICT (rule_id, member, group_hash) DO UPDATE
       SET group_key = EXCLUDED.group_key, newest = EXCLUDED.newest, first_input = EXCLUDED.first_input, next_input = EXCLUDED.next_input`,
    [ruleId, windows.map((w) => w.member), windows.map((w) => w.hash), windows.map((w) => w.id), windows.map((w) => w.key), windows.map((w) => w.newest), windows.map((w) => w.first), windows.map((w) => w.next)],
  );
}

/** Deletes these windows with their inputs. */
export async function deleteWindows(tx: Queryable, ruleId: string, keys: WindowKey[]): Promise<void> {
  if (keys.length === 0) return;
  const params = [ruleId, keys.map((k) => k.member), keys.map((k) => k.hash)];
  await tx.query(
    `DELETE FROM correlation_windows w USING unnest($2::int[], $3::text[]) AS k (member, group_hash)
     WHERE w.rule_id = $1 AND w.member = k.member AND w.group_hash = k.group_hash`,
    params,
  );
  await tx.query(
    `DELETE FROM correlation_window_inputs i USING unnest($2::int[], $3::text[]) AS k (member, group_hash)
     WHERE i.rule_id = $1 AND i.member = k.member AND i.group_hash = k.group_hash`,
    params,
  );
}

/** The waiting inputs that arrived at or before `arrivedBy` and the `oldest` first, in (time, sequence) order. */
export async function readWaiting(tx: Queryable, ruleId: string, arrivedBy: number, oldest: number): Promise<string[]> {
  const rows = await tx.query<{ input: string }>(
    `SELECT input FROM (
       (SELECT seq, event_time, input FROM correlation_waiting WHERE rule_id = $1 AND arrival <= $2::float8)
       UNION
       (SELECT seq, event_time, input FROM correlation_waiting WHERE rule_id = $1 ORDER BY event_time, seq LIMIT $3)
     ) AS w ORDER BY event_time, seq`,
    [ruleId, arrivedBy, oldest],
  );
  return rows.map((r) => r.input);
}

export async function writeWaiting(tx: Queryable, ruleId: string, inputs: { seq: number; t: number; clock: string; arrival: number; text: string }[]): Promise<void> {
  if (inputs.length === 0) return;
  await tx.query(
    `INSERT INTO correlation_waiting (rule_id, seq, event_time, clock_hash, arrival, input)
     SELECT $1, seq, event_time, clock_hash, arrival, input FROM unnest($2::bigint[], $3::float8[], $4::text[], $5::float8[], $6::text[]) AS s (seq, event_time, clock_hash, arrival, input)`,
    [ruleId, inputs.map((i) => i.seq), inputs.map((i) => i.t), inputs.map((i) => i.clock), inputs.map((i) => i.arrival), inputs.map((i) => i.text)],
  );
}

export async function deleteWaiting(tx: Queryable, ruleId: string, seqs: number[]): Promise<void> {
  if (seqs.length === 0) return;
  await tx.query('DELETE FROM correlation_waiting WHERE rule_id = $1 AND seq = ANY($2::bigint[])', [ruleId, seqs]);
}

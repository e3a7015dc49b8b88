// SQL for alert suppression: the locks that order writers of one group, the open alert a group's new
// matches fold into, the events an alert took (linked once each, whatever is re-delivered) and the
// count and time of its latest match.
import type { Queryable } from '../db/database.js';

/** A group of a rule with suppression, and how long its alerts take further matches. */
export interface GroupWindow {
  ruleId: string;
  key: string;
  windowSeconds: number;
}

/** An event an alert took: its own first one, or a match folded into it. */
export interface LinkedEvent {
  alertId: string;
  ruleId: string;
  indexPatternId: string;
  eventHash: string;
  eventTime: Date;
}

/** Holds, until the transaction ends, one lock per group (in one order, so writers never deadlock). */
export async function lockGroups(tx: Queryable, groupKeys: string[]): Promise<void> {
  if (groupKeys.length === 0) return;
  await tx.query(
    `SELECT count(pg_advisory_xact_lock(h)) FROM (SELECT hashtextextended(k, 7) AS h FROM unnest($1::text[]) AS k ORDER BY 1) AS ordered`,
    [[...new Set(groupKeys)]],
  );
}

/** The open alert (new or acknowledged, younger than its window) of each group that has one, by `${rule}:${key}`. */
export async function openAlertsOf(tx: Queryable, groups: GroupWindow[]): Promise<Map<string, string>> {
  if (groups.length === 0) return new Map();
  const rows = await tx.query<{ id: string; rule_id: string; suppression_key: string }>(
    `SELECT DISTINCT ON (a.rule_id, a.suppression_key) a.id, a.rule_id, a.suppression_key
       FROM unnest($1::uuid[], $2::text[], $3::int[]) AS g (rule_id, key, window_seconds)
       JOIN alerts a ON a.rule_id = g.rule_id AND a.suppression_key = g.key
      WHERE a.status IN ('new', 'acknowledged') AND a.created_at > now() - make_interval(secs => g.window_seconds)
      ORDER BY a.rule_id, a.suppression_key, a.created_at DESC, a.id DESC`,
    [groups.map((g) => g.ruleId), groups.map((g) => g.key), groups.map((g) => g.windowSeconds)],
  );
  return new Map(rows.map((r) => [`${r.rule_id}:${r.suppression_key}`, r.id]));
}

/** Which of these (rule, index pattern, event) raised an alert already, as `${rule}:${event hash}`. */
export async function alreadyRaised(tx: Queryable, keys: { ruleId: string; indexPatternId: string; eventHash: string }[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await tx.query<{ rule_id: string; event_hash: string }>(
    `SELECT a.rule_id, a.event_hash FROM unnest($1::uuid[], $2::uuid[], $3::text[]) AS k (rule_id, index_pattern_id, event_hash)
       JOIN alerts a ON a.rule_id = k.rule_id AND a.index_pattern_id = k.index_pattern_id AND a.event_hash = k.event_hash`,
    [keys.map((k) => k.ruleId), keys.map((k) => k.indexPatternId), keys.map((k) => k.eventHash)],
  );
  return new Set(rows.map((r) => `${r.rule_id}:${r.event_hash}`));
}

/** Links events to their alerts; answers, per alert, how many of them were not linked before. */
export async function linkEvents(tx: Queryable, events: LinkedEvent[]): Promise<Map<string, number>> {
  if (events.length === 0) return new Map();
  const rows = await tx.query<{ alert_id: string }>(
    `INSERT INTO alert_events (alert_id, rule_id, index_pattern_id, event_hash, event_time)
     SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::timestamptz[])
     ON CONFLICT (rule_id, index_pattern_id, event_hash) DO NOTHING RETURNING alert_id`,
    [events.map((e) => e.alertId), events.map((e) => e.ruleId), events.map((e) => e.indexPatternId), events.map((e) => e.eventHash), events.map((e) => e.eventTime)],
  );
  const added = new Map<string, number>();
  for (const r of rows) added.set(r.alert_id, (added.get(r.alert_id) ?? 0) + 1);
  return added;
}

/** Adds matches to alerts (how many each) and moves their last seen time to now. */
export async function addOccurrences(tx: Queryable, added: Map<string, number>): Promise<void> {
  if (added.size === 0) return;
  await tx.query(
    `UPDATE alerts SET occurrences = alerts.occurrences + d.n, last_seen_at = clock_timestamp()
       FROM unnest($1::uuid[], $2::int[]) AS d (id, n) WHERE alerts.id = d.id`,
    [[...added.keys()], [...added.values()]],
  );
}

/** The first events an alert took (at most `limit`), oldest first; none for an alert without suppression. */
export async function linkedEventIds(db: Queryable, alertId: string, limit: number): Promise<string[]> {
  const rows = await db.query<{ event_hash: string }>('SELECT event_hash FROM alert_events WHERE alert_id = $1 ORDER BY seen_at, event_hash LIMIT $2', [alertId, limit]);
  return rows.map((r) => r.event_hash);
}

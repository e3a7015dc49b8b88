// SQL for deliveries: claiming the due ones under a lease (FOR UPDATE SKIP LOCKED, so instances sharing
// one PostgreSQL never claim the same delivery; a lease left by a stopped instance expires and the
// delivery is claimed again), recording each attempt's outcome (only by the lease's holder, so an
// instance whose lease was taken over records nothing), handing back a claim not attempted in time, the throttle's count, the digests of
// what the throttle held back, and a retry by hand.
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/database.js';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'held' | 'digested';
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'failed', 'held', 'digested'];

export interface DeliveryRow {
  id: string;
  channel_id: string;
  alert_id: string | null;
  rule_id: string | null;
  kind: 'alert' | 'digest' | 'test';
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date;
  give_up_at: Date;
  last_error: string | null;
  last_status_code: number | null;
  digest: Record<string, unknown> | null;
  created_at: Date;
  updated_at: Date;
  delivered_at: Date | null;
  [key: string]: unknown;
}

export const DELIVERY_COLUMNS = `id, channel_id, alert_id, rule_id, kind, status, attempts, next_attempt_at, give_up_at, last_error, last_status_code, digest,
  created_at, updated_at, delivered_at`;

/** How long a claimed delivery stays with the instance that claimed it. */
export const LEASE_SECONDS = 60;

/** Claims up to `limit` due deliveries for the instance `holder`, answered in creation order; each claim counts as an attempt. */
export async function claimDue(db: Queryable, limit: number, holder: string): Promise<DeliveryRow[]> {
  return db.query<DeliveryRow>(
    `WITH claimed AS (
       UPDATE notification_deliveries SET leased_until = now() + make_interval(secs => ${LEASE_SECONDS}), leased_by = $2, attempts = attempts + 1, updated_at = now()
        WHERE id IN (SELECT id FROM notification_deliveries
                      WHERE status = 'pending' AND next_attempt_at <= now() AND (leased_until IS NULL OR leased_until < now())
                      ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING ${DELIVERY_COLUMNS})
     SELECT * FROM claimed ORDER BY created_at, id`,
    [limit, holder],
  );
}

/** What became of a claimed delivery: sent, failed (tried again after `retryInSeconds`, or given up when
 * that is null or past its give-up time), held back by the throttle for the rule's digest, or handed back
 * unattempted (its lease would end before an attempt could: due again at once, the claim not counted). */
export type Outcome =
  | { id: string; kind: 'delivered'; statusCode: number | null }
  | { id: string; kind: 'failed'; error: string; statusCode: number | null; retryInSeconds: number | null }
  | { id: string; kind: 'held' | 'released' };

/**
 * Records outcomes in one statement (one commit, one sync of the embedded database's log for the lot),
 * each only if `holder` still holds its lease: an instance whose lease was taken over records nothing.
 */
export async function recordOutcomes(db: Queryable, holder: string, outcomes: Outcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  const column = <T>(pick: (o: Outcome) => T | null) => outcomes.map((o) => pick(o));
  await db.query(
    `UPDATE notification_deliveries d
        SET status = CASE o.kind WHEN 'delivered' THEN 'delivered' WHEN 'failed' THEN
                       CASE WHEN o.retry IS NULL OR now() + make_interval(secs => o.retry) > d.give_up_at THEN 'failed' ELSE 'pending' END
                     ELSE CASE o.kind WHEN 'held' THEN 'held' ELSE 'pending' END END,
            delivered_at = CASE WHEN o.kind = 'delivered' THEN now() ELSE d.delivered_at END,
            next_attempt_at = CASE WHEN o.kind = 'failed' AND o.retry IS NOT NULL THEN now() + make_interval(secs => o.retry) ELSE d.next_attempt_at END,
            attempts = CASE WHEN o.kind IN ('held', 'released') THEN d.attempts - 1 ELSE d.attempts END,
            last_error = CASE o.kind WHEN 'delivered' THEN NULL WHEN 'failed' THEN o.error ELSE d.last_error END,
            last_status_code = CASE WHEN o.kind IN ('delivered', 'failed') THEN o.code ELSE d.last_status_code END,
            leased_until = NULL, leased_by = NULL, updated_at = now()
       FROM unnest($2::uuid[], $3::text[], $4::text[], $5::int[], $6::float8[]) AS o(id, kind, error, code, retry)
      WHERE d.id = o.id AND d.leased_by = $1 AND d.status = 'pending'`,
    [
      holder,
      column((o) => o.id),
      column((o) => o.kind),
      column((o) => (o.kind === 'failed' ? o.error.slice(0, 1000) : null)),
      column((o) => (o.kind === 'delivered' || o.kind === 'failed' ? o.statusCode : null)),
      column((o) => (o.kind === 'failed' ? o.retryInSeconds : null)),
    ],
  );
}

/**
 * Messages of this rule the channel sent, is sending or gave up on within the window, before this
 * delivery (in creation order, so of several claimed together the first ones go out): the throttle's
 * count, counted up to `upTo` (all the throttle needs to know).
 */
export async function sentBefore(db: Queryable, delivery: Pick<DeliveryRow, 'id' | 'channel_id' | 'rule_id'>, windowSeconds: number, upTo: number): Promise<number> {
  // The order is compared in SQL: a JavaScript Date would drop the microseconds of created_at.
  const [row] = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (
       SELECT 1 FROM notification_deliveries d, (SELECT created_at, id FROM notification_deliveries WHERE id = $4) AS this
        WHERE d.channel_id = $1 AND d.rule_id = $2 AND d.kind = 'alert' AND d.created_at > now() - make_interval(secs => $3)
          AND (d.created_at, d.id) < (this.created_at, this.id)
          AND (d.status IN ('delivered', 'failed') OR (d.status = 'pending' AND d.attempts > 0))
        LIMIT $5) AS counted`,
    [delivery.channel_id, delivery.rule_id, windowSeconds, delivery.id, upTo],
  );
  return row.n;
}

/**
 * Turns what the throttle held back into digests: for each channel and rule whose oldest held delivery
 * is a window old, one digest delivery counting them (and their hosts), the held ones marked digested.
 */
export async function digestHeld(db: Queryable): Promise<number> {
  const rows = await db.query(
    `WITH due AS (
       SELECT d.channel_id, d.rule_id, min(d.created_at) AS window_start, max(d.created_at) AS window_end, count(*)::int AS held,
              count(DISTINCT a.host)::int AS hosts, max(a.rule_title) AS rule_title, array_agg(d.id) AS ids
         FROM notification_deliveries d JOIN notification_channels c ON c.id = d.channel_id
         LEFT JOIN alerts a ON a.id = d.alert_id
        WHERE d.status = 'held'
        GROUP BY d.channel_id, d.rule_id, c.throttle_window_seconds
       HAVING min(d.created_at) <= now() - make_interval(secs => c.throttle_window_seconds)
     ),
     marked AS (UPDATE notification_deliveries SET status = 'digested', updated_at = now() WHERE id IN (SELECT unnest(ids) FROM due) RETURNING 1)
     INSERT INTO notification_deliveries (id, channel_id, rule_id, kind, digest)
     SELECT gen_random_uuid(), channel_id, rule_id, 'digest',
            jsonb_build_object('rule_title', rule_title, 'held', held, 'hosts', hosts, 'window_start', window_start, 'window_end', window_end)
       FROM due RETURNING id`,
  );
  return rows.length;
}

/** A test message's delivery, recorded with its outcome. */
export async function recordTestDelivery(db: Queryable, channelId: string, error: string | null, statusCode: number | null): Promise<DeliveryRow> {
  const [row] = await db.query<DeliveryRow>(
    `INSERT INTO notification_deliveries (id, channel_id, kind, status, attempts, last_error, last_status_code, delivered_at)
     VALUES ($1, $2, 'test', $3, 1, $4, $5, CASE WHEN $4::text IS NULL THEN now() END) RETURNING ${DELIVERY_COLUMNS}`,
    [randomUUID(), channelId, error === null ? 'delivered' : 'failed', error, statusCode],
  );
  return row;
}

/** Sends a failed delivery again now, with a new day to succeed in; answers it, or undefined when it is not a failed one. */
export async function findDelivery(db: Queryable, channelId: string, id: string): Promise<DeliveryRow | undefined> {
  const [row] = await db.query<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM notification_deliveries WHERE id = $1 AND channel_id = $2`, [id, channelId]);
  return row;
}

export async function retryDelivery(db: Queryable, channelId: string, id: string): Promise<DeliveryRow | undefined> {
  const [row] = await db.query<DeliveryRow>(
    `UPDATE notification_deliveries SET status = 'pending', next_attempt_at = now(), give_up_at = now() + interval '24 hours', leased_until = NULL, updated_at = now()
      WHERE id = $1 AND channel_id = $2 AND kind <> 'test' AND status = 'failed' RETURNING ${DELIVERY_COLUMNS}`,
    [id, channelId],
  );
  return row;
}

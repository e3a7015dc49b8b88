// SQL over the alert change log (`alert_changes`, written by a trigger on every new alert and status
// change): the latest sequence number, and changes after a point joined with the alert's current
// fields into the compact summary live streams send.
import type { Queryable } from '../db/database.js';

/** The NOTIFY channel the change-log trigger wakes listeners on (see migration 004). */
export const ALERT_CHANGES_CHANNEL = 'vigil_alert_changes';

export interface AlertSummary {
  id: string;
  rule_id: string;
  rule_title: string;
  severity: string;
  /** The status this change set (the alert may have moved on since). */
  status: string;
  created_at: string;
  updated_at: string;
  host?: string;
  user?: string;
  source_ip?: string;
  acknowledged_at?: string;
  acknowledged_by?: string;
}

export interface AlertChange {
  seq: number;
  kind: 'created' | 'updated';
  /** Missing when the alert was deleted after the change. */
  alert?: AlertSummary;
}

type ChangeRow = {
  seq: number | string;
  kind: 'created' | 'updated';
  change_status: string;
  id: string | null;
  rule_id: string;
  rule_title: string;
  severity: string;
  created_at: Date | string;
  updated_at: Date | string;
  host: string | null;
  user: string | null;
  source_ip: string | null;
  acknowledged_at: Date | string | null;
  acknowledged_by: string | null;
};

const SELECT_CHANGES = `
  SELECT c.seq, c.kind, c.status AS change_status, a.id, a.rule_id, a.rule_title, a.severity, a.created_at, a.updated_at,
         a.host, a."user", a.source_ip, a.acknowledged_at, a.acknowledged_by
  FROM alert_changes c LEFT JOIN alerts a ON a.id = c.alert_id`;

const iso = (value: Date | string) => (value instanceof Date ? value : new Date(value)).toISOString();

function toChange(row: ChangeRow): AlertChange {
  const change: AlertChange = { seq: Number(row.seq), kind: row.kind };
  if (row.id === null) return change;
  const alert: AlertSummary = {
    id: row.id,
    rule_id: row.rule_id,
    rule_title: row.rule_title,
    severity: row.severity,
    status: row.change_status,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
  if (row.host !== null) alert.host = row.host;
  if (row.user !== null) alert.user = row.user;
  if (row.source_ip !== null) alert.source_ip = row.source_ip;
  if (row.acknowledged_at !== null) alert.acknowledged_at = iso(row.acknowledged_at);
  if (row.acknowledged_by !== null) alert.acknowledged_by = row.acknowledged_by;
  change.alert = alert;
  return change;
}

/** The sequence number of the latest committed change (0 when there is none). */
export async function latestChangeSeq(db: Queryable): Promise<number> {
  const [row] = await db.query<{ seq: number | string }>('SELECT COALESCE(max(seq), 0) AS seq FROM alert_changes');
  return Number(row.seq);
}

/** Up to `limit` changes with a sequence number above `after`, oldest first. */
export async function changesAfter(db: Queryable, after: number, limit: number): Promise<AlertChange[]> {
  const rows = await db.query<ChangeRow>(`${SELECT_CHANGES} WHERE c.seq > $1 ORDER BY c.seq LIMIT $2`, [after, limit]);
  return rows.map(toChange);
}

/** The newest `limit` changes in (after, upTo], oldest first. */
export async function latestChangesBetween(db: Queryable, after: number, upTo: number, limit: number): Promise<AlertChange[]> {
  const rows = await db.query<ChangeRow>(`${SELECT_CHANGES} WHERE c.seq > $1 AND c.seq <= $2 ORDER BY c.seq DESC LIMIT $3`, [after, upTo, limit]);
  return rows.map(toChange).reverse();
}

// Alert triage: the status state machine (new → acknowledged → resolved | false_positive, and any
// status back to new), single and bulk status changes, and comments. Each change runs in one
// transaction that locks the alerts it changes (SELECT … FOR UPDATE), so concurrent changes to one
// alert are applied one after the other, each checked against the state the previous one left: of two
// analysts acknowledging the same new alert, the first acknowledges it and the second gets the no-op
// answer (the alert is already acknowledged, by the first). Every change is audited in the same transaction.
import { randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../db/database.js';
import { conflict, notFound } from '../http/errors.js';
import { recordAudit } from '../audit/log.js';
import { insertComments, lockAlerts, setStatus, touchAlerts, alertExists, type CommentRow, type TriageRow } from './queries.js';
import type { AlertStatus } from './view.js';

export const ALERT_NOT_FOUND = 'Alert not found';

export interface Actor {
  username: string;
  ip?: string;
}

/** The moves of the spec's table besides "any status → new". */
const FORWARD: Record<AlertStatus, readonly AlertStatus[]> = {
  new: ['acknowledged'],
  acknowledged: ['resolved', 'false_positive'],
  resolved: [],
  false_positive: [],
};

export const invalidTransition = (from: AlertStatus, to: AlertStatus) => `Invalid status transition from ${from} to ${to}`;

/** 'same' when the alert already has the status (a no-op), 'move' for an allowed move, else the refusal. */
export function transition(from: AlertStatus, to: AlertStatus): 'same' | 'move' | { refused: string } {
  if (from === to) return 'same';
  if (to === 'new' || FORWARD[from].includes(to)) return 'move';
  return { refused: invalidTransition(from, to) };
}

export interface StatusChangeResult {
  id: string;
  status: AlertStatus;
  acknowledged_at: string | null;
  acknowledged_by: string | null;
  comment_added: boolean;
}

const resultOf = (row: TriageRow, commentAdded: boolean): StatusChangeResult => ({
  id: row.id,
  status: row.status,
  acknowledged_at: row.acknowledged_at ? row.acknowledged_at.toISOString() : null,
  acknowledged_by: row.acknowledged_by,
  comment_added: commentAdded,
});

interface Applied {
  /** Alerts whose status moved (old status by id). */
  moved: Map<string, AlertStatus>;
  /** New triage state of every alert handled (moved or already in the status). */
  rows: Map<string, TriageRow>;
}

/**
 * Applies a status change to locked alerts (`current`, all allowed), stores the comment on each, bumps
 * updated_at and records one audit entry per alert: `alert.status_changed` for a move,
 * `alert.comment_added` for a comment on an alert already in the status.
 */
async function apply(tx: Queryable, actor: Actor, current: TriageRow[], status: AlertStatus, comment: string | undefined, bulk: boolean): Promise<Applied> {
  const moved = new Map(current.filter((row) => row.status !== status).map((row) => [row.id, row.status] as const));
  const rows = new Map(current.map((row) => [row.id, row]));
  for (const row of await setStatus(tx, [...moved.keys()], status, actor.username)) rows.set(row.id, row);
  const comments = comment === undefined ? [] : await insertComments(tx, current.map((row) => ({ id: randomUUID(), alertId: row.id, user: actor.username, text: comment })));
  const commentOf = new Map(comments.map((c) => [c.alert_id, c.id]));
  await touchAlerts(tx, current.filter((row) => !moved.has(row.id) && commentOf.has(row.id)).map((row) => row.id));
  for (const row of current) {
    const commentId = commentOf.get(row.id);
    const from = moved.get(row.id);
    if (from === undefined && commentId === undefined) continue;
    await recordAudit(tx, {
      actor: actor.username,
      action: from !== undefined ? 'alert.status_changed' : 'alert.comment_added',
      targetType: 'alert',
      targetId: row.id,
      details: {
        ...(from !== undefined ? { from, to: status } : {}),
        ...(commentId !== undefined ? { comment_id: commentId } : {}),
        ...(bulk ? { bulk: true } : {}),
      },
      ip: actor.ip,
    });
  }
  return { moved, rows };
}

/** PATCH /api/alerts/{id}: one alert's status (and an optional comment). */
export async function changeStatus(db: Database, actor: Actor, id: string, status: AlertStatus, comment?: string): Promise<StatusChangeResult> {
  return db.transaction(async (tx) => {
    const [current] = await lockAlerts(tx, [id]);
    if (!current) throw notFound(ALERT_NOT_FOUND);
    const step = transition(current.status, status);
    if (typeof step === 'object') throw conflict(step.refused);
    const { rows } = await apply(tx, actor, [current], status, comment, false);
    return resultOf(rows.get(current.id)!, comment !== undefined);
  });
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * POST /api/alerts/bulk/status: each id on its own merits, in one transaction. Unknown ids and moves
 * outside the state machine go to `failed`; the others are applied. An alert already in the requested
 * status counts as updated (it is where the request wants it; its comment is stored, nothing else changes).
 * Repeated ids are handled once.
 */
export async function bulkChangeStatus(db: Database, actor: Actor, ids: string[], status: AlertStatus, comment?: string) {
  // Each alert once, however its id is spelt (UUIDs compare case-insensitively); answers name ids as sent.
  const requested = new Map<string, string>();
  for (const id of ids) {
    const key = UUID_RE.test(id) ? id.toLowerCase() : id;
    if (!requested.has(key)) requested.set(key, id);
  }
  const valid = [...requested.keys()].filter((key) => UUID_RE.test(key));
  return db.transaction(async (tx) => {
    const locked = new Map((await lockAlerts(tx, valid)).map((row) => [row.id, row]));
    const failed: { id: string; error: string }[] = [];
    const allowed: TriageRow[] = [];
    for (const [key, id] of requested) {
      const row = locked.get(key);
      if (!row) {
        failed.push({ id, error: ALERT_NOT_FOUND });
        continue;
      }
      const step = transition(row.status, status);
      if (typeof step === 'object') failed.push({ id, error: step.refused });
      else allowed.push(row);
    }
    await apply(tx, actor, allowed, status, comment, true);
    return { updated: allowed.length, failed };
  });
}

/** POST /api/alerts/{id}/comments: a comment; the status is unchanged. */
export async function addComment(db: Database, actor: Actor, alertId: string, text: string): Promise<CommentRow> {
  return db.transaction(async (tx) => {
    const [current] = await lockAlerts(tx, [alertId]);
    if (!current) throw notFound(ALERT_NOT_FOUND);
    const [comment] = await insertComments(tx, [{ id: randomUUID(), alertId, user: actor.username, text }]);
    await touchAlerts(tx, [alertId]);
    await recordAudit(tx, {
      actor: actor.username,
      action: 'alert.comment_added',
      targetType: 'alert',
      targetId: alertId,
      details: { comment_id: comment.id },
      ip: actor.ip,
    });
    return comment;
  });
}

/** Throws 404 unless the alert exists. */
export async function alertMustExist(db: Queryable, id: string): Promise<void> {
  if (!(await alertExists(db, id))) throw notFound(ALERT_NOT_FOUND);
}

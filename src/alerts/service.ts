// Alert triage: the status state machine (new → acknowledged → resolved | false_positive, and any
// status back to new; a close of a new alert may go through acknowledged in one request), assignees,
// single and bulk changes, and comments. Each change runs in one
// transaction that locks the alerts it changes (SELECT … FOR UPDATE), so concurrent changes to one
// alert are applied one after the other, each checked against the state the previous one left: of two
// analysts acknowledging the same new alert, the first acknowledges it and the second gets the no-op
// answer (the alert is already acknowledged, by the first). Every change is audited in the same transaction.
import { randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../db/database.js';
import { conflict, notFound } from '../http/errors.js';
import { recordAudit } from '../audit/log.js';
import { insertComments, lockAlerts, setAssignee, setStatus, touchAlerts, alertExists, type CommentRow, type TriageRow } from './queries.js';
import type { AlertStatus } from './view.js';

export const ALERT_NOT_FOUND = 'Alert not found';

export interface Actor {
  username: string;
  ip?: string;
  /** The signed-in user's id and their choice to take the alerts they acknowledge. */
  userId?: string;
  assignOnAcknowledge?: boolean;
}

/** What a triage request changes: a status, an assignee (null: no one), a comment, in any mix. */
export interface TriageChange {
  status?: AlertStatus;
  assignee?: string | null;
  comment?: string;
  /** New alerts asked to be resolved or marked false positives are acknowledged first (both moves recorded). */
  acknowledgeFirst?: boolean;
}

/** The moves of the spec's table besides "any status → new". */
const FORWARD: Record<AlertStatus, readonly AlertStatus[]> = {
  new: ['acknowledged'],
  acknowledged: ['resolved', 'false_positive'],
  resolved: [],
  false_positive: [],
};

export const invalidTransition = (from: AlertStatus, to: AlertStatus) => `Invalid status transition from ${from} to ${to}`;

/** Whether a close of a new alert goes through acknowledged (when the request asks for it). */
const throughAcknowledged = (from: AlertStatus, to: AlertStatus, acknowledgeFirst = false) => acknowledgeFirst && from === 'new' && FORWARD.acknowledged.includes(to);

/** 'same' when the alert already has the status (a no-op), 'move' for an allowed move, else the refusal. */
export function transition(from: AlertStatus, to: AlertStatus, acknowledgeFirst = false): 'same' | 'move' | { refused: string } {
  if (from === to) return 'same';
  if (to === 'new' || FORWARD[from].includes(to) || throughAcknowledged(from, to, acknowledgeFirst)) return 'move';
  return { refused: invalidTransition(from, to) };
}

export interface StatusChangeResult {
  id: string;
  status: AlertStatus;
  acknowledged_at: string | null;
  acknowledged_by: string | null;
  assignee: string | null;
  comment_added: boolean;
}

const resultOf = (row: TriageRow, commentAdded: boolean): StatusChangeResult => ({
  id: row.id,
  status: row.status,
  acknowledged_at: row.acknowledged_at ? row.acknowledged_at.toISOString() : null,
  acknowledged_by: row.acknowledged_by,
  assignee: row.assignee,
  comment_added: commentAdded,
});

/** How a change is audited: one entry per alert and what changed ('each', 'bulk' marks them as part of a bulk
 * request), or not at all (the caller records one entry for the whole request). */
export type AuditMode = 'each' | 'bulk' | 'none';

interface Applied {
  /** Alerts whose status moved (old status by id). */
  moved: Map<string, AlertStatus>;
  /** New triage state of every alert handled. */
  rows: Map<string, TriageRow>;
}

/** Moves the locked alerts' status: closes of new alerts through acknowledged when asked; answers the old statuses. */
async function moveStatus(tx: Queryable, actor: Actor, current: TriageRow[], change: TriageChange, rows: Map<string, TriageRow>): Promise<{ moved: Map<string, AlertStatus>; viaAcknowledged: Set<string> }> {
  const status = change.status;
  if (status === undefined) return { moved: new Map(), viaAcknowledged: new Set() };
  const moved = new Map(current.filter((row) => row.status !== status).map((row) => [row.id, row.status] as const));
  const via = current.filter((row) => throughAcknowledged(row.status, status, change.acknowledgeFirst)).map((row) => row.id);
  for (const row of await setStatus(tx, via, 'acknowledged', actor.username)) rows.set(row.id, row);
  for (const row of await setStatus(tx, [...moved.keys()], status, actor.username)) rows.set(row.id, row);
  return { moved, viaAcknowledged: new Set(via) };
}

/** The assignee each alert gets: the one asked for, or the acknowledging user when they take what they acknowledge. */
function assigneesOf(actor: Actor, change: TriageChange, current: TriageRow[], acknowledged: Set<string>): Map<string, string | null> {
  const next = new Map<string, string | null>();
  for (const row of current) {
    if (change.assignee !== undefined) {
      if (row.assignee !== change.assignee) next.set(row.id, change.assignee);
    } else if (actor.assignOnAcknowledge && actor.userId && row.assignee === null && acknowledged.has(row.id)) {
      next.set(row.id, actor.userId);
    }
  }
  return next;
}

/**
 * Applies a change to locked alerts (`current`, every status move allowed): the status (through
 * acknowledged when asked), the assignee, a comment on each; bumps updated_at; audits as `audit` says:
 * `alert.status_changed` per move, `alert.assigned` per new assignee, `alert.comment_added` for a comment
 * on an alert whose status did not move.
 */
export async function applyChange(tx: Queryable, actor: Actor, current: TriageRow[], change: TriageChange, audit: AuditMode): Promise<Applied> {
  const rows = new Map(current.map((row) => [row.id, row]));
  const { moved, viaAcknowledged } = await moveStatus(tx, actor, current, change, rows);
  const acknowledged = new Set(current.filter((row) => (moved.has(row.id) && change.status === 'acknowledged') || viaAcknowledged.has(row.id)).map((row) => row.id));
  const assignees = assigneesOf(actor, change, current, acknowledged);
  const byAssignee = new Map<string | null, string[]>();
  for (const [id, to] of assignees) byAssignee.set(to, [...(byAssignee.get(to) ?? []), id]);
  for (const [to, ids] of byAssignee) for (const row of await setAssignee(tx, ids, to)) rows.set(row.id, row);
  const comment = change.comment;
  const comments = comment === undefined ? [] : await insertComments(tx, current.map((row) => ({ id: randomUUID(), alertId: row.id, user: actor.username, text: comment })));
  const commentOf = new Map(comments.map((c) => [c.alert_id, c.id]));
  await touchAlerts(tx, current.filter((row) => !moved.has(row.id) && !assignees.has(row.id) && commentOf.has(row.id)).map((row) => row.id));
  if (audit === 'none') return { moved, rows };
  const bulk = audit === 'bulk' ? { bulk: true } : {};
  for (const row of current) {
    const commentId = commentOf.get(row.id);
    const from = moved.get(row.id);
    const entry = { actor: actor.username, targetType: 'alert', targetId: row.id, ip: actor.ip };
    if (viaAcknowledged.has(row.id)) await recordAudit(tx, { ...entry, action: 'alert.status_changed', details: { from, to: 'acknowledged', ...bulk } });
    if (from !== undefined || commentId !== undefined) {
      await recordAudit(tx, {
        ...entry,
        action: from !== undefined ? 'alert.status_changed' : 'alert.comment_added',
        details: {
          ...(from !== undefined ? { from: viaAcknowledged.has(row.id) ? 'acknowledged' : from, to: change.status } : {}),
          ...(commentId !== undefined ? { comment_id: commentId } : {}),
          ...bulk,
        },
      });
    }
    if (assignees.has(row.id)) await recordAudit(tx, { ...entry, action: 'alert.assigned', details: { from: row.assignee, to: assignees.get(row.id), ...bulk } });
  }
  return { moved, rows };
}

/** Sorts locked alerts into those the change may apply to and the refused (with the reason). */
export function admitted(rows: TriageRow[], change: TriageChange): { allowed: TriageRow[]; refused: Map<string, string> } {
  const allowed: TriageRow[] = [];
  const refused = new Map<string, string>();
  for (const row of rows) {
    const step = change.status === undefined ? 'same' : transition(row.status, change.status, change.acknowledgeFirst);
    if (typeof step === 'object') refused.set(row.id, step.refused);
    else allowed.push(row);
  }
  return { allowed, refused };
}

/** PATCH /api/alerts/{id}: one alert's status and/or assignee (and an optional comment). */
export async function changeStatus(db: Database, actor: Actor, id: string, change: TriageChange): Promise<StatusChangeResult> {
  return db.transaction(async (tx) => {
    const [current] = await lockAlerts(tx, [id]);
    if (!current) throw notFound(ALERT_NOT_FOUND);
    const { refused } = admitted([current], change);
    if (refused.size > 0) throw conflict(refused.get(current.id)!);
    const { rows } = await applyChange(tx, actor, [current], change, 'each');
    return resultOf(rows.get(current.id)!, change.comment !== undefined);
  });
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * POST /api/alerts/bulk/status with ids: each id on its own merits, in one transaction. Unknown ids and
 * moves outside the state machine go to `failed`; the others are applied. An alert already in the
 * requested status counts as updated (it is where the request wants it; its comment is stored, nothing
 * else changes). Repeated ids are handled once.
 */
export async function bulkChangeStatus(db: Database, actor: Actor, ids: string[], change: TriageChange) {
  // Each alert once, however its id is spelt (UUIDs compare case-insensitively); answers name ids as sent.
  const requested = new Map<string, string>();
  for (const id of ids) {
    const key = UUID_RE.test(id) ? id.toLowerCase() : id;
    if (!requested.has(key)) requested.set(key, id);
  }
  const valid = [...requested.keys()].filter((key) => UUID_RE.test(key));
  return db.transaction(async (tx) => {
    const locked = await lockAlerts(tx, valid);
    const found = new Set(locked.map((row) => row.id));
    const { allowed, refused } = admitted(locked, change);
    const failed: { id: string; error: string }[] = [];
    for (const [key, id] of requested) {
      if (!found.has(key)) failed.push({ id, error: ALERT_NOT_FOUND });
      else if (refused.has(key)) failed.push({ id, error: refused.get(key)! });
    }
    await applyChange(tx, actor, allowed, change, 'bulk');
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

// SQL for rule exceptions.
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../db/database.js';
import { Conditions, paginate, type ListQuery, type Page } from '../../http/lists.js';
import type { ExceptionOperator, ExceptionSpec } from './matcher.js';

export interface ExceptionRow {
  id: string;
  rule_id: string;
  field: string;
  operator: ExceptionOperator;
  value: string | string[];
  reason: string;
  enabled: boolean;
  created_by: string;
  created_at: Date;
  updated_at: Date;
  expires_at: Date | null;
  hit_count: number;
  last_hit_at: Date | null;
  [key: string]: unknown;
}

const COLUMNS = 'id, rule_id, field, operator, value, reason, enabled, created_by, created_at, updated_at, expires_at, hit_count::float8 AS hit_count, last_hit_at';

/** A page of a rule's exceptions (oldest first by default). */
export function pageExceptions(db: Queryable, ruleId: string, query: ListQuery): Promise<Page<ExceptionRow>> {
  return paginate<ExceptionRow, ExceptionRow>(db, {
    select: COLUMNS,
    from: 'rule_exceptions',
    where: new Conditions().add('rule_id = ?', ruleId),
    query,
    sortColumns: { created_at: 'created_at', updated_at: 'updated_at', field: 'field', operator: 'operator' },
    tieBreaker: 'id',
    map: (row) => row,
  });
}

/** Every exception of a rule (the enabled ones only, for matching), oldest first. */
export async function listExceptions(db: Queryable, ruleId: string, enabledOnly = false): Promise<ExceptionRow[]> {
  return db.query<ExceptionRow>(
    `SELECT ${COLUMNS} FROM rule_exceptions WHERE rule_id = $1${enabledOnly ? ' AND enabled' : ''} ORDER BY created_at, id`,
    [ruleId],
  );
}

export async function findException(db: Queryable, ruleId: string, id: string): Promise<ExceptionRow | undefined> {
  const [row] = await db.query<ExceptionRow>(`SELECT ${COLUMNS} FROM rule_exceptions WHERE rule_id = $1 AND id = $2`, [ruleId, id]);
  return row;
}

/** Another exception of the rule with the same field, operator and value (case-insensitive). */
export async function findDuplicate(db: Queryable, ruleId: string, spec: { field: string; operator: string; value: unknown }, exceptId?: string): Promise<boolean> {
  const rows = await db.query(
    `SELECT 1 FROM rule_exceptions WHERE rule_id = $1 AND field = $2 AND operator = $3
        AND lower(value::text) = lower($4::jsonb::text) AND id <> COALESCE($5::uuid, '00000000-0000-0000-0000-000000000000'::uuid)`,
    [ruleId, spec.field, spec.operator, JSON.stringify(spec.value), exceptId ?? null],
  );
  return rows.length > 0;
}

export async function insertException(
  db: Queryable,
  e: { ruleId: string; field: string; operator: ExceptionOperator; value: string | string[]; reason: string; enabled: boolean; createdBy: string; expiresAt: string | null },
): Promise<ExceptionRow> {
  const [row] = await db.query<ExceptionRow>(
    `INSERT INTO rule_exceptions (id, rule_id, field, operator, value, reason, enabled, created_by, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${COLUMNS}`,
    [randomUUID(), e.ruleId, e.field, e.operator, JSON.stringify(e.value), e.reason, e.enabled, e.createdBy, e.expiresAt],
  );
  return row;
}

export async function updateException(
  db: Queryable,
  ruleId: string,
  id: string,
  c: Partial<{ field: string; operator: ExceptionOperator; value: string | string[]; reason: string; enabled: boolean; expires_at: string | null }>,
): Promise<ExceptionRow | undefined> {
  // expires_at: absent keeps it, null clears it.
  const [row] = await db.query<ExceptionRow>(
    `UPDATE rule_exceptions SET field = COALESCE($3, field), operator = COALESCE($4, operator), value = COALESCE($5::jsonb, value),
        reason = COALESCE($6, reason), enabled = COALESCE($7, enabled),
        expires_at = CASE WHEN $8::boolean THEN $9::timestamptz ELSE expires_at END, updated_at = now()
      WHERE rule_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [ruleId, id, c.field ?? null, c.operator ?? null, c.value === undefined ? null : JSON.stringify(c.value), c.reason ?? null, c.enabled ?? null, c.expires_at !== undefined, c.expires_at ?? null],
  );
  return row;
}

export async function deleteException(db: Queryable, ruleId: string, id: string): Promise<boolean> {
  return (await db.query('DELETE FROM rule_exceptions WHERE rule_id = $1 AND id = $2 RETURNING id', [ruleId, id])).length > 0;
}

/** The enabled exceptions of a rule, as the matcher takes them (an expired one matches nothing). */
export async function enabledExceptionSpecs(db: Queryable, ruleId: string): Promise<ExceptionSpec[]> {
  return (await listExceptions(db, ruleId, true)).map(specOf);
}

/** An exception row as the matcher takes it. */
export const specOf = (row: ExceptionRow): ExceptionSpec => ({ field: row.field, operator: row.operator, value: row.value, id: row.id, expires_at: row.expires_at ? row.expires_at.toISOString() : null });

/**
 * Adds the matches each exception suppressed (by exception id) to its count, in one statement (an
 * ingested chunk's, in the chunk's transaction); ids of exceptions deleted meanwhile are ignored.
 */
export async function addExceptionHits(db: Queryable, hits: Record<string, number>): Promise<void> {
  const ids = Object.keys(hits).filter((id) => id !== '');
  if (ids.length === 0) return;
  // Rows are locked in id order, so concurrent chunks (on several instances) never wait on each other in a cycle.
  await db.query(
    `WITH locked AS (SELECT id FROM rule_exceptions WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE)
     UPDATE rule_exceptions e SET hit_count = e.hit_count + h.n, last_hit_at = now()
       FROM unnest($1::uuid[], $2::bigint[]) AS h(id, n), locked l WHERE e.id = h.id AND l.id = h.id`,
    [ids, ids.map((id) => hits[id])],
  );
}

/** A page of a rule's open alerts (new or acknowledged) with their stored events, in id order after `afterId`. */
export function openAlertEvents(db: Queryable, ruleId: string, afterId: string | null, limit: number): Promise<{ id: string; event: Record<string, unknown> }[]> {
  return db.query<{ id: string; event: Record<string, unknown> }>(
    `SELECT id, event FROM alerts WHERE rule_id = $1 AND status IN ('new', 'acknowledged') AND id > COALESCE($2::uuid, '00000000-0000-0000-0000-000000000000'::uuid)
      ORDER BY id LIMIT ${Math.floor(limit)}`,
    [ruleId, afterId],
  );
}

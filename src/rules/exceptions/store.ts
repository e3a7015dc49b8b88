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
  [key: string]: unknown;
}

const COLUMNS = 'id, rule_id, field, operator, value, reason, enabled, created_by, created_at, updated_at';

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
  e: { ruleId: string; field: string; operator: ExceptionOperator; value: string | string[]; reason: string; enabled: boolean; createdBy: string },
): Promise<ExceptionRow> {
  const [row] = await db.query<ExceptionRow>(
    `INSERT INTO rule_exceptions (id, rule_id, field, operator, value, reason, enabled, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
    [randomUUID(), e.ruleId, e.field, e.operator, JSON.stringify(e.value), e.reason, e.enabled, e.createdBy],
  );
  return row;
}

export async function updateException(
  db: Queryable,
  ruleId: string,
  id: string,
  c: Partial<{ field: string; operator: ExceptionOperator; value: string | string[]; reason: string; enabled: boolean }>,
): Promise<ExceptionRow | undefined> {
  const [row] = await db.query<ExceptionRow>(
    `UPDATE rule_exceptions SET field = COALESCE($3, field), operator = COALESCE($4, operator), value = COALESCE($5::jsonb, value),
        reason = COALESCE($6, reason), enabled = COALESCE($7, enabled), updated_at = now()
      WHERE rule_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [ruleId, id, c.field ?? null, c.operator ?? null, c.value === undefined ? null : JSON.stringify(c.value), c.reason ?? null, c.enabled ?? null],
  );
  return row;
}

export async function deleteException(db: Queryable, ruleId: string, id: string): Promise<boolean> {
  return (await db.query('DELETE FROM rule_exceptions WHERE rule_id = $1 AND id = $2 RETURNING id', [ruleId, id])).length > 0;
}

/** The enabled exceptions of a rule, as the matcher takes them. */
export async function enabledExceptionSpecs(db: Queryable, ruleId: string): Promise<ExceptionSpec[]> {
  const rows = (await listExceptions(db, ruleId, true)) as ExceptionSpec[];
  return rows.map(({ field, operator, value }) => ({ field, operator, value }));
}

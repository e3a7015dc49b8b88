// The audit helper every feature calls: who did what to which target, when and from where.
// Details must never contain secrets (passwords, tokens, keys).
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/database.js';
import type { AuditAction } from './actions.js';

export interface AuditEntry {
  actor: string | null;
  action: AuditAction;
  targetType?: string;
  targetId?: string;
  details?: Record<string, unknown>;
  ip?: string;
}

export async function recordAudit(db: Queryable, entry: AuditEntry): Promise<void> {
  await db.query(
    `INSERT INTO audit_log (id, actor, action, target_type, target_id, details, ip) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [
      randomUUID(),
      entry.actor,
      entry.action,
      entry.targetType ?? null,
      entry.targetId ?? null,
      JSON.stringify(entry.details ?? {}),
      entry.ip ?? null,
    ],
  );
}

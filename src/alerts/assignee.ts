// Who may own an alert: an active user who can triage (an analyst or an admin). Anyone else named as an
// assignee is refused with 422 naming the field.
import type { Queryable } from '../db/database.js';
import { unprocessable } from '../http/errors.js';

export async function assigneeMustTriage(db: Queryable, userId: string): Promise<void> {
  const [user] = await db.query<{ role: string; disabled: boolean }>('SELECT role, disabled FROM users WHERE id = $1', [userId]);
  if (!user || user.disabled || (user.role !== 'analyst' && user.role !== 'admin')) {
    throw unprocessable('Validation failed', [{ field: 'body.assignee', message: 'must be an active user with the analyst or admin role' }]);
  }
}

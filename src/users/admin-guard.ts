// The last active admin can never be lost. Every change that can take admin rights away (a role
// change, disabling, deleting) runs under one database lock: it first checks that the acting admin is
// still an active admin (another request may have demoted them a moment ago), and after the change that
// at least one active admin remains; otherwise the change rolls back. Holds across instances sharing
// one PostgreSQL, whatever the interleaving.
import type { Queryable } from '../db/database.js';
import { conflict, forbidden } from '../http/errors.js';

const ADMINS_LOCK = 0x5647414d;

export const LAST_ADMIN = 'At least one active admin must remain';

export async function guardAdmins<T>(tx: Queryable, actorId: string, change: () => Promise<T>): Promise<T> {
  await tx.query('SELECT pg_advisory_xact_lock($1)', [ADMINS_LOCK]);
  const [actor] = await tx.query<{ ok: boolean }>(`SELECT role = 'admin' AND NOT disabled AS ok FROM users WHERE id = $1`, [actorId]);
  if (!actor?.ok) throw forbidden();
  const result = await change();
  const [{ n }] = await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM users WHERE role = 'admin' AND NOT disabled`);
  if (n === 0) throw conflict(LAST_ADMIN);
  return result;
}

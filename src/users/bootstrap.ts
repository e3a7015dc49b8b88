// The first admin: on a start with no users, create ADMIN_USERNAME with ADMIN_PASSWORD or a generated
// password, which is returned so the caller can print it once.
import { randomBytes } from 'node:crypto';
import type { Database } from '../db/database.js';
import { recordAudit } from '../audit/log.js';
import { hashPassword } from '../auth/passwords.js';
import { countUsers, insertUser } from './store.js';

export interface BootstrapResult {
  username: string;
  /** Set only when the password was generated here. */
  generatedPassword?: string;
}

export async function bootstrapAdmin(db: Database, username: string, password?: string): Promise<BootstrapResult | null> {
  if ((await countUsers(db)) > 0) return null;
  const generated = password === undefined ? randomBytes(18).toString('base64url') : undefined;
  const row = await insertUser(db, { username, passwordHash: await hashPassword(password ?? generated!), role: 'admin' });
  if (!row) return null; // another instance created it first
  await recordAudit(db, { actor: null, action: 'user.bootstrap_admin', targetType: 'user', targetId: row.id, details: { username } });
  return { username, generatedPassword: generated };
}

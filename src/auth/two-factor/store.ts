// SQL for a user's two-factor state: the encrypted secrets, the last accepted time step and the hashed
// recovery codes. Every change that must not happen twice (a step used, a recovery code used, setup
// turned into an enabled factor) is one conditional statement, so concurrent requests on any number of
// instances sharing the database cannot both succeed.
import type { Database, Queryable } from '../../db/database.js';

export interface TwoFactorRow {
  secret_enc: string | null;
  pending_secret_enc: string | null;
  last_used_step: string | null;
}

export async function findTwoFactor(db: Queryable, userId: string): Promise<TwoFactorRow | undefined> {
  const [row] = await db.query<TwoFactorRow & Record<string, unknown>>(
    'SELECT secret_enc, pending_secret_enc, last_used_step::text AS last_used_step FROM user_two_factor WHERE user_id = $1',
    [userId],
  );
  return row;
}

/** Keeps a new pending secret (replacing an earlier one); false when two-factor login is already enabled. */
export async function savePendingSecret(db: Queryable, userId: string, sealed: string): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO user_two_factor (user_id, pending_secret_enc) VALUES ($1, $2)
     ON CONFLICT (user_id) DO UPDATE SET pending_secret_enc = EXCLUDED.pending_secret_enc, updated_at = now()
       WHERE user_two_factor.secret_enc IS NULL
     RETURNING user_id`,
    [userId, sealed],
  );
  return rows.length > 0;
}

/**
 * Makes the pending secret the active one, records the step of the code that proved it and replaces the
 * recovery codes, all at once; false when the pending secret changed meanwhile or the factor is active.
 */
export async function activateTwoFactor(
  db: Database,
  userId: string,
  change: { pendingSealed: string; step: number; recoveryHashes: string[] },
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const rows = await tx.query(
      `UPDATE user_two_factor
         SET secret_enc = pending_secret_enc, pending_secret_enc = NULL, last_used_step = $3, enabled_at = now(), updated_at = now()
       WHERE user_id = $1 AND pending_secret_enc = $2 AND secret_enc IS NULL
       RETURNING user_id`,
      [userId, change.pendingSealed, change.step],
    );
    if (rows.length === 0) return false;
    await tx.query('DELETE FROM two_factor_recovery_codes WHERE user_id = $1', [userId]);
    await tx.query(
      `INSERT INTO two_factor_recovery_codes (user_id, code_hash) SELECT $1::uuid, unnest($2::text[])`,
      [userId, change.recoveryHashes],
    );
    await tx.query('UPDATE users SET two_factor_enabled = true, updated_at = now() WHERE id = $1', [userId]);
    return true;
  });
}

/** Records `step` as used; false when it (or a later step) was already used, or the factor is not active. */
export async function claimStep(db: Queryable, userId: string, step: number): Promise<boolean> {
  const rows = await db.query(
    `UPDATE user_two_factor SET last_used_step = $2, updated_at = now()
     WHERE user_id = $1 AND secret_enc IS NOT NULL AND (last_used_step IS NULL OR last_used_step < $2)
     RETURNING user_id`,
    [userId, step],
  );
  return rows.length > 0;
}

/** Uses up a recovery code; false when the user has no such unused code. */
export async function useRecoveryCode(db: Queryable, userId: string, codeHash: string): Promise<boolean> {
  const rows = await db.query(
    `UPDATE two_factor_recovery_codes SET used_at = now()
     WHERE user_id = $1 AND code_hash = $2 AND used_at IS NULL RETURNING user_id`,
    [userId, codeHash],
  );
  return rows.length > 0;
}

export async function unusedRecoveryCodes(db: Queryable, userId: string): Promise<number> {
  const [{ n }] = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM two_factor_recovery_codes WHERE user_id = $1 AND used_at IS NULL',
    [userId],
  );
  return n;
}

/**
 * Removes every trace of the user's second factor (secrets, recovery codes, open login challenges) and
 * clears the flag; answers whether it had been enabled.
 */
export async function removeTwoFactor(db: Database, userId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [before] = await tx.query<{ two_factor_enabled: boolean }>(
      'SELECT two_factor_enabled FROM users WHERE id = $1 FOR UPDATE',
      [userId],
    );
    await tx.query('DELETE FROM user_two_factor WHERE user_id = $1', [userId]);
    await tx.query('DELETE FROM two_factor_recovery_codes WHERE user_id = $1', [userId]);
    await tx.query('DELETE FROM two_factor_challenges WHERE user_id = $1', [userId]);
    await tx.query('UPDATE users SET two_factor_enabled = false, updated_at = now() WHERE id = $1 AND two_factor_enabled', [userId]);
    return Boolean(before?.two_factor_enabled);
  });
}

// Login challenges: the step between a right password and a right second factor, named by the temp
// token. A challenge lives 5 minutes, allows 5 code attempts and one success. Attempts are counted
// before the code is checked, in one statement, so concurrent guesses cannot exceed the limit.
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../db/database.js';
import { twoFactorClock } from './clock.js';

export const CHALLENGE_TTL_SECONDS = 5 * 60;
export const CHALLENGE_MAX_ATTEMPTS = 5;

const at = (ms: number) => new Date(ms).toISOString();

/** Opens a challenge for the user and answers its id; expired challenges are swept on the way. */
export async function openChallenge(db: Queryable, userId: string, ip: string): Promise<string> {
  const now = twoFactorClock.now();
  await db.query('DELETE FROM two_factor_challenges WHERE expires_at < $1::timestamptz', [at(now)]);
  const id = randomUUID();
  await db.query(
    'INSERT INTO two_factor_challenges (id, user_id, expires_at, ip) VALUES ($1, $2, $3::timestamptz, $4)',
    [id, userId, at(now + CHALLENGE_TTL_SECONDS * 1000), ip],
  );
  return id;
}

/** Counts one code attempt; false when the challenge is unknown, used, expired or out of attempts. */
export async function reserveChallengeAttempt(db: Queryable, id: string, userId: string): Promise<boolean> {
  const rows = await db.query(
    `UPDATE two_factor_challenges SET attempts = attempts + 1
     WHERE id = $1 AND user_id = $2 AND used_at IS NULL AND attempts < $3 AND expires_at > $4::timestamptz
     RETURNING id`,
    [id, userId, CHALLENGE_MAX_ATTEMPTS, at(twoFactorClock.now())],
  );
  return rows.length > 0;
}

/** Marks the challenge as answered; false when another request answered it first. */
export async function completeChallenge(db: Queryable, id: string): Promise<boolean> {
  const rows = await db.query(
    'UPDATE two_factor_challenges SET used_at = now() WHERE id = $1 AND used_at IS NULL RETURNING id',
    [id],
  );
  return rows.length > 0;
}

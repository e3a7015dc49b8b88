// Password hashing with scrypt (memory-hard), parameters stored in the hash so they can be raised later.
// Format: scrypt$<N>$<r>$<p>$<salt b64url>$<hash b64url>.
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

/** The cost every password is hashed with: about 0.3 s of CPU and 32 MiB per hash. */
export const PASSWORD_HASH_COST: ScryptCost = { N: 2 ** 15, r: 8, p: 3 };

/**
 * A cost for test suites only, which create and sign in users by the thousand: chosen with
 * VIGIL_TEST_PASSWORD_HASHING=fast, which `vigil serve` warns of at start. A hash keeps the cost it was
 * made with, so nothing hashed this way is ever strong: never set it where real passwords are kept.
 */
const TEST_COST: ScryptCost = { N: 2 ** 10, r: 8, p: 1 };

export function passwordHashCost(env: NodeJS.ProcessEnv = process.env): ScryptCost {
  return env.VIGIL_TEST_PASSWORD_HASHING === 'fast' ? TEST_COST : PASSWORD_HASH_COST;
}

const KEY_LENGTH = 32;
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 1024;

function scrypt(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCb(password.normalize('NFKC'), salt, KEY_LENGTH, { ...options, maxmem: 256 * 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

export async function hashPassword(password: string, cost: ScryptCost = passwordHashCost()): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, cost);
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  if (!stored) {
    // Spend the same time as a real check so unknown users cannot be told apart by timing.
    await hashPassword(password);
    return false;
  }
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

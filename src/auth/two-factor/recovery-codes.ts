// Recovery codes: ten one-use codes handed out when two-factor login is enabled, for a lost
// authenticator. Each has 120 random bits (24 characters of Crockford base32, shown in groups of
// four), so a plain SHA-256 is a safe way to store it; only the hashes are kept.
import { createHash, randomInt } from 'node:crypto';

export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const LENGTH = 24;
const GROUP = 4;

export function newRecoveryCode(): string {
  let code = '';
  for (let i = 0; i < LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return code.match(new RegExp(`.{${GROUP}}`, 'g'))!.join('-');
}

/** The code as typed, reduced to its characters: any case, with or without the dashes or spaces. */
export function normalizeRecoveryCode(typed: string): string | null {
  const plain = typed.toLowerCase().replace(/[\s-]/g, '').replace(/o/g, '0').replace(/[il]/g, '1');
  return plain.length === LENGTH && [...plain].every((c) => ALPHABET.includes(c)) ? plain : null;
}

/** What is stored for a code: bound to its user, so equal codes of two users never share a hash. */
export function hashRecoveryCode(userId: string, normalized: string): string {
  return createHash('sha256').update(`${userId}:${normalized}`).digest('hex');
}

// Ingest tokens (svc_it_…): 40 random base62 characters (≈238 bits). Only a SHA-256 hash is stored;
// the token is shown once, at creation or rotation. Lookup is by hash, so no secret is ever compared.
import { createHash, randomInt } from 'node:crypto';

export const INGEST_TOKEN_PREFIX = 'svc_it_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

export function newIngestToken(): { token: string; hash: string; displayPrefix: string } {
  const token = `${INGEST_TOKEN_PREFIX}${randomBase62(40)}`;
  return { token, hash: hashIngestToken(token), displayPrefix: token.slice(0, INGEST_TOKEN_PREFIX.length + 4) };
}

export function hashIngestToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

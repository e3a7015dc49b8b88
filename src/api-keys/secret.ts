// API key secrets: `svc_ak_` followed by 43 random base62 characters (about 256 bits, drawn without
// modulo bias), shown once. Only the SHA-256 of the whole key is stored: a key is high-entropy, so a
// fast hash is enough and a lookup by hash costs one index probe, with no secret compared in process.
import { createHash, randomBytes } from 'node:crypto';
import { API_KEY_PREFIX } from '../auth/access.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Characters after the prefix. */
export const KEY_BODY_LENGTH = 43;
/** Characters of the body kept in clear as the key's `prefix`, to recognise it in lists and logs. */
const SHOWN_BODY_CHARS = 8;
/** The shape of a key this service could have issued; anything else is refused without a lookup. */
const KEY_SHAPE = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${KEY_BODY_LENGTH}}$`);

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 × 62: bytes at or above it are dropped so every character is equally likely.
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export interface NewKey {
  key: string;
  prefix: string;
  hash: string;
}

export function generateKey(): NewKey {
  const key = API_KEY_PREFIX + randomBase62(KEY_BODY_LENGTH);
  return { key, prefix: key.slice(0, API_KEY_PREFIX.length + SHOWN_BODY_CHARS), hash: hashKey(key) };
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function looksLikeKey(value: string): boolean {
  return KEY_SHAPE.test(value);
}

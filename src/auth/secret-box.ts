// Keeps secrets encrypted at rest (TOTP secrets, notification channels' credentials): AES-256-GCM under a
// key derived from the server's signing secret for one purpose, bound to the record it belongs to (a
// secret copied onto another user's or channel's row does not open). Format: v1.<iv>.<ciphertext>.<tag>,
// each base64url.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';

export class SecretBox {
  /** `owner` names the kind of record a secret is bound to (the additional data is `<owner>:<id>`). */
  constructor(
    private readonly key: Buffer,
    private readonly owner = 'user',
  ) {
    if (key.length !== 32) throw new Error('a secret box key must be 32 bytes');
  }

  seal(plain: string, ownerId: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(`${this.owner}:${ownerId}`));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  /** The plain secret, or null when it cannot be opened (another key, another owner, or altered). */
  open(sealed: string, ownerId: string): string | null {
    const [version, iv, body, tag] = sealed.split('.');
    if (version !== VERSION || !iv || !body || !tag) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(`${this.owner}:${ownerId}`));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }
}

// Session tokens (JWT, HS256 only) and the CSRF tokens bound to them. A token names its session
// (`jti`) and user (`sub`); whether the session is still alive is checked in the database.
import { createHmac, createSecretKey, hkdfSync, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';

const ISSUER = 'vigil';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Sessions and users are named by UUIDs: a signed token naming anything else is not ours. */
const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID.test(value);
const AUDIENCE = 'vigil-api';

export interface TokenClaims {
  sessionId: string;
  userId: string;
  /** Purpose of the token: a full session, or the short-lived step between password and 2FA code. */
  use: 'session' | 'twofactor';
}

export class TokenService {
  private readonly key: KeyObject;

  constructor(private readonly secret: string) {
    this.key = createSecretKey(Buffer.from(secret, 'utf8'));
  }

  static generateSecret(): string {
    return randomBytes(48).toString('base64url');
  }

  async sign(claims: TokenClaims, ttlSeconds: number): Promise<string> {
    return new SignJWT({ use: claims.use })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject(claims.userId)
      .setJti(claims.sessionId)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
      .sign(this.key);
  }

  /** The claims of a valid token of the given use, or null (bad signature, expired, wrong alg, ...). */
  async verify(token: string, use: TokenClaims['use']): Promise<TokenClaims | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        issuer: ISSUER,
        audience: AUDIENCE,
        requiredClaims: ['jti', 'sub', 'exp'],
      });
      if (payload.use !== use || !isUuid(payload.jti) || !isUuid(payload.sub)) return null;
      return { sessionId: payload.jti, userId: payload.sub, use };
    } catch {
      return null;
    }
  }

  /** A 256-bit key for another purpose, derived from the signing secret (HKDF-SHA256, one key per purpose). */
  deriveKey(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.secret, '', `vigil:${purpose}`, 32));
  }

  /** The CSRF token of a session: an HMAC of its id, so it cannot be forged or moved to another session. */
  csrfToken(sessionId: string): string {
    return createHmac('sha256', this.secret).update(`csrf:${sessionId}`).digest('base64url');
  }

  checkCsrf(sessionId: string, presented: string | undefined): boolean {
    if (!presented) return false;
    const expected = Buffer.from(this.csrfToken(sessionId));
    const actual = Buffer.from(presented);
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }
}

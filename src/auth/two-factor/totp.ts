// TOTP as RFC 6238 with the parameters every authenticator app understands: SHA-1, 6 digits, 30 s.
// A code is checked against the current step and one step either side (RFC 6238 §5.2 allows one step
// of network delay and clock drift); the answer is the step it belongs to, so the caller can refuse a
// code whose step was already used.
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import { twoFactorClock } from './clock.js';

export const ISSUER = 'Vigil';
export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Steps accepted either side of the current one. */
const WINDOW = 1;
/** 160-bit secrets, the size RFC 4226 recommends for HMAC-SHA-1. */
const SECRET_BYTES = 20;

export const TOTP_CODE = /^\d{6}$/;

function totp(secretBase32: string, username: string): TOTP {
  return new TOTP({
    issuer: ISSUER,
    label: username,
    secret: Secret.fromBase32(secretBase32),
    algorithm: 'SHA1',
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
  });
}

/** A new random secret, base32 as authenticator apps take it. */
export function newTotpSecret(): string {
  return new Secret({ size: SECRET_BYTES }).base32;
}

/** The otpauth:// URI an authenticator app imports (what the QR code holds). */
export function otpauthUri(secretBase32: string, username: string): string {
  return totp(secretBase32, username).toString();
}

/** The otpauth URI as a QR code, a PNG data: URL. */
export function qrCodeDataUrl(uri: string): Promise<string> {
  return QRCode.toDataURL(uri, { errorCorrectionLevel: 'M', margin: 2, width: 256 });
}

/** The time step a six-digit code belongs to (now, or one step either side), or null when it fits none. */
export function matchingStep(secretBase32: string, code: string): number | null {
  if (!TOTP_CODE.test(code)) return null;
  const generator = totp(secretBase32, '');
  const timestamp = twoFactorClock.now();
  const delta = generator.validate({ token: code, timestamp, window: WINDOW });
  return delta === null ? null : generator.counter({ timestamp }) + delta;
}

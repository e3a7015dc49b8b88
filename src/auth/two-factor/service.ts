// Two-factor login: setting up, enabling and disabling a TOTP factor, the login challenge answered
// with a code or a recovery code, and an administrator's reset. Every code check runs under the login
// throttle (a per-account bucket of its own and the shared per-address bucket) and is audited.
import type { Database } from '../../db/database.js';
import { badRequest, conflict, HttpError, unauthorized } from '../../http/errors.js';
import { recordAudit } from '../../audit/log.js';
import type { ThrottledCheck } from '../../audit/actions.js';
import { findUserById, type UserRow } from '../../users/store.js';
import { throttledPasswordCheck } from '../login.js';
import { accountKey } from '../login-throttle.js';
import { verifyPassword } from '../passwords.js';
import type { TokenService } from '../tokens.js';
import { CHALLENGE_TTL_SECONDS, completeChallenge, openChallenge, reserveChallengeAttempt } from './challenges.js';
import { hashRecoveryCode, newRecoveryCode, normalizeRecoveryCode, RECOVERY_CODE_COUNT } from './recovery-codes.js';
import { SecretBox } from '../secret-box.js';
import { activateTwoFactor, claimStep, findTwoFactor, removeTwoFactor, savePendingSecret, useRecoveryCode } from './store.js';
import { matchingStep, newTotpSecret, otpauthUri, qrCodeDataUrl, TOTP_CODE } from './totp.js';

export const INVALID_CODE = 'Invalid two-factor code';

export interface TwoFactorDeps {
  db: Database;
  tokens: TokenService;
  box: SecretBox;
}

export const twoFactorDeps = (db: Database, tokens: TokenService): TwoFactorDeps => ({
  db,
  tokens,
  box: new SecretBox(tokens.deriveKey('two-factor-secret')),
});

/** What proved the second factor. */
export type FactorMethod = 'totp' | 'recovery_code';

const invalidCode = () => new HttpError(401, INVALID_CODE, undefined, { 'WWW-Authenticate': 'Bearer' });
/** The throttle bucket of a user's code checks, apart from their password bucket. */
const codeAccount = (userId: string) => `twofactor:user:${userId}`;

function requireLocalAccount(user: UserRow): void {
  if (user.auth_method !== 'local' || !user.password_hash) {
    throw badRequest('This account signs in through SSO; two-factor login protects password sign-in only');
  }
}

/** Checks a TOTP code (its step is then used up) or a recovery code (then used up) of the active factor. */
async function checkActiveFactor(deps: TwoFactorDeps, userId: string, typed: string): Promise<FactorMethod | null> {
  // Apps show codes as "123 456"; a pasted code may keep the space.
  const code = typed.trim().replace(/^(\d{3})\s(\d{3})$/, '$1$2');
  if (TOTP_CODE.test(code)) {
    const row = await findTwoFactor(deps.db, userId);
    const secret = row?.secret_enc ? deps.box.open(row.secret_enc, userId) : null;
    if (!secret) return null;
    const step = matchingStep(secret, code);
    return step !== null && (await claimStep(deps.db, userId, step)) ? 'totp' : null;
  }
  const normalized = normalizeRecoveryCode(code);
  if (!normalized) return null;
  return (await useRecoveryCode(deps.db, userId, hashRecoveryCode(userId, normalized))) ? 'recovery_code' : null;
}

/** A code check under the throttle; answers how the factor was proved, or throws 401 / 429. */
async function throttledFactorCheck(
  deps: TwoFactorDeps,
  user: UserRow,
  code: string,
  ip: string,
  action: ThrottledCheck,
): Promise<FactorMethod> {
  let method: FactorMethod | null = null;
  const ok = await throttledPasswordCheck(deps.db, { account: codeAccount(user.id), actor: user.username, ip, action }, async () => {
    method = await checkActiveFactor(deps, user.id, code);
    return method !== null;
  });
  if (!ok || method === null) throw invalidCode();
  return method;
}

/** Starts (or restarts) setup: a new pending secret, not in force until a code from it enables it. */
export async function setUp(deps: TwoFactorDeps, user: UserRow, ip: string) {
  requireLocalAccount(user);
  const alreadyEnabled = () => conflict('Two-factor login is already enabled; disable it before setting it up again');
  if (user.two_factor_enabled) throw alreadyEnabled();
  const secret = newTotpSecret();
  if (!(await savePendingSecret(deps.db, user.id, deps.box.seal(secret, user.id)))) throw alreadyEnabled();
  const uri = otpauthUri(secret, user.username);
  await recordAudit(deps.db, { actor: user.username, action: 'auth.2fa_setup', targetType: 'user', targetId: user.id, ip });
  return { secret, otpauth_uri: uri, qr_code: await qrCodeDataUrl(uri) };
}

/** Enables the pending secret once a code from it is shown; answers the recovery codes (shown only now). */
export async function enable(deps: TwoFactorDeps, user: UserRow, code: string, ip: string) {
  requireLocalAccount(user);
  if (user.two_factor_enabled) throw conflict('Two-factor login is already enabled');
  const row = await findTwoFactor(deps.db, user.id);
  const pendingSealed = row?.pending_secret_enc;
  const secret = pendingSealed ? deps.box.open(pendingSealed, user.id) : null;
  if (!pendingSealed || !secret) throw conflict('No two-factor setup is pending; call POST /api/auth/2fa/setup first');
  let step: number | null = null;
  const ok = await throttledPasswordCheck(
    deps.db,
    { account: codeAccount(user.id), actor: user.username, ip, action: 'auth.2fa_enable' },
    async () => {
      step = matchingStep(secret, code);
      return step !== null;
    },
  );
  if (!ok || step === null) throw invalidCode();
  const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  const recoveryHashes = recoveryCodes.map((c) => hashRecoveryCode(user.id, normalizeRecoveryCode(c)!));
  if (!(await activateTwoFactor(deps.db, user.id, { pendingSealed, step, recoveryHashes }))) {
    throw conflict('Two-factor setup changed while enabling it; set it up again');
  }
  await recordAudit(deps.db, { actor: user.username, action: 'auth.2fa_enabled', targetType: 'user', targetId: user.id, ip });
  return { enabled: true as const, recovery_codes: recoveryCodes };
}

/** Disables the factor; needs the account password and a current code (or a recovery code). */
export async function disable(deps: TwoFactorDeps, user: UserRow, password: string, code: string, ip: string) {
  requireLocalAccount(user);
  if (!user.two_factor_enabled) throw conflict('Two-factor login is not enabled');
  const hash = user.password_hash;
  const passwordOk = await throttledPasswordCheck(
    deps.db,
    { account: accountKey(user, user.username), actor: user.username, ip, action: 'auth.2fa_disable_password' },
    () => verifyPassword(password, hash),
  );
  if (!passwordOk) throw badRequest('Password is incorrect', [{ field: 'body.password', message: 'is incorrect' }]);
  const method = await throttledFactorCheck(deps, user, code, ip, 'auth.2fa_disable');
  await removeTwoFactor(deps.db, user.id);
  await recordAudit(deps.db, { actor: user.username, action: 'auth.2fa_disabled', targetType: 'user', targetId: user.id, details: { method }, ip });
  return { enabled: false as const };
}

/** An administrator removes a user's factor (lost device and recovery codes); answers whether it was on. */
export async function reset(deps: TwoFactorDeps, admin: UserRow, target: UserRow, ip: string): Promise<boolean> {
  const wasEnabled = await removeTwoFactor(deps.db, target.id);
  await recordAudit(deps.db, {
    actor: admin.username,
    action: 'auth.2fa_reset',
    targetType: 'user',
    targetId: target.id,
    details: { username: target.username, was_enabled: wasEnabled },
    ip,
  });
  return wasEnabled;
}

/** After a right password: opens a challenge and answers its temp token (no session yet). */
export async function beginChallenge(db: Database, tokens: TokenService, user: UserRow, ip: string): Promise<string> {
  const challengeId = await openChallenge(db, user.id, ip);
  await recordAudit(db, { actor: user.username, action: 'auth.2fa_required', targetType: 'user', targetId: user.id, ip });
  return tokens.sign({ sessionId: challengeId, userId: user.id, use: 'twofactor' }, CHALLENGE_TTL_SECONDS);
}

/**
 * Answers a challenge: the user whose second factor was proved, or 401 (`Could not validate credentials`
 * for a dead temp token, `Invalid two-factor code` for a wrong code) or 429.
 */
export async function verifyChallenge(deps: TwoFactorDeps, tempToken: string, code: string, ip: string): Promise<{ user: UserRow; method: FactorMethod }> {
  const claims = await deps.tokens.verify(tempToken, 'twofactor');
  if (!claims) throw unauthorized();
  if (!(await reserveChallengeAttempt(deps.db, claims.sessionId, claims.userId))) throw unauthorized();
  const user = await findUserById(deps.db, claims.userId);
  if (!user || user.disabled || !user.two_factor_enabled) throw unauthorized();
  const method = await throttledFactorCheck(deps, user, code, ip, 'auth.2fa');
  if (!(await completeChallenge(deps.db, claims.sessionId))) throw unauthorized();
  await recordAudit(deps.db, { actor: user.username, action: 'auth.2fa_verified', targetType: 'user', targetId: user.id, details: { method }, ip });
  return { user, method };
}

// Single sign-on accounts: the user a verified provider identity signs in as. Users are found by
// (issuer, subject) only, never by username or e-mail; a first sign-in creates an SSO user (no
// password) with a unique username; every sign-in sets the role from the role claim.
import type { Database } from '../../db/database.js';
import { forbidden, HttpError } from '../../http/errors.js';
import { recordAudit } from '../../audit/log.js';
import { insertUser, updateUser, type UserRow } from '../../users/store.js';
import type { Role } from '../roles.js';
import { findUserByIdentity, linkIdentity, touchIdentity } from './identities.js';
import type { VerifiedIdentity } from './oidc-client.js';
import { claimValues, mapRole, type RoleMapEntry } from './role-map.js';

export interface RolePolicy {
  claim: string;
  map: RoleMapEntry[];
  defaultRole: Role;
}

export const EMAIL_NOT_VERIFIED = 'The identity provider has not verified this e-mail address';
export const ACCOUNT_DISABLED = 'This account is disabled';

const USERNAME_MAX = 64;
const USERNAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@-]*$/;

/** Finds or creates the user of a verified identity and brings their role up to date; throws 403 when they may not sign in. */
export async function signInWithIdentity(db: Database, identity: VerifiedIdentity, policy: RolePolicy, ip: string): Promise<UserRow> {
  const { issuer, subject, claims } = identity;
  const email = verifiedEmail(claims);
  if (email === false) {
    await recordAudit(db, { actor: null, action: 'auth.login_failed', details: { method: 'sso', reason: 'email_not_verified', issuer }, ip });
    throw forbidden(EMAIL_NOT_VERIFIED);
  }
  const role = mapRole(policy.map, claimValues(claims[policy.claim]), policy.defaultRole);
  let user = (await findUserByIdentity(db, issuer, subject)) ?? (await createSsoUser(db, identity, email, role, ip));
  if (user.disabled) {
    await recordAudit(db, { actor: user.username, action: 'auth.login_failed', details: { method: 'sso', reason: 'disabled' }, ip });
    throw forbidden(ACCOUNT_DISABLED);
  }
  if (user.role !== role) {
    const from = user.role;
    user = (await updateUser(db, user.id, { role })) ?? user;
    await recordAudit(db, {
      actor: user.username,
      action: 'user.update',
      targetType: 'user',
      targetId: user.id,
      details: { changed: ['role'], role, previous_role: from, source: 'sso' },
      ip,
    });
  }
  await touchIdentity(db, issuer, subject);
  return user;
}

/**
 * The e-mail address the provider vouches for: the address when `email_verified` is true, undefined
 * when there is none or it is not said to be verified, false when the provider says it is unverified.
 */
function verifiedEmail(claims: Record<string, unknown>): string | undefined | false {
  const email = claims.email;
  if (typeof email !== 'string' || email === '') return undefined;
  const verified = claims.email_verified;
  if (verified === false || verified === 'false') return false;
  return verified === true || verified === 'true' ? email : undefined;
}

async function createSsoUser(db: Database, identity: VerifiedIdentity, email: string | undefined, role: Role, ip: string): Promise<UserRow> {
  const base = usernameBase(identity, email);
  const created = await db.transaction(async (tx) => {
    let user: UserRow | undefined;
    for (let attempt = 1; !user; attempt++) {
      if (attempt > 50) throw new HttpError(409, 'No free username could be found for this account; ask an administrator');
      const suffix = attempt === 1 ? '' : attempt <= 20 ? `-${attempt}` : `-${Math.random().toString(36).slice(2, 8)}`;
      user = await insertUser(tx, { username: base.slice(0, USERNAME_MAX - suffix.length) + suffix, passwordHash: null, role, authMethod: 'sso' });
    }
    // A concurrent first sign-in of the same identity got there first: roll back and use its user.
    if (!(await linkIdentity(tx, identity.issuer, identity.subject, user.id))) throw new LinkedConcurrently();
    await recordAudit(tx, {
      actor: user.username,
      action: 'user.create',
      targetType: 'user',
      targetId: user.id,
      details: { username: user.username, role, method: 'sso', issuer: identity.issuer },
      ip,
    });
    return user;
  }).catch((error: unknown) => {
    if (error instanceof LinkedConcurrently) return undefined;
    throw error;
  });
  if (created) return created;
  const existing = await findUserByIdentity(db, identity.issuer, identity.subject);
  if (!existing) throw new HttpError(409, 'This account was changed at the same time; sign in again');
  return existing;
}

class LinkedConcurrently extends Error {}

/** A valid username from preferred_username, else the verified e-mail, else the subject. */
function usernameBase(identity: VerifiedIdentity, email: string | undefined): string {
  const preferred = identity.claims.preferred_username;
  for (const candidate of [typeof preferred === 'string' ? preferred : undefined, email, `sso-${identity.subject}`]) {
    if (!candidate) continue;
    const cleaned = candidate
      .normalize('NFKC')
      .replace(/[^A-Za-z0-9._@-]+/g, '-')
      .replace(/^[^A-Za-z0-9]+/, '')
      .slice(0, USERNAME_MAX);
    if (USERNAME_PATTERN.test(cleaned)) return cleaned;
  }
  return 'sso-user';
}

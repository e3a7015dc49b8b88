// Shared fixtures of the two-factor suites: a hand-moved clock for TOTP steps and challenge lifetimes,
// codes computed with otpauth from what the API handed out, and a user with two-factor login enabled.
import assert from 'node:assert/strict';
import { Secret, TOTP, URI } from 'otpauth';
import { twoFactorClock } from '../../src/auth/two-factor/clock.js';
import type { Service } from '../../src/server.js';
import { anonymous, Client, loginAdmin, type Response } from '../helpers/service.js';

const STEP_MS = 30_000;

/**
 * The service's two-factor clock, moved by hand. It starts in the middle of a 30-second step and only
 * moves by whole steps (or by what a test asks), so no code is computed on one side of a step boundary
 * and checked on the other.
 */
export const clock = {
  at: Math.floor(Date.now() / STEP_MS) * STEP_MS + STEP_MS / 2,
  /** Moves to the next step: codes of earlier steps are then spent or stale. */
  nextStep(): number {
    this.at += STEP_MS;
    return this.at;
  },
  advanceSeconds(seconds: number): void {
    this.at += seconds * 1000;
  },
};
twoFactorClock.now = () => clock.at;

/** The code an authenticator app shows for `secret` at `at` (default: the clock's time). */
export function codeFor(secret: string, at = clock.at): string {
  return TOTP.generate({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30, timestamp: at });
}

/** A six-digit code that is none of the codes for the current step and the steps either side. */
export function wrongCodeFor(secret: string): string {
  const near = new Set([-1, 0, 1].map((d) => codeFor(secret, clock.at + d * STEP_MS)));
  for (let n = 0; ; n++) {
    const code = String((123456 + n * 7919) % 1_000_000).padStart(6, '0');
    if (!near.has(code)) return code;
  }
}

/** The code computed from the otpauth URI alone, as an authenticator app that scanned the QR code would. */
export function codeFromUri(uri: string, at = clock.at): string {
  const otp = URI.parse(uri);
  assert.ok(otp instanceof TOTP);
  return otp.generate({ timestamp: at });
}

export interface Enrolled {
  id: string;
  username: string;
  password: string;
  /** A session opened before two-factor login was enabled (still valid). */
  client: Client;
  /** An administrator's session. */
  admin: Client;
  secret: string;
  recoveryCodes: string[];
}

export async function createUser(service: Service, role: 'admin' | 'analyst' | 'viewer' = 'analyst') {
  const admin = await loginAdmin(service);
  const username = `tf-${role}-${Math.random().toString(36).slice(2, 9)}`;
  const password = `${username}-password-123`;
  const created = await admin.post('/api/users', { username, password, role });
  assert.equal(created.statusCode, 201, created.body);
  const client = await sessionOf(await passwordLogin(service, username, password), service);
  return { id: created.data.id as string, username, password, client, admin };
}

/** A new user who set up and enabled two-factor login through the API. */
export async function enrolledUser(service: Service, role: 'admin' | 'analyst' | 'viewer' = 'analyst'): Promise<Enrolled> {
  const user = await createUser(service, role);
  const setup = await user.client.post('/api/auth/2fa/setup');
  assert.equal(setup.statusCode, 200, setup.body);
  const enabled = await user.client.post('/api/auth/2fa/enable', { code: codeFor(setup.data.secret) });
  assert.equal(enabled.statusCode, 200, enabled.body);
  clock.nextStep();
  return { ...user, secret: setup.data.secret, recoveryCodes: enabled.data.recovery_codes };
}

export function passwordLogin(service: Service, username: string, password: string): Promise<Response> {
  return anonymous(service).post('/api/auth/login', { username, password });
}

/** The temp token of a password login that asks for the second factor. */
export async function tempToken(service: Service, user: { username: string; password: string }): Promise<string> {
  const res = await passwordLogin(service, user.username, user.password);
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(Object.keys(res.data).sort(), ['requires_2fa', 'temp_token']);
  assert.equal(res.data.requires_2fa, true);
  return res.data.temp_token as string;
}

export function verify(service: Service, temp_token: string, code: string): Promise<Response> {
  return anonymous(service).post('/api/auth/2fa/verify', { temp_token, code });
}

/** A session client from a login or verify answer (its token and the session's CSRF token). */
export async function sessionOf(answer: Response, service: Service): Promise<Client> {
  assert.equal(answer.statusCode, 200, answer.body);
  const token = answer.data.access_token as string;
  const csrf = await new Client(service, token).get('/api/auth/csrf');
  assert.equal(csrf.statusCode, 200, csrf.body);
  return new Client(service, token, csrf.data.csrf_token as string);
}

/** The audit actions recorded with `username` as actor, oldest first, as an administrator reads them. */
export async function auditActions(service: Service, username: string): Promise<string[]> {
  const admin = await loginAdmin(service);
  const res = await admin.get(`/api/audit?actor=${encodeURIComponent(username)}&page_size=100&sort_by=created_at&sort_order=asc`);
  assert.equal(res.statusCode, 200, res.body);
  return (res.data.items as { action: string }[]).map((entry) => entry.action);
}

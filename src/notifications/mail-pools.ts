// Open SMTP connections kept per mail server and login, so a burst of alerts to one mail channel reuses
// a few connections instead of greeting, negotiating TLS and logging in again for every message. A pool
// unused for POOL_IDLE_MS is closed; a pool whose message failed or ran past its bound is closed at once
// (its connection may be stalled), and the next message opens a fresh one.
import { createHash } from 'node:crypto';
import nodemailer, { type Transporter } from 'nodemailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool/index.js';

/** Connections one pool opens at most; messages beyond wait for one of them. */
const MAX_CONNECTIONS = 4;
/** Messages one connection carries before it is replaced. */
const MAX_MESSAGES = 100;
const POOL_IDLE_MS = 30_000;

type Transport = Transporter<SMTPPool.SentMessageInfo, SMTPPool.Options>;
/** How to reach the server and log in; the pool's own settings are added here. */
export type ConnectionOptions = Omit<SMTPPool.Options, 'pool'>;

interface Pool {
  transport: Transport;
  idle: NodeJS.Timeout;
}

const pools = new Map<string, Pool>();

/** The pool's key: everything that makes a connection different (the password only as a digest). */
function keyOf(options: ConnectionOptions): string {
  const auth = options.auth as { user?: string; pass?: string } | undefined;
  const secret = auth ? createHash('sha256').update(`${auth.user ?? ''}\u0000${auth.pass ?? ''}`).digest('hex') : '';
  return JSON.stringify([options.host, options.port, options.secure, options.requireTLS, options.ignoreTLS, options.tls?.servername, secret]);
}

export interface PooledTransport {
  transport: Transport;
  /** Closes this pool now (after a failure or a message past its bound). */
  discard(): void;
}

/** The pool for these connection options, opened when there is none. */
export function pooledTransport(options: ConnectionOptions): PooledTransport {
  const key = keyOf(options);
  const found = pools.get(key);
  if (found) clearTimeout(found.idle);
  const current: Pool = found ?? {
    transport: nodemailer.createTransport({ ...options, pool: true, maxConnections: MAX_CONNECTIONS, maxMessages: MAX_MESSAGES }),
    idle: undefined as unknown as NodeJS.Timeout,
  };
  if (!found) pools.set(key, current);
  current.idle = setTimeout(() => close(key, current), POOL_IDLE_MS);
  current.idle.unref();
  return { transport: current.transport, discard: () => close(key, current) };
}

function close(key: string, pool: Pool): void {
  clearTimeout(pool.idle);
  if (pools.get(key) === pool) pools.delete(key);
  pool.transport.close();
}

/** Closes every pool (the service stopping). */
export function closeMailPools(): void {
  for (const [key, pool] of pools) close(key, pool);
}

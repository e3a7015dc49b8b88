// Mail channels: one message per alert (or digest, or test) over SMTP with nodemailer, plain text and
// HTML, over connections kept open per server and login (mail-pools.ts), within the same 10 s bound as
// every other delivery (a server that accepts the connection and
// never greets, or stalls mid-conversation, is a failed attempt when the bound ends); the SMTP server's address is checked like
// any other destination (destinations.ts). A 4xx reply from the server is worth another attempt, a
// 5xx (a refused recipient, a refused login) is not.
import { isIP } from 'node:net';
import { lookup } from 'node:dns/promises';
import type { PostOutcome } from './http-post.js';
import { POST_TIMEOUT_MS } from './http-post.js';
import { isInternalAddress } from './destinations.js';
import { pooledTransport } from './mail-pools.js';
import { plainText, type Message } from './messages.js';

export interface EmailConfig {
  host: string;
  port: number;
  security: 'starttls' | 'tls' | 'none';
  username?: string;
  password?: string;
  from: string;
  to: string[];
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The address to connect to: the host's, refused when internal (unless allowed). */
async function addressOf(host: string, allowPrivate: boolean): Promise<string> {
  const name = host.replace(/^\[|\]$/g, '');
  const addresses = isIP(name) ? [name] : (await lookup(name, { all: true })).map((a) => a.address);
  const usable = allowPrivate ? addresses : addresses.filter((a) => !isInternalAddress(a));
  if (usable.length === 0) throw Object.assign(new Error(`${host} is an internal address (NOTIFY_ALLOW_PRIVATE is not set)`), { refused: true });
  return usable[0];
}

export async function sendEmail(config: EmailConfig, message: Message, deliveryId: string, allowPrivate: boolean): Promise<PostOutcome> {
  let address: string;
  try {
    address = await addressOf(config.host, allowPrivate);
  } catch (error) {
    return { ok: false, error: (error as Error).message, retryable: !(error as { refused?: boolean }).refused };
  }
  const { transport, discard } = pooledTransport({
    host: address,
    port: config.port,
    secure: config.security === 'tls',
    requireTLS: config.security === 'starttls',
    ignoreTLS: config.security === 'none',
    tls: { servername: isIP(config.host) ? undefined : config.host },
    auth: config.username ? { user: config.username, pass: config.password ?? '' } : undefined,
    connectionTimeout: POST_TIMEOUT_MS,
    greetingTimeout: POST_TIMEOUT_MS,
    socketTimeout: POST_TIMEOUT_MS,
  });
  const { subject, text } = plainText(message);
  let deadline: NodeJS.Timeout | undefined;
  // nodemailer's own timeouts bound each step (connecting, the greeting, each reply); this bounds the whole.
  const expired = new Promise<never>((_, reject) => {
    deadline = setTimeout(() => reject(new Error(`the mail server did not complete the message within ${POST_TIMEOUT_MS / 1000} s`)), POST_TIMEOUT_MS);
  });
  const sending = transport.sendMail({
    from: config.from,
    to: config.to,
    subject: `Vigil: ${subject}`,
    text,
    html: `<h2>${escapeHtml(subject)}</h2><pre style="font-family:inherit">${escapeHtml(text)}</pre>`,
    headers: { 'X-Vigil-Delivery': deliveryId },
  });
  sending.catch(() => {}); // past the deadline its failure is no longer awaited
  try {
    await Promise.race([sending, expired]);
    return { ok: true, error: null, retryable: false };
  } catch (error) {
    const code = (error as { responseCode?: number }).responseCode;
    // No reply code: the connection failed or stalled (or the bound ended); it is not used again.
    if (code === undefined) discard();
    return { ok: false, statusCode: code, error: (error as Error).message.slice(0, 500), retryable: code === undefined || code < 500 };
  } finally {
    clearTimeout(deadline);
  }
}

// One bounded HTTP POST to a receiver: at most 10 s in all, at most 64 KiB of its answer read (a longer
// answer is cut off and the attempt counts as failed, whatever its status), no redirect followed (a 3xx
// is a failed attempt), connections only to addresses the destination rules allow (destinations.ts). The outcome says whether to retry: timeouts, connection errors, 5xx, 408
// and 429 are worth another attempt (429 and 503 with the receiver's Retry-After); other answers are not.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { guardedLookup, refusedLiteral } from './destinations.js';

export const POST_TIMEOUT_MS = 10_000;
export const MAX_ANSWER_BYTES = 64 * 1024;

export interface PostOutcome {
  ok: boolean;
  statusCode?: number;
  /** What went wrong, for the delivery log (null when delivered). */
  error: string | null;
  /** Whether another attempt may succeed. */
  retryable: boolean;
  /** The receiver's Retry-After, in seconds, when it gave one. */
  retryAfterSeconds?: number;
}

function retryAfter(header: string | string[] | undefined): number | undefined {
  const text = Array.isArray(header) ? header[0] : header;
  if (!text) return undefined;
  const seconds = Number(text);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}

export function postJson(target: string, body: string, headers: Record<string, string>, allowPrivate: boolean): Promise<PostOutcome> {
  const url = new URL(target);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const refused = refusedLiteral(host, allowPrivate);
  if (refused) return Promise.resolve({ ok: false, error: refused, retryable: false });
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const req = send(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'Vigil-Notifications' },
        lookup: guardedLookup(allowPrivate),
        agent: false,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        let read = 0;
        let tooLong = false;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          // Nothing of the answer is kept; a receiver sending more than the bound is cut off, and the
          // attempt failed: a receiver that cannot answer briefly is not one that took the message.
          if (read > MAX_ANSWER_BYTES && !tooLong) {
            tooLong = true;
            req.destroy();
          }
        });
        const done = () => {
          if (tooLong) return finish({ ok: false, statusCode: status, error: `the receiver's answer exceeded ${MAX_ANSWER_BYTES / 1024} KiB (cut off)`, retryable: true });
          if (status >= 200 && status < 300) return finish({ ok: true, statusCode: status, error: null, retryable: false });
          const retryable = status >= 500 || status === 408 || status === 429;
          const error = status >= 300 && status < 400 ? `the receiver answered ${status} (redirects are not followed)` : `the receiver answered ${status}`;
          finish({ ok: false, statusCode: status, error, retryable, retryAfterSeconds: retryable ? retryAfter(res.headers['retry-after']) : undefined });
        };
        res.on('end', done);
        res.on('close', done);
        res.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      finish({ ok: false, error: `no answer within ${POST_TIMEOUT_MS / 1000} s`, retryable: true });
    }, POST_TIMEOUT_MS);
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (settled) return;
      const refused = error.code === 'EACCES';
      finish({ ok: false, error: error.message || String(error.code), retryable: !refused });
    });
    req.end(body);
  });
}

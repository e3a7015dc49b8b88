// How long a connection may take to send its request and how long it may stay open doing nothing, so a
// client that trickles its headers or body, or opens connections and sends nothing, cannot hold memory
// and sockets: the server answers 408 (see client-errors.ts) and closes the connection.
// Node enforces the header and whole-request limits on a timer (connectionsCheckingInterval, 30 s by
// default), so the interval is set to a fraction of the shortest limit: a request is cut within about
// a quarter of its limit after it passes (at most one second).
import type { ServerOptions } from 'node:http';
import type { HttpTimeouts } from '../config.js';

const DEFAULT_TIMEOUTS: HttpTimeouts = { headersMs: 20_000, requestMs: 120_000, keepAliveMs: 72_000, idleMs: 300_000 };

/** The Fastify (and underlying node:http) server options enforcing the timeouts. */
export function serverTimeoutOptions(timeouts: HttpTimeouts = DEFAULT_TIMEOUTS): {
  http: ServerOptions;
  requestTimeout: number;
  keepAliveTimeout: number;
  connectionTimeout: number;
} {
  const limits = [timeouts.headersMs, timeouts.requestMs].filter((ms) => ms > 0);
  const checkEvery = Math.max(50, Math.min(1000, Math.floor(Math.min(...limits, 4000) / 4)));
  return {
    // Passed at creation too: node:http checks headersTimeout against requestTimeout there.
    http: { headersTimeout: timeouts.headersMs, requestTimeout: timeouts.requestMs, connectionsCheckingInterval: checkEvery },
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    connectionTimeout: timeouts.idleMs,
  };
}

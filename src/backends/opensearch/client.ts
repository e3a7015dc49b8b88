// The connection to the OpenSearch cluster: the official client configured from OPENSEARCH_* (basic
// auth or an API key, TLS with a CA file), and one place that turns the client's failures into the
// service's: the cluster unreachable, refusing our credentials or not ready → BackendUnavailableError (503), anything else an
// error naming OpenSearch's reason.
import { readFileSync } from 'node:fs';
import { Client, errors } from '@opensearch-project/opensearch';
import type { Config } from '../../config.js';
import { BackendUnavailableError } from '../backend.js';

/** How long one request to the cluster may take before the backend counts as unavailable. */
const REQUEST_TIMEOUT_MS = 30_000;

export function openSearchClient(settings: Config['opensearch']): Client {
  if (!settings.url) throw new Error('OPENSEARCH_URL is not set');
  const headers: Record<string, string> = {};
  if (settings.apiKey) headers.authorization = `ApiKey ${settings.apiKey}`;
  return new Client({
    node: settings.url,
    auth: settings.username ? { username: settings.username, password: settings.password ?? '' } : undefined,
    ssl: settings.caFile ? { ca: readFileSync(settings.caFile) } : undefined,
    headers,
    requestTimeout: REQUEST_TIMEOUT_MS,
    // No retry: a request that timed out would be sent again to a node already too busy to answer it.
    maxRetries: 0,
  });
}

/**
 * A request the cluster refused (not an outage): its status, OpenSearch's error type and reason. Never
 * carries a `statusCode`, so the HTTP layer answers it as the service's own failure (500), not as the
 * client's fault with the cluster's status.
 */
export class ClusterError extends Error {
  constructor(
    readonly clusterStatus: number,
    readonly type: string | undefined,
    reason: string,
  ) {
    super(reason);
  }
}

type ErrorBody = { error?: { reason?: string; type?: string; root_cause?: Array<{ reason?: string }> } | string } | undefined;

function clusterErrorFrom(status: number, body: ErrorBody, fallback: string): ClusterError {
  const e = body?.error;
  if (typeof e === 'string') return new ClusterError(status, undefined, e);
  return new ClusterError(status, e?.type, e?.root_cause?.[0]?.reason ?? e?.reason ?? e?.type ?? fallback);
}

const clusterErrorOf = (error: InstanceType<typeof errors.ResponseError>) => clusterErrorFrom(error.meta.statusCode ?? 0, error.meta.body as ErrorBody, error.message);

/** OpenSearch's own reason for a refused request, when it gave one. */
export function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function statusOf(error: unknown): number | undefined {
  return error instanceof ClusterError ? error.clusterStatus : undefined;
}

/** Answers that mean the cluster cannot serve us now: credentials refused, overloaded, not ready. */
const UNAVAILABLE_STATUSES = new Set([401, 403, 429, 502, 503, 504]);

/** One request to the cluster. `ndjson` is a `_bulk` body (lines without their final newline). */
export interface ClusterRequest {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE' | 'HEAD';
  path: string;
  body?: unknown;
  ndjson?: string[];
  query?: Record<string, string | number | boolean>;
}

/** The service's error for a failed request: an unreachable or unready cluster becomes BackendUnavailableError. */
function failureOf(error: unknown): unknown {
  if (
    error instanceof errors.ConnectionError ||
    error instanceof errors.TimeoutError ||
    error instanceof errors.NoLivingConnectionsError ||
    (error instanceof errors.ResponseError && UNAVAILABLE_STATUSES.has(error.meta.statusCode ?? 0))
  ) {
    return new BackendUnavailableError();
  }
  return error instanceof errors.ResponseError ? clusterErrorOf(error) : error;
}

const transportParams = (request: ClusterRequest) => ({
  method: request.method,
  path: request.path,
  body: request.body as Record<string, unknown> | undefined,
  bulkBody: request.ndjson,
  querystring: request.query,
});

/** Sends a request and answers its body; an unreachable or unready cluster becomes BackendUnavailableError. */
export async function send<T>(client: Client, request: ClusterRequest): Promise<T> {
  try {
    const answer = await client.transport.request(transportParams(request));
    return answer.body as T;
  } catch (error) {
    throw failureOf(error);
  }
}

/**
 * Sends a request and answers its body as bytes, undecoded, in a buffer of its own (which can be moved
 * to another thread, such as a page of events matched there); failures as `send` gives them.
 */
export async function sendForBytes(client: Client, request: ClusterRequest): Promise<Uint8Array> {
  let status: number;
  let bytes: Uint8Array;
  try {
    const answer = await client.transport.request(transportParams(request), { asStream: true });
    status = answer.statusCode ?? 0;
    const chunks: Buffer[] = [];
    let length = 0;
    for await (const chunk of answer.body as unknown as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      length += chunk.length;
    }
    bytes = new Uint8Array(length);
    let at = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, at);
      at += chunk.length;
    }
  } catch (error) {
    throw failureOf(error);
  }
  if (status >= 200 && status < 300) return bytes;
  if (UNAVAILABLE_STATUSES.has(status)) throw new BackendUnavailableError();
  let body: ErrorBody;
  try {
    body = JSON.parse(Buffer.from(bytes).toString('utf8')) as ErrorBody;
  } catch {
    body = undefined;
  }
  throw clusterErrorFrom(status, body, `status ${status}`);
}

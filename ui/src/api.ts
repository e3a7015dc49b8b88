// The API client of the web UI: same-origin fetch with the session cookie (the token is never stored in
// script-readable storage), the CSRF token sent on every write, and errors in the API's error model.
import { parseExactJson } from './exact-json';

export interface FieldError {
  field: string;
  message: string;
}

/** An answer outside 2xx, with the API's {detail, status_code, errors?} body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly errors: FieldError[] = [],
  ) {
    super(detail);
  }
}

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  page_size: number;
  pages: number;
  total_exact?: boolean;
}

let csrfToken: string | null = null;
let onUnauthorized: () => void = () => {};

/** Called when the session is gone (401 on a signed-in request): the app goes back to the login page. */
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

/** The session ended elsewhere (the live stream said so): back to the login page. */
export function sessionEnded(): void {
  csrfToken = null;
  onUnauthorized();
}

export function forgetCsrfToken(): void {
  csrfToken = null;
}

async function csrf(): Promise<string> {
  if (csrfToken) return csrfToken;
  const answer = await request<{ csrf_token: string }>('GET', '/api/auth/csrf');
  csrfToken = answer.csrf_token;
  return csrfToken;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface RequestOptions {
  /** A body sent as is (YAML, zip) with this content type instead of JSON. */
  contentType?: string;
  /** Do not treat a 401 as the end of the session (login, 2FA verify). */
  anonymous?: boolean;
  /** Set on the one retry after a refused CSRF token. */
  retried?: boolean;
}

export async function request<T>(method: string, path: string, body?: unknown, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  let payload: BodyInit | undefined;
  if (body !== undefined) {
    if (options.contentType) {
      headers['Content-Type'] = options.contentType;
      payload = body as BodyInit;
    } else {
      headers['Content-Type'] = 'application/json';
      payload = JSON.stringify(body);
    }
  }
  if (WRITES.has(method) && !options.anonymous) headers['X-CSRF-Token'] = await csrf();
  const response = await fetch(path, { method, headers, body: payload, credentials: 'same-origin' });
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  let data: unknown = undefined;
  try {
    // Event numbers past a double's precision keep their digits (exact-json.ts).
    data = text ? parseExactJson(text) : undefined;
  } catch {
    data = undefined;
  }
  if (!response.ok) {
    const error = (data ?? {}) as { detail?: unknown; errors?: FieldError[] };
    const detail = typeof error.detail === 'string' ? error.detail : `${response.status} ${response.statusText}`;
    if (response.status === 401 && !options.anonymous) {
      csrfToken = null;
      onUnauthorized();
    }
    // A stale CSRF token (a new session in another tab) is fetched again once.
    if (response.status === 403 && detail.startsWith('CSRF') && WRITES.has(method) && !options.retried) {
      csrfToken = null;
      return request<T>(method, path, body, { ...options, retried: true });
    }
    throw new ApiError(response.status, detail, Array.isArray(error.errors) ? error.errors : []);
  }
  return data as T;
}

export const api = {
  get: <T>(path: string) => request<T>('GET', path),
  post: <T>(path: string, body?: unknown, options?: RequestOptions) => request<T>('POST', path, body, options),
  put: <T>(path: string, body?: unknown) => request<T>('PUT', path, body),
  patch: <T>(path: string, body?: unknown) => request<T>('PATCH', path, body),
  delete: (path: string) => request<void>('DELETE', path),
};

/** A query string from the set values of `params` (empty ones left out). */
export function query(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

export function errorText(error: unknown): string {
  if (error instanceof ApiError) return error.detail;
  if (error instanceof Error) return error.message;
  return String(error);
}

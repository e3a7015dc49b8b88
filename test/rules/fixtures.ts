// Shared fixtures of the rule suites: Sigma YAML builders, index-pattern and ingest helpers, and a
// handle on the embedded search backend (stored-query checks, outage switch).
import assert from 'node:assert/strict';
import type { EmbeddedBackend } from '../../src/backends/embedded/embedded-backend.js';
import type { Service } from '../../src/server.js';
import { anonymous, login, loginAdmin, type Client, type Response } from '../helpers/service.js';

/** A decoded JSON response body, read field by field in assertions. */
export type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface RuleOptions {
  title?: string;
  level?: string;
  tags?: string[];
  id?: string;
  description?: string;
  author?: string;
  /** The detection block, indented by two spaces per level below `detection:`. */
  detection?: string;
  product?: string;
  category?: string;
}

const DEFAULT_DETECTION = `  selection:
    Image|endswith: '\\whoami.exe'
  filter:
    User: SYSTEM
  condition: selection and not filter`;

/** A Sigma rule in YAML; by default a whoami detection with a SYSTEM filter. */
export function sigma(options: RuleOptions = {}): string {
  const lines = [
    `title: ${options.title ?? 'Whoami Execution'}`,
    ...(options.id ? [`id: ${options.id}`] : []),
    'status: test',
    `description: ${options.description ?? 'whoami run by a user'}`,
    `author: ${options.author ?? 'Vigil tests'}`,
    'logsource:',
    `  category: ${options.category ?? 'process_creation'}`,
    `  product: ${options.product ?? 'windows'}`,
    'detection:',
    options.detection ?? DEFAULT_DETECTION,
    `level: ${options.level ?? 'high'}`,
  ];
  if (options.tags && options.tags.length > 0) lines.push('tags:', ...options.tags.map((t) => `  - ${t}`));
  return `${lines.join('\n')}\n`;
}

/** A rule matching events whose `field` equals `value` (field names as written). */
export function equalsRule(title: string, field: string, value: string, level = 'medium', tags: string[] = []): string {
  return sigma({ title, level, tags, detection: `  selection:\n    ${field}: '${value}'\n  condition: selection` });
}

export const WHOAMI_EVENT = { Image: 'C:\\Windows\\System32\\whoami.exe', User: 'alice' };
export const SYSTEM_WHOAMI_EVENT = { Image: 'C:\\Windows\\System32\\whoami.exe', User: 'SYSTEM' };

/** Creates a user through the admin's existing session and logs it in (one login fewer than userWithRole). */
export async function userAs(admin: Client, role: 'admin' | 'analyst' | 'viewer', username: string): Promise<Client> {
  const password = `${username}-password-123`;
  const created = await admin.post('/api/users', { username, password, role });
  assert.equal(created.statusCode, 201, created.body);
  return login(admin.service, username, password);
}

export function backendOf(service: Service): EmbeddedBackend {
  return service.context.backend as unknown as EmbeddedBackend;
}

/** Runs `work` while the search backend reports itself unavailable. */
export async function whileBackendOffline<T>(service: Service, work: () => Promise<T>): Promise<T> {
  backendOf(service).setAvailable(false);
  try {
    return await work();
  } finally {
    backendOf(service).setAvailable(true);
  }
}

export interface CreatedPattern {
  id: string;
  name: string;
  percolator_index: string;
  ingest_token: string;
  [key: string]: unknown;
}

export async function createPattern(admin: Client, body: Record<string, unknown>): Promise<CreatedPattern> {
  const response = await admin.post('/api/index_patterns', body);
  assert.equal(response.statusCode, 201, response.body);
  return response.data as CreatedPattern;
}

/** The usual cast of a suite: the admin, an analyst and a viewer (named as given), and an index pattern. */
export async function setUpTeam(
  service: Service,
  analystName: string,
  viewerName: string,
  patternBody: Record<string, unknown>,
): Promise<{ admin: Client; analyst: Client; viewer: Client; pattern: CreatedPattern }> {
  const admin = await loginAdmin(service);
  const analyst = await userAs(admin, 'analyst', analystName);
  const viewer = await userAs(admin, 'viewer', viewerName);
  return { admin, analyst, viewer, pattern: await createPattern(admin, patternBody) };
}

export async function createRule(client: Client, body: Record<string, unknown>): Promise<Record<string, Json>> {
  const response = await client.post('/api/rules', body);
  assert.equal(response.statusCode, 201, response.body);
  return response.data;
}

export function ingest(service: Service, pattern: { name: string; ingest_token: string }, events: unknown): Promise<Response> {
  return anonymous(service).post(`/api/logs/${pattern.name}`, events, { authorization: `Bearer ${pattern.ingest_token}` });
}

/** Asserts an error response: status, detail and the {detail, status_code} body of decisions §2. */
export function assertError(response: Response, status: number, detail: string | RegExp): void {
  assert.equal(response.statusCode, status, response.body);
  if (typeof detail === 'string') assert.equal(response.data?.detail, detail, response.body);
  else assert.match(String(response.data?.detail), detail, response.body);
  assert.equal(response.data.status_code, status, response.body);
}

export async function countRows(service: Service, sql: string, params: unknown[]): Promise<number> {
  const [row] = await service.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params);
  return Number(row.n);
}

/** Sends a binary body (a zip) as the web UI would (session token and CSRF header). */
export async function postBinary(client: Client, url: string, body: Buffer): Promise<{ statusCode: number; body: string; data: Json }> {
  const response = await client.service.app.inject({
    method: 'POST',
    url,
    payload: body,
    headers: { authorization: `Bearer ${client.token}`, 'x-csrf-token': client.csrf!, 'content-type': 'application/zip' },
  });
  let data: unknown;
  try {
    data = JSON.parse(response.body);
  } catch {
    data = undefined;
  }
  return { statusCode: response.statusCode, body: response.body, data };
}

export const NIL_UUID = '00000000-0000-4000-8000-000000000000';

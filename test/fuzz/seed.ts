// Seed data for the fuzz suite, written through the HTTP API of a running service: the admin, an
// analyst and a viewer signed in (each with its CSRF token), an index pattern, deployed rules, alerts
// raised by ingesting events, a rule exception, an alert comment, a threat-intel feed and an API key, so the
// fuzzer's requests meet real rows and not only empty lists.
import assert from 'node:assert/strict';

export interface Identity {
  name: 'admin' | 'analyst' | 'viewer' | 'anonymous';
  /** Headers every request of this identity carries (none for anonymous). */
  headers: Record<string, string>;
}

/** What the seed created: the identities, and ids and names the fuzzer may use in paths. */
export interface Seeded {
  identities: Identity[];
  /** Ids of every seeded resource (users, index pattern, rules, alerts, feed): `{id}` path values. */
  ids: string[];
  exceptionIds: string[];
  patternNames: string[];
  /** The index pattern's ingest token (`/api/logs/{name}` and `/api/es` take it, not a session). */
  ingestToken: string;
  /** An analyst's API key (`/api/external/*` takes it, not a session). */
  apiKey: string;
}

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

async function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; data: Json; text: string }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let data: Json;
  try {
    data = JSON.parse(text);
  } catch {
    data = undefined;
  }
  return { status: response.status, data, text };
}

async function signIn(base: string, username: string, password: string, name: Identity['name']): Promise<Identity> {
  const login = await call(base, 'POST', '/api/auth/login', { username, password });
  assert.equal(login.status, 200, `login of ${username}: ${login.text}`);
  const authorization = `Bearer ${login.data.access_token as string}`;
  const csrf = await call(base, 'GET', '/api/auth/csrf', undefined, { authorization });
  assert.equal(csrf.status, 200, csrf.text);
  return { name, headers: { authorization, 'x-csrf-token': csrf.data.csrf_token as string } };
}

const detection = (field: string, value: string) => `  selection:\n    ${field}: '${value}'\n  condition: selection`;
const rule = (title: string, level: string, field: string, value: string) =>
  [
    `title: ${title}`,
    'status: test',
    `description: ${title} seen in process creation events`,
    'author: Vigil fuzz suite',
    'logsource:',
    '  category: process_creation',
    '  product: windows',
    'detection:',
    detection(field, value),
    `level: ${level}`,
    'tags:',
    '  - attack.discovery',
  ].join('\n') + '\n';

/** Seeds the service at `base`: the four identities the fuzzer runs as and the resources they meet. */
export async function seed(base: string, adminPassword: string): Promise<Seeded> {
  const admin = await signIn(base, 'admin', adminPassword, 'admin');
  const as = (who: Identity, method: string, path: string, body?: unknown) => call(base, method, path, body, who.headers);
  const created = async (who: Identity, path: string, body: unknown): Promise<Json> => {
    const response = await as(who, 'POST', path, body);
    assert.equal(response.status, 201, `POST ${path}: ${response.text}`);
    return response.data;
  };

  const identities: Identity[] = [admin];
  const ids: string[] = [];
  for (const role of ['analyst', 'viewer'] as const) {
    const password = `${role}-fuzz-password-123`;
    ids.push((await created(admin, '/api/users', { username: `fuzz-${role}`, password, role })).id as string);
    identities.push(await signIn(base, `fuzz-${role}`, password, role));
  }
  identities.push({ name: 'anonymous', headers: {} });
  const analyst = identities[1];

  const pattern = await created(admin, '/api/index_patterns', { name: 'fuzz-windows', is_default: true, description: 'Windows process events' });
  const rules: Json[] = [];
  for (const [title, level, field, value] of [
    ['Whoami Execution', 'high', 'Image|endswith', '\\whoami.exe'],
    ['Net User Enumeration', 'medium', 'CommandLine|contains', 'net user'],
    ['Encoded PowerShell', 'critical', 'CommandLine|contains', '-enc'],
  ]) {
    rules.push(await created(analyst, '/api/rules', { yaml_content: rule(title, level, field, value), deploy: true }));
  }
  const exception = await created(analyst, `/api/rules/${rules[0].id as string}/exceptions`, { field: 'User', operator: 'equals', value: 'svc-backup', reason: 'backup job' });

  const events = [
    { '@timestamp': '2026-11-01T10:00:00Z', Image: 'C:\\Windows\\System32\\whoami.exe', User: 'alice', Computer: 'ws-01.corp', SourceIp: '10.1.2.3' },
    { '@timestamp': '2026-11-01T10:05:00Z', Image: 'C:\\Windows\\System32\\net.exe', CommandLine: 'net user /domain', User: 'bob', Computer: 'ws-02.corp' },
    { '@timestamp': '2026-11-01T10:10:00Z', Image: 'C:\\powershell.exe', CommandLine: 'powershell -enc SQBFAFgA', User: 'carol', SourceIp: '192.0.2.7' },
    { '@timestamp': '2026-11-01T10:15:00Z', Image: 'C:\\notepad.exe', User: 'dave' },
  ];
  const ingested = await call(base, 'POST', `/api/logs/${pattern.name as string}`, events, { authorization: `Bearer ${pattern.ingest_token as string}` });
  assert.equal(ingested.status, 200, ingested.text);
  assert.equal(ingested.data.alerts_created, 3, ingested.text);

  const alerts = await as(analyst, 'GET', '/api/alerts');
  assert.equal(alerts.status, 200, alerts.text);
  const alertId = alerts.data.items[0].id as string;
  await created(analyst, `/api/alerts/${alertId}/comments`, { text: 'Looked at this one; the user says it was a test.' });
  const triaged = await as(analyst, 'PATCH', `/api/alerts/${alerts.data.items[1].id as string}`, { status: 'acknowledged' });
  assert.equal(triaged.status, 200, triaged.text);
  const feed = await created(admin, '/api/threat_intel/feeds', { name: 'fuzz-addresses', format: 'plain', content: '192.0.2.7\nevil.example\n' });
  const key = await created(analyst, '/api/api_keys', { name: 'fuzz integration' });
  ids.push(key.id as string, pattern.id as string, ...rules.map((r) => r.id as string), ...alerts.data.items.map((a: Json) => a.id as string), feed.id as string);
  return { identities, ids, exceptionIds: [exception.id as string], patternNames: [pattern.name as string], ingestToken: pattern.ingest_token as string, apiKey: key.key as string };
}

// Every status an operation answers is in its OpenAPI description. Two checks:
//   - a probe: each operation of GET /api/openapi.json is driven, as a real client would drive it, into
//     the conditions that produce the generic answers — no credentials, an unknown API key, a valid
//     key, a key past its rate limit, a viewer, a session write without its CSRF token, a content type
//     the operation does not read, malformed JSON, an unexpected field, a body over any limit, unknown
//     ids, a bad query parameter — and every status it answers must be documented for it (a 500 never);
//   - a static one over the route definitions: each error a route's own code raises (badRequest(),
//     conflict(), new HttpError(409, …), reply.code(…), …) is documented for that route's operation.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { anonymous, Client, loginAdmin, type Response } from '../helpers/service.js';
import { createKey, describeEachDatabaseWith, keyClient, ManualClock } from '../access/fixtures.js';
import { createPattern, userAs, type CreatedPattern, type Json } from '../rules/fixtures.js';
import { repoRoot } from '../sigma/corpus-helpers.js';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Larger than every body limit (rule import: 32 MiB); sent as a Content-Length the server refuses before reading. */
const TOO_LARGE = 64 * 1024 * 1024;
/** Query strings every request of an operation carries (the live alert stream would otherwise stay open). */
const ALWAYS_QUERY: Record<string, string> = { 'GET /api/alerts/stream': 'last_event_id=not-a-number' };

interface Operation {
  key: string;
  method: Method;
  path: string;
  op: Json;
}

interface Probe {
  client: Client;
  method: Method;
  url: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
}

/** Path segments that cannot be Elasticsearch index names (`/api/es/{index}/_bulk` answers them 404). */
const ODD_INDEX_NAMES = ['_bulk', 'a%2Fb', 'a%20b', '%00', '-x', 'x%23y', '%2A'];

/** A clock that stays put, so every request of the probe falls in one rate-limit window. */
const clock = new ManualClock('2031-05-01T12:00:05.000Z');

describeEachDatabaseWith('documented statuses', { rateLimit: { now: clock.now } }, (ctx) => {
  let doc: Json;
  let operations: Operation[] = [];
  let pattern: CreatedPattern;
  let admin: Client;
  let viewer: Client;
  let key: Client;
  let spentKey: Client;
  let ingest: Client;
  const unknownKey = () => new Client(ctx.service, `svc_ak_${'Q'.repeat(43)}`);

  before(async () => {
    doc = (await anonymous(ctx.service).get('/api/openapi.json')).data as Json;
    operations = Object.entries<Json>(doc.paths).flatMap(([path, item]) =>
      Object.entries<Json>(item).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, method: method.toUpperCase() as Method, path, op })),
    );
    admin = await loginAdmin(ctx.service);
    const run = Math.random().toString(36).slice(2, 7);
    viewer = await userAs(admin, 'viewer', `statuses-viewer-${run}`);
    key = keyClient(ctx.service, await createKey(admin, { tier: 'high' }));
    spentKey = keyClient(ctx.service, await createKey(admin));
    for (let i = 0; i < 60; i++) assert.equal((await spentKey.get('/api/external/stats')).statusCode, 200);
    pattern = await createPattern(admin, { name: `statuses-${run}` });
    ingest = new Client(ctx.service, pattern.ingest_token);
  });

  /** The path with its parameters filled: `id` for uuids, the pattern's name, version 1. */
  function pathOf(op: Operation, id: string = randomUUID()): string {
    return op.path
      .replace(/\{(name|index)\}/g, id === 'unknown' ? 'no-such-pattern' : pattern.name)
      .replace('{version}', id === 'unknown' ? '999999' : '1')
      .replace(/\{[a-z_]+\}/g, () => (id === 'unknown' ? 'not-a-uuid' : id));
  }

  function withQuery(op: Operation, url: string, query?: string): string {
    const parts = [ALWAYS_QUERY[op.key], query].filter(Boolean);
    return parts.length ? `${url}?${parts.join('&')}` : url;
  }

  async function send(probe: Probe): Promise<Response> {
    const headers: Record<string, string> = { ...probe.headers };
    const body = probe.body ?? (WRITES.has(probe.method) ? '{}' : undefined);
    if (body !== undefined && !('content-type' in headers)) headers['content-type'] = 'application/json';
    return probe.client.request(probe.method, probe.url, body, headers);
  }

  /** A client the operation lets past access control, as its security requirements say. */
  async function passing(op: Operation): Promise<Client> {
    const schemes = new Set((op.op.security ?? [{ bearerAuth: [] }]).flatMap((r: Json) => Object.keys(r)));
    if (schemes.has('apiKey')) return key;
    if (schemes.has('ingestToken') || schemes.has('ingestBasic')) return ingest;
    if (schemes.size === 0) return anonymous(ctx.service);
    // A session of its own for each operation, so one that ends its session (logout) ends no other.
    return schemes.has('bearerAuth') ? loginAdmin(ctx.service) : admin;
  }

  /** An invalid value for a query parameter, by its schema. */
  function badValue(schema: Json): string {
    if (schema?.type === 'integer' || schema?.type === 'number') return 'not-a-number';
    if (schema?.type === 'boolean') return 'maybe';
    if (schema?.enum) return 'no-such-value';
    if (schema?.format === 'date-time') return 'yesterday';
    if (schema?.maxLength !== undefined) return 'x'.repeat(schema.maxLength + 1);
    return '';
  }

  /** The requests that drive `op` into each generic condition, with the condition's name. */
  async function probesOf(op: Operation): Promise<Array<[string, Probe]>> {
    const url = withQuery(op, pathOf(op));
    const write = WRITES.has(op.method);
    const readType = Object.keys(op.op.requestBody?.content ?? {})[0] ?? 'application/json';
    const through = await passing(op);
    const probes: Array<[string, Probe]> = [
      ['no credentials', { client: anonymous(ctx.service), method: op.method, url }],
      ['an unknown API key', { client: unknownKey(), method: op.method, url }],
      ['a valid API key', { client: key, method: op.method, url }],
      ['an API key past its rate limit', { client: spentKey, method: op.method, url }],
      ['a viewer', { client: viewer, method: op.method, url }],
    ];
    if (op.path.includes('{')) probes.push(['unknown ids', { client: through, method: op.method, url: withQuery(op, pathOf(op, 'unknown')) }]);
    if (op.path.includes('{')) probes.push(['an undecodable path', { client: through, method: op.method, url: withQuery(op, op.path.replace(/\{[a-z_]+\}/g, '%E0%A4%A')) }]);
    for (const odd of ODD_INDEX_NAMES) {
      if (op.path.includes('{index}')) probes.push([`the index name ${odd}`, { client: through, method: op.method, url: withQuery(op, op.path.replace('{index}', odd)) }]);
    }
    for (const param of (op.op.parameters ?? []).filter((p: Json) => p.in === 'query')) {
      const value = badValue(param.schema);
      if (value !== '') probes.push([`a bad ${param.name}`, { client: through, method: op.method, url: withQuery(op, pathOf(op), `${param.name}=${encodeURIComponent(value)}`) }]);
    }
    if (write) {
      probes.push(
        ['a session write without its CSRF token', { client: new Client(ctx.service, admin.token), method: op.method, url }],
        ['a content type the operation does not read', { client: through, method: op.method, url, body: 'plain text', headers: { 'content-type': 'text/x-unknown' } }],
        ['malformed JSON', { client: through, method: op.method, url, body: '{"unterminated' }],
        ['an unexpected field', { client: through, method: op.method, url, body: '{"no_such_field": 1}' }],
        ['a body over every limit', { client: through, method: op.method, url, body: '{}', headers: { 'content-type': readType, 'content-length': String(TOO_LARGE) } }],
      );
    }
    // Last, as it may end the session it is sent with (logout).
    probes.push(['a request that passes access control', { client: through, method: op.method, url }]);
    return probes;
  }

  test('every status each operation answers, in every generic condition, is documented for it', async () => {
    const undocumented: string[] = [];
    const seen = new Map<string, Set<number>>();
    for (const op of operations) {
      const documented = Object.keys(op.op.responses ?? {});
      for (const [condition, probe] of await probesOf(op)) {
        const res = await send(probe);
        (seen.get(op.key) ?? seen.set(op.key, new Set()).get(op.key)!).add(res.statusCode);
        if (res.statusCode >= 500 && res.statusCode !== 503) undocumented.push(`${op.key} with ${condition}: ${res.statusCode} ${res.body.slice(0, 160)}`);
        else if (!documented.includes(String(res.statusCode))) {
          undocumented.push(`${op.key} with ${condition}: ${res.statusCode} is not documented (${documented.join(', ')}) — ${res.body.slice(0, 120)}`);
        }
      }
    }
    assert.deepEqual(undocumented, []);
    // The probe reaches the generic answers it is about (it is not passing for want of trying).
    const everywhere = (status: number) => operations.filter((op) => !seen.get(op.key)?.has(status)).map((op) => op.key);
    assert.deepEqual(everywhere(429), [], 'a spent key gets 429 everywhere');
    assert.deepEqual(everywhere(401), [], 'an unknown key gets 401 everywhere');
    const writes = operations.filter((op) => WRITES.has(op.method));
    assert.deepEqual(writes.filter((op) => !seen.get(op.key)?.has(413)).map((op) => op.key), [], 'every write refuses a body over its limit');
  });

  test('each error a route definition raises itself is documented for its operation', () => {
    const documented = new Map<string, string[]>();
    for (const item of Object.values<Json>(doc.paths)) for (const op of Object.values<Json>(item)) documented.set(op.operationId, Object.keys(op.responses));
    const raised = raisedByRoutes();
    assert.ok(raised.size >= 60, `route definitions found: ${raised.size}`);
    const missing: string[] = [];
    for (const [id, { file, statuses }] of raised) {
      const listed = documented.get(id);
      assert.ok(listed, `${file}: operationId ${id} is not in the document`);
      for (const status of statuses) if (status >= 400 && !listed.includes(String(status))) missing.push(`${id} (${file}): raises ${status}`);
    }
    assert.deepEqual(missing, []);
  });
});

/** The text without the callbacks of `eachId(…)`: what they throw becomes a `failed` entry of a bulk
 * answer, not the answer's status. */
function withoutPerIdWork(text: string): string {
  let out = text;
  for (let at = out.indexOf('eachId('); at >= 0; at = out.indexOf('eachId(', at + 1)) {
    let depth = 0;
    let end = at + 'eachId'.length;
    do {
      if (out[end] === '(') depth++;
      else if (out[end] === ')') depth--;
      end++;
    } while (depth > 0 && end < out.length);
    out = out.slice(0, at) + out.slice(end);
  }
  return out;
}

/** The route definitions of src/: for each registration with a literal operationId, the error statuses
 * its own code raises. */
function raisedByRoutes(): Map<string, { file: string; statuses: Set<number> }> {
  const helpers: Record<string, number> = { badRequest: 400, unauthorized: 401, forbidden: 403, notFound: 404, conflict: 409, unprocessable: 422, tooManyRequests: 429 };
  const out = new Map<string, { file: string; statuses: Set<number> }>();
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? walk(path) : name.endsWith('.ts') ? [path] : [];
    });
  for (const file of walk(join(repoRoot, 'src'))) {
    const text = readFileSync(file, 'utf8');
    const starts = [...text.matchAll(/\b(?:app|scope)\.(?:get|post|put|patch|delete|route)\(/g)].map((m) => m.index);
    starts.forEach((start, i) => {
      const chunk = withoutPerIdWork(text.slice(start, starts[i + 1] ?? text.length));
      const id = /operationId: '(\w+)'/.exec(chunk)?.[1];
      if (!id) return;
      const statuses = new Set<number>();
      for (const [name, status] of Object.entries(helpers)) if (new RegExp(`\\b${name}\\(`).test(chunk)) statuses.add(status);
      for (const m of chunk.matchAll(/new HttpError\((\d{3})|\.code\((\d{3})\)/g)) statuses.add(Number(m[1] ?? m[2]));
      out.set(id, { file: file.slice(repoRoot.length + 1), statuses });
    });
  }
  return out;
}

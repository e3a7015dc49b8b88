// Crash safety of ingest: `vigil serve` (a real process, on PostgreSQL and on the embedded database in
// a data directory) is killed with SIGKILL in the middle of a large _bulk request — while the body is
// still arriving, right after it has all been sent, and once its write transaction has begun (seen in
// pg_stat_activity on PostgreSQL, in the write-ahead log's files of the embedded database) — and
// restarted each time; the same body is then sent again. Every event ends up stored exactly once and
// every expected alert exists exactly once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { startServing, type Serving } from '../cli/vigil-process.js';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { openPglite } from '../../src/db/pglite.js';
import { createPostgresDatabase, postgresUnavailable } from '../helpers/databases.js';
import { sigma } from '../rules/fixtures.js';

const ROOT = resolve(import.meta.dirname, '../..');
const ADMIN_PASSWORD = 'admin-password-for-crash-tests';
const EVENTS = 20_000;
const MARK_EVERY = 97;
const MARKER = 'evil-command';

function serve(env: Record<string, string>): Promise<Serving> {
  return startServing({ ADMIN_PASSWORD, JWT_SECRET: 'crash-test-secret-of-at-least-32-characters', ...env }, 60_000);
}

async function kill9(running: Serving): Promise<void> {
  running.child.kill('SIGKILL');
  await running.exited;
}

async function stop(running: Serving): Promise<void> {
  running.child.kill('SIGTERM');
  const timer = setTimeout(() => running.child.kill('SIGKILL'), 15_000);
  await running.exited;
  clearTimeout(timer);
}

async function api(port: number, method: string, path: string, body?: unknown, auth?: { token: string; csrf?: string }) {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (auth) headers.authorization = `Bearer ${auth.token}`;
  if (auth?.csrf) headers['x-csrf-token'] = auth.csrf;
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = (await res.json()) as Record<string, unknown>;
  assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${JSON.stringify(data)}`);
  return data;
}

/** Sets up a pattern with a deployed rule matching MARKER; answers the pattern's ingest token. */
async function setUp(port: number): Promise<{ token: string; patternId: string }> {
  const login = await api(port, 'POST', '/api/auth/login', { username: 'admin', password: ADMIN_PASSWORD });
  const token = String(login.access_token);
  const csrf = String((await api(port, 'GET', '/api/auth/csrf', undefined, { token })).csrf_token);
  const pattern = await api(port, 'POST', '/api/index_patterns', { name: 'crashy' }, { token, csrf });
  const detection = `  selection:\n    message|contains: '${MARKER}'\n  condition: selection`;
  await api(port, 'POST', '/api/rules', { yaml_content: sigma({ title: 'Crash Marker', detection }), index_pattern: 'crashy', deploy: true }, { token, csrf });
  return { token: String(pattern.ingest_token), patternId: String(pattern.id) };
}

const marked = (seq: number) => seq % MARK_EVERY === 0;

function bulkBody(): Buffer {
  const start = Date.parse('2026-11-01T00:00:00Z');
  const lines: string[] = [];
  for (let seq = 0; seq < EVENTS; seq++) {
    lines.push('{"create":{"_index":"crash-test"}}');
    const message = marked(seq) ? `user=mallory ran ${MARKER} #${seq}` : `user=u${seq % 300} logged in #${seq}`;
    lines.push(JSON.stringify({ '@timestamp': new Date(start + seq * 1000).toISOString(), seq, host: `h${seq % 40}`, message }));
  }
  return Buffer.from(`${lines.join('\n')}\n`);
}

type Crash = 'mid-upload' | 'uploaded' | 'writing';

/** Sends the body; `crash` kills the server half-way through the upload, once all of it is sent, or
 * once `writing()` says its write transaction has begun (or it has answered, if that comes first). */
function sendBulk(
  running: Serving,
  token: string,
  body: Buffer,
  crash?: Crash,
  writing?: () => Promise<boolean>,
): Promise<{ status?: number; text?: string; error?: string }> {
  return new Promise((done) => {
    let answered = false;
    const finish = (outcome: { status?: number; text?: string; error?: string }) => {
      answered = true;
      done(outcome);
    };
    const req = request(
      { host: '127.0.0.1', port: running.port, method: 'POST', path: '/api/es/_bulk', headers: { 'content-type': 'application/x-ndjson', 'content-length': body.length, authorization: `ApiKey ${token}` } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => finish({ status: res.statusCode, text }));
        res.on('error', (error) => finish({ error: String(error) }));
      },
    );
    req.setTimeout(180_000, () => req.destroy(new Error('no answer in 180 s')));
    req.on('error', (error) => finish({ error: String(error) }));
    if (crash === 'mid-upload') {
      req.write(body.subarray(0, Math.floor(body.length / 2)), () => void kill9(running));
      return;
    }
    req.end(body, () => {
      if (crash === 'uploaded') void kill9(running);
      if (crash === 'writing' && writing) {
        void (async () => {
          const deadline = Date.now() + 120_000;
          while (!answered && Date.now() < deadline && !(await writing())) await new Promise((r) => setTimeout(r, 5));
          await kill9(running);
        })();
      }
    });
  });
}

/** The newest modification time of the embedded database's write-ahead log files. */
function walTime(dataDir: string): number {
  const wal = join(dataDir, 'pgdata', 'pg_wal');
  let newest = 0;
  for (const name of readdirSync(wal)) {
    const stat = statSync(join(wal, name));
    if (stat.isFile()) newest = Math.max(newest, stat.mtimeMs);
  }
  return newest;
}

/** Whether a session of `database` holds a transaction that has written (PostgreSQL). */
async function writingOn(url: string): Promise<() => Promise<boolean>> {
  const name = new URL(url).pathname.slice(1);
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  const probe = async () => {
    const { rows } = await client.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND backend_xid IS NOT NULL`, [name]);
    return Number(rows[0].n) > 0;
  };
  return Object.assign(probe, { close: () => client.end() });
}

interface Stored {
  events: number;
  distinctEvents: number;
  alertSeqs: number[];
}

async function storedIn(query: (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>, patternId: string): Promise<Stored> {
  const [counts] = await query(`SELECT count(*)::int AS n, count(DISTINCT event->>'seq')::int AS d FROM events WHERE index_pattern_id = $1`, [patternId]);
  const alerts = await query(`SELECT (event->>'seq')::int AS seq FROM alerts WHERE index_pattern_id = $1 ORDER BY 1`, [patternId]);
  return { events: Number(counts.n), distinctEvents: Number(counts.d), alertSeqs: alerts.map((a) => Number(a.seq)) };
}

/** Builds dist/ when the sources are newer, as `npm start` does (before any suite starts its clock). */
function ensureBuilt(): void {
  const built = spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--if-stale'], { cwd: ROOT, encoding: 'utf8', timeout: 180_000 });
  assert.equal(built.status, 0, `build failed:\n${built.stdout}\n${built.stderr}`);
}

ensureBuilt();
for (const kind of ['pglite', 'postgres'] as const) {
  describe(`a crash during a large ingest loses nothing and repeats nothing [${kind}]`, async () => {
    const reason = kind === 'postgres' ? await postgresUnavailable() : null;
    if (reason) {
      describe(`skipped: ${reason}`, { skip: reason }, () => {});
      return;
    }
    let dataDir: string;
    let database: { url: string; drop(): Promise<void> } | undefined;
    let running: Serving | undefined;
    const env = (): Record<string, string> => (database ? { DATABASE_URL: database.url, DATA_DIR: dataDir } : { DATA_DIR: dataDir });

    before(async () => {
      dataDir = mkdtempSync(join(tmpdir(), `vigil-crash-${kind}-`));
      if (kind === 'postgres') database = await createPostgresDatabase();
    });
    after(async () => {
      if (running && running.child.exitCode === null && running.child.signalCode === null) await kill9(running);
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    test('killed mid-upload, after the upload and while writing, restarted, re-sent: every event once, every alert once', { timeout: 600_000 }, async (t) => {
      const body = bulkBody();
      running = await serve(env());
      const { token, patternId } = await setUp(running.port);

      const crashes: Crash[] = ['mid-upload', 'uploaded', 'writing'];
      for (const crash of crashes) {
        const crashed: Serving = running;
        let writing: (() => Promise<boolean>) & { close?: () => Promise<void> };
        if (database) writing = await writingOn(database.url);
        else {
          const before = walTime(dataDir);
          writing = async () => walTime(dataDir) > before;
        }
        const outcome = await sendBulk(crashed, token, body, crash, writing);
        await crashed.exited;
        await writing.close?.();
        assert.equal(crashed.child.signalCode, 'SIGKILL', `${crash}: the server was killed (answer: ${outcome.status ?? outcome.error})`);
        if (database) {
          // Where the kill landed (the transaction is all or nothing): 0 before the commit, all after.
          const client = new pg.Client({ connectionString: database.url });
          await client.connect();
          const { rows } = await client.query('SELECT count(*)::int AS n FROM events');
          await client.end();
          t.diagnostic(`${crash}: ${rows[0].n} events stored when killed`);
        }
        running = await serve(env());
      }

      const resent = await sendBulk(running, token, body);
      assert.equal(resent.status, 200, resent.text ?? resent.error);
      const answer = JSON.parse(resent.text!) as { errors: boolean; items: Record<string, { status: number }>[] };
      assert.equal(answer.errors, false);
      assert.equal(answer.items.length, EVENTS);
      assert.ok(answer.items.every((item) => item.create.status === 201));
      // Once more: a duplicate delivery changes nothing.
      assert.equal((await sendBulk(running, token, body)).status, 200);
      await stop(running);

      let stored: Stored;
      if (database) {
        const client = new pg.Client({ connectionString: database.url });
        await client.connect();
        try {
          stored = await storedIn(async (sql, params) => (await client.query(sql, params)).rows, patternId);
        } finally {
          await client.end();
        }
      } else {
        const lite = await openPglite({ dataDir: join(dataDir, 'pgdata') });
        try {
          stored = await storedIn((sql, params) => lite.query(sql, params), patternId);
        } finally {
          await lite.close();
        }
      }
      const expected = Array.from({ length: EVENTS }, (_, seq) => seq).filter(marked);
      assert.equal(stored.events, EVENTS, 'every event stored, none twice');
      assert.equal(stored.distinctEvents, EVENTS);
      assert.deepEqual(stored.alertSeqs, expected, 'every expected alert exactly once');
    });
  });
}

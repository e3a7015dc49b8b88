// The real service for the end-to-end benches: `vigil serve` from the current sources in a child process,
// on a fresh embedded database (temporary DATA_DIR) or a fresh database on the PostgreSQL server of
// BENCH_DATABASE_URL / TEST_DATABASE_URL, with an HTTP client that logs in as the admin, creates index
// patterns, imports rules and sends events. The child's CPU time is read from /proc (Linux).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { Queryable } from '../src/db/database.js';
import { openPglite } from '../src/db/pglite.js';

export type BenchDatabase = 'pglite' | 'postgres';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ADMIN_PASSWORD = 'bench-admin-password';

/** The PostgreSQL server the benches may create databases on, if any. */
export const postgresServerUrl = (): string | undefined => process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;

/** Which databases to bench: BENCH_DATABASES=pglite,postgres (default: both when a server is configured). */
export function benchDatabases(): BenchDatabase[] {
  const wanted = (process.env.BENCH_DATABASES ?? 'pglite,postgres').split(',').map((s) => s.trim());
  return (['pglite', 'postgres'] as const).filter((k) => wanted.includes(k) && (k === 'pglite' || postgresServerUrl() !== undefined));
}

function dirSize(path: string): number {
  let total = 0;
  for (const name of readdirSync(path)) {
    const p = join(path, name);
    const st = statSync(p);
    total += st.isDirectory() ? dirSize(p) : st.size;
  }
  return total;
}

export interface HttpAnswer {
  status: number;
  data: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export class BenchService {
  private token = '';
  private csrf = '';

  private constructor(
    readonly kind: BenchDatabase,
    readonly url: string,
    private readonly child: ChildProcess,
    private readonly dataDir: string | undefined,
    /** The PostgreSQL database's URL (postgres only). */
    readonly databaseUrl: string | undefined,
    private readonly dropDatabase: () => Promise<void>,
    private readonly env: Record<string, string>,
  ) {}

  static async start(kind: BenchDatabase, env: Record<string, string> = {}): Promise<BenchService> {
    let dataDir: string | undefined;
    let databaseUrl: string | undefined;
    let dropDatabase = async () => {};
    if (kind === 'postgres') {
      const server = postgresServerUrl()!;
      const name = `vigil_bench_${randomBytes(5).toString('hex')}`;
      const admin = new pg.Client({ connectionString: server });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      const target = new URL(server);
      target.pathname = `/${name}`;
      databaseUrl = target.toString();
      dropDatabase = async () => {
        const cleanup = new pg.Client({ connectionString: server });
        await cleanup.connect();
        await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await cleanup.end();
      };
    } else {
      dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-'));
    }
    return BenchService.launch(kind, env, dataDir, databaseUrl, dropDatabase);
  }

  /**
   * Another instance on the PostgreSQL database of `first` (postgres only), as a second instance of a
   * deployment runs: the same DATABASE_URL. Its drop() stops it and leaves the database to `first`.
   */
  static async beside(first: BenchService, env: Record<string, string> = {}): Promise<BenchService> {
    if (!first.databaseUrl) throw new Error('a second instance needs a PostgreSQL database');
    return BenchService.launch(first.kind, env, undefined, first.databaseUrl, async () => {});
  }

  private static async launch(
    kind: BenchDatabase,
    env: Record<string, string>,
    dataDir: string | undefined,
    databaseUrl: string | undefined,
    dropDatabase: () => Promise<void>,
  ): Promise<BenchService> {
    // BENCH_CPU_PROF=<dir> writes a CPU profile of the service there when it stops.
    const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF] : [];
    const child = spawn(process.execPath, [...profile, '--import', 'tsx', join(repoRoot, 'bench/serve.ts')], {
      cwd: repoRoot,
      env: {
        ...process.env,
        ...env,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        ADMIN_PASSWORD,
        DATA_DIR: dataDir ?? join(tmpdir(), 'vigil-bench-unused'),
        DATABASE_URL: databaseUrl ?? '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const url = await new Promise<string>((ok, fail) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /serving on (http:\/\/\S+)/.exec(out);
        if (m) ok(m[1]);
      });
      child.once('exit', (code) => fail(new Error(`vigil serve exited (${code}): ${stderr}`)));
    });
    const service = new BenchService(kind, url, child, dataDir, databaseUrl, dropDatabase, env);
    const login = await service.request('POST', '/api/auth/login', { username: 'admin', password: ADMIN_PASSWORD });
    service.token = login.data.access_token;
    service.csrf = (await service.request('GET', '/api/auth/csrf')).data.csrf_token;
    return service;
  }

  /** Stops the service and starts it again on the same database (the answer replaces this one). */
  async restart(): Promise<BenchService> {
    await this.stop();
    return BenchService.launch(this.kind, this.env, this.dataDir, this.databaseUrl, this.dropDatabase);
  }

  /** CPU time (user + system) of the service process so far, in ms. */
  cpuMs(): number {
    const stat = readFileSync(`/proc/${this.child.pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  }

  /** Bytes of the embedded data directory (pglite only). */
  dataDirBytes(): number {
    return this.dataDir ? dirSize(this.dataDir) : NaN;
  }

  async request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpAnswer> {
    const all: Record<string, string> = { ...headers };
    if (this.token && !all.authorization) all.authorization = `Bearer ${this.token}`;
    if (this.csrf && method !== 'GET') all['x-csrf-token'] = this.csrf;
    let payload: string | Uint8Array | undefined;
    if (body instanceof Uint8Array || typeof body === 'string') payload = body;
    else if (body !== undefined) {
      payload = JSON.stringify(body);
      all['content-type'] ??= 'application/json';
    }
    const response = await fetch(this.url + path, { method, headers: all, body: payload });
    const text = await response.text();
    let data: unknown;
    try {
      data = text ? JSON.parse(text) : undefined;
    } catch {
      data = text;
    }
    return { status: response.status, data };
  }

  /**
   * A request that may take longer than fetch waits for an answer's headers (5 minutes): sent with
   * node:http, which waits as long as the server does. JSON in, JSON out.
   */
  async requestLong(method: string, path: string, body?: unknown): Promise<HttpAnswer> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}` };
    if (method !== 'GET') headers['x-csrf-token'] = this.csrf;
    if (payload !== undefined) headers['content-type'] = 'application/json';
    return new Promise((ok, fail) => {
      const req = httpRequest(this.url + path, { method, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => ok({ status: res.statusCode ?? 0, data: text ? JSON.parse(text) : undefined }));
        res.on('error', fail);
      });
      req.on('error', fail);
      req.end(payload);
    });
  }

  async ok(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<HttpAnswer['data']> {
    const answer = await this.request(method, path, body, headers);
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.data).slice(0, 500)}`);
    return answer.data;
  }

  /** Creates an index pattern; answers its id and ingest token. */
  async createPattern(name: string, settings: Record<string, unknown> = {}): Promise<{ id: string; token: string }> {
    const data = await this.ok('POST', '/api/index_patterns', { name, ...settings });
    return { id: data.id, token: data.ingest_token };
  }

  /** A SQL client on the service's PostgreSQL database (postgres only). */
  async sql(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: this.databaseUrl });
    await client.connect();
    return client;
  }

  /**
   * Runs `work` with SQL access to the service's database, for loading rows in bulk: on PostgreSQL
   * beside the running service; on the embedded database the service is stopped (one process per data
   * directory) and started again afterwards. Answers the service to use from then on.
   */
  async load<T>(work: (db: Queryable) => Promise<T>): Promise<{ service: BenchService; result: T }> {
    if (this.databaseUrl) {
      const client = await this.sql();
      try {
        return { service: this, result: await work({ query: async (sql, params) => (await client.query(sql, params as unknown[])).rows }) };
      } finally {
        await client.end();
      }
    }
    await this.stop();
    const db = await openPglite({ dataDir: this.pgdata });
    let result: T;
    try {
      result = await work(db);
    } finally {
      await db.close();
    }
    return { service: await this.restart(), result };
  }

  /** Stops the service (and keeps the embedded data directory until drop()). */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((ok) => this.child.once('exit', ok));
    this.child.kill('SIGTERM');
    await exited;
  }

  /** The embedded data directory's database files (pglite only; after stop()). */
  get pgdata(): string | undefined {
    return this.dataDir ? join(this.dataDir, 'pgdata') : undefined;
  }

  async drop(): Promise<void> {
    await this.stop();
    if (this.dataDir) rmSync(this.dataDir, { recursive: true, force: true });
    await this.dropDatabase();
  }
}

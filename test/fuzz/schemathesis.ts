// The standing fuzz suite: schemathesis (installed by scripts/fuzz-up.sh) generates requests for the
// operations of /api/openapi.json of a real `vigil serve` process, seeded with data, as one identity
// (anonymous, viewer, analyst or admin: one test file each, so the four runs go side by side, each on
// servers of their own). No answer may be a 5xx and every answer must match the schema its operation
// declares for that status. Deterministic (derandomised generation, bounded examples per operation).
//
// Both databases, at the cost of one: with TEST_DATABASE_URL set, each identity's run is split between
// a server on PGlite and one on PostgreSQL. An operation goes to one of them by a hash of its
// operationId (the low bit of its SHA-256: 0 PGlite, 1 PostgreSQL), so each database gets about half,
// always the same half; a small shared set (SHARED_OPERATIONS: health, the alert list, rule creation,
// ingestion) runs on both. The two halves run side by side. Without TEST_DATABASE_URL every operation
// runs on PGlite (with CI=true a missing PostgreSQL fails instead). Skipped with a message when schemathesis is not installed; with
// CI=true that fails instead.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../sigma/corpus-helpers.js';
import { freePort, vigilArgv } from '../cli/vigil-process.js';
import { createPostgresDatabase, postgresUnavailable, type DatabaseKind } from '../helpers/databases.js';
import { seed, type Identity, type Seeded } from './seed.js';

const FUZZ_DIR = process.env.VIGIL_FUZZ_DIR || join(homedir(), '.cache', 'vigil-fuzz');
const SCHEMATHESIS = join(FUZZ_DIR, 'bin', 'schemathesis');
const ADMIN_PASSWORD = 'fuzz-admin-password-123';
/** Test cases per operation and phase; with the coverage phase's own cases this keeps each run within a few minutes. */
const MAX_EXAMPLES = Number(process.env.VIGIL_FUZZ_EXAMPLES || 10);

const missing = existsSync(SCHEMATHESIS) ? undefined : `schemathesis is not installed at ${SCHEMATHESIS} (run scripts/fuzz-up.sh)`;

/** The operations no identity fuzzes, and why. */
const EXCLUDED_PATHS = [
  // Logout revokes the session the run signs its requests with: every later request would only
  // test the 401 answer. Its own behaviour is covered by test/auth/login.test.ts.
  '/api/auth/logout',
];

/** Operations fuzzed on both databases when both run: the ones whose SQL matters most (reads with
 * filters, a versioned write, the ingest pipeline's transaction). */
const SHARED_OPERATIONS = new Set(['getHealth', 'listAlerts', 'createRule', 'ingestEvents']);

/** The database an operation is fuzzed on when both run (`both` for the shared set). */
export function databaseOf(operationId: string): DatabaseKind | 'both' {
  if (SHARED_OPERATIONS.has(operationId)) return 'both';
  return (createHash('sha256').update(operationId).digest()[0] & 1) === 0 ? 'pglite' : 'postgres';
}

const toml = (value: string) => JSON.stringify(value);
const tomlList = (values: string[]) => `[${values.map(toml).join(', ')}]`;
const tomlTable = (entries: Record<string, string>) =>
  `{ ${Object.entries(entries)
    .map(([k, v]) => `${toml(k)} = ${toml(v)}`)
    .join(', ')} }`;

/** The schemathesis configuration of one identity's run: its headers, real ids offered for path
 * parameters half of the time, and the ingest token on the routes that take it. */
function configFor(identity: Identity, seeded: Seeded): string {
  const lines = [
    `headers = ${tomlTable(identity.headers)}`,
    'request-timeout = 30',
    // The alert stream never ends on its own: the fuzzer reads its first event and closes it.
    'max-stream-events = 1',
    '',
    '[dictionaries.ids]',
    `values = ${tomlList(seeded.ids)}`,
    '[dictionaries.exception_ids]',
    `values = ${tomlList(seeded.exceptionIds)}`,
    '[dictionaries.pattern_names]',
    `values = ${tomlList(seeded.patternNames)}`,
    '[dictionaries.versions]',
    'values = ["1", "2"]',
    '',
    '[parameters]',
    '"path.id" = { dictionary = "ids", probability = 0.5 }',
    '"path.eid" = { dictionary = "exception_ids", probability = 0.5 }',
    '"path.name" = { dictionary = "pattern_names", probability = 0.5 }',
    '"path.version" = { dictionary = "versions", probability = 0.5 }',
    '"path.index" = { dictionary = "pattern_names", probability = 0.5 }',
  ];
  if (identity.name === 'anonymous') {
    // Ingestion is authenticated by the index pattern's token and the external API by an API key, not
    // by a session: the anonymous run carries them there, so both are fuzzed past their authentication
    // (the other runs get 401s).
    lines.push('', '[[operations]]', 'include-path-regex = "^/api/(logs|es)(/|$)"', `headers = ${tomlTable({ Authorization: `Bearer ${seeded.ingestToken}` })}`);
    lines.push('', '[[operations]]', 'include-path-regex = "^/api/external/"', `headers = ${tomlTable({ Authorization: `Bearer ${seeded.apiKey}` })}`);
  }
  return `${lines.join('\n')}\n`;
}

interface Outcome {
  code: number | null;
  output: string;
}

/** Runs schemathesis on the operations of `url`'s document whose operationId is in `only` (all when unset). */
function runSchemathesis(configFile: string, url: string, only?: string[]): Promise<Outcome> {
  const args = [
    '--config-file',
    configFile,
    'run',
    url,
    '--checks',
    'not_a_server_error,response_schema_conformance',
    '--max-examples',
    String(MAX_EXAMPLES),
    '--generation-deterministic',
    '--seed',
    '1',
    '--workers',
    '1',
    '--no-color',
    ...EXCLUDED_PATHS.flatMap((path) => ['--exclude-path', path]),
    ...(only ? ['--include-operation-id-regex', `^(${only.join('|')})$`] : []),
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(SCHEMATHESIS, args, { cwd: tmpdir(), env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** The part of a run's report that says what failed (the whole report when it has no such section). */
function failures(output: string): string {
  const start = output.search(/^=+ (FAILURES|ERRORS) =+$/m);
  return (start >= 0 ? output.slice(start) : output).slice(-60_000);
}

/** A `vigil serve` process on a fresh database of `kind`, seeded through its API. */
interface Server {
  kind: DatabaseKind;
  base: string;
  process: ChildProcess;
  output: string;
  seeded: Seeded;
  stop(): Promise<void>;
}

async function startServer(kind: DatabaseKind): Promise<Server> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-fuzz-data-'));
  const database = kind === 'postgres' ? await createPostgresDatabase({ migrated: true }) : undefined;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', ADMIN_PASSWORD, LOG_LEVEL: 'warn' };
  for (const name of ['DATABASE_URL', 'ADMIN_USERNAME', 'JWT_SECRET', 'PUBLIC_URL', 'SEARCH_BACKEND', 'OIDC_ISSUER']) delete env[name];
  if (database) env.DATABASE_URL = database.url;
  const child = spawn(process.execPath, vigilArgv(['serve']), { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const server: Server = {
    kind,
    base,
    process: child,
    output: '',
    seeded: undefined as unknown as Seeded,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dataDir, { recursive: true, force: true });
      await database?.drop();
    },
  };
  child.stdout.setEncoding('utf8').on('data', (d: string) => (server.output += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (server.output += d));
  try {
    await new Promise<void>((resolve, reject) => {
      const ready = () => {
        if (server.output.includes('Vigil is serving on')) {
          child.stdout.off('data', ready);
          child.off('exit', exited);
          resolve();
        }
      };
      const exited = (code: number | null) => reject(new Error(`vigil serve on ${kind} exited with ${code} before serving:\n${server.output}`));
      child.stdout.on('data', ready);
      child.once('exit', exited);
    });
    server.seeded = await seed(base, ADMIN_PASSWORD);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}

const DATABASE_NAMES: Record<DatabaseKind, string> = { pglite: 'PGlite', postgres: 'PostgreSQL' };

/** The suite of one identity's run, against servers of its own. */
export function describeFuzzRun(name: Identity['name']): void {
  describe(`fuzzing the OpenAPI description with schemathesis as ${name}`, async () => {
    if (missing && process.env.CI !== 'true') {
      test(`skipped: ${missing}`, { skip: missing }, () => {});
      return;
    }
    const noPostgres = await postgresUnavailable();
    const kinds: DatabaseKind[] = noPostgres ? ['pglite'] : ['pglite', 'postgres'];
    if (noPostgres) test(`PostgreSQL half skipped (every operation runs on PGlite): ${noPostgres}`, { skip: noPostgres }, () => {});

    const servers = new Map<DatabaseKind, Server>();
    let work: string;
    let operationIds: string[] = [];

    before(async () => {
      assert.ok(!missing, `${missing}; CI needs the fuzz suite`);
      work = mkdtempSync(join(tmpdir(), 'vigil-fuzz-'));
      const started = await Promise.allSettled(kinds.map((kind) => startServer(kind)));
      for (const result of started) if (result.status === 'fulfilled') servers.set(result.value.kind, result.value);
      const failed = started.find((r) => r.status === 'rejected');
      if (failed) throw (failed as PromiseRejectedResult).reason;
      const doc = (await (await fetch(`${servers.get('pglite')!.base}/api/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId: string }>> };
      operationIds = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    });

    after(async () => {
      await Promise.all([...servers.values()].map((server) => server.stop()));
      if (work) rmSync(work, { recursive: true, force: true });
    });

    if (kinds.length > 1) {
      test('each database gets about half of the operations, and the shared set on both', () => {
        const on = (kind: DatabaseKind) => operationIds.filter((id) => [kind, 'both'].includes(databaseOf(id))).length;
        for (const kind of kinds) assert.ok(on(kind) > operationIds.length * 0.3 && on(kind) < operationIds.length * 0.7, `${kind}: ${on(kind)} of ${operationIds.length}`);
        assert.equal(operationIds.filter((id) => databaseOf(id) === 'both').length, SHARED_OPERATIONS.size);
      });
    }
    /** The run on each database: both start together (each is half the work; side by side they take
     * about as long as one run of everything), and each test awaits its own. */
    const runs = new Map<DatabaseKind, Promise<Outcome>>();
    const runOn = (kind: DatabaseKind): Promise<Outcome> => {
      if (runs.size === 0) {
        for (const k of kinds) {
          const server = servers.get(k)!;
          const identity = server.seeded.identities.find((i) => i.name === name)!;
          const configFile = join(work, `${name}-${k}.toml`);
          writeFileSync(configFile, configFor(identity, server.seeded));
          const only = kinds.length > 1 ? operationIds.filter((id) => [k, 'both'].includes(databaseOf(id))) : undefined;
          runs.set(k, runSchemathesis(configFile, `${server.base}/api/openapi.json`, only));
        }
      }
      return runs.get(kind)!;
    };
    for (const kind of kinds) {
      test(`as ${name} on ${DATABASE_NAMES[kind]}: no 5xx, every answer matches its declared schema`, { timeout: 15 * 60_000 }, async () => {
        const server = servers.get(kind)!;
        const outcome = await runOn(kind);
        assert.equal(outcome.code, 0, `schemathesis as ${name} on ${kind} found failures:\n${failures(outcome.output)}`);
        assert.match(outcome.output, /Test cases:\s*\n\s*\d+ generated, \d+ passed/, outcome.output.slice(-5000));
        assert.ok(server.process.exitCode === null, `the server stopped during the run:\n${server.output.slice(-5000)}`);
      });
    }
  });
}

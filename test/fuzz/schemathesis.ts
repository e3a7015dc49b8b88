// The standing fuzz suite: schemathesis (installed by scripts/fuzz-up.sh) generates requests for every
// operation of /api/openapi.json of a real `vigil serve` process, seeded with data, as one identity
// (anonymous, viewer, analyst or admin: one test file each, so the four runs go side by side, each on a
// server of its own). No answer may be a 5xx and every answer must match the schema its operation
// declares for that status. Deterministic (derandomised generation, bounded examples per operation).
// Skipped with a message when schemathesis is not installed; with CI=true that fails instead.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../sigma/corpus-helpers.js';
import { freePort, vigilArgv } from '../cli/vigil-process.js';
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

function runSchemathesis(configFile: string, url: string): Promise<Outcome> {
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

/** The suite of one identity's run, against a server of its own. */
export function describeFuzzRun(name: Identity['name']): void {
  describe(`fuzzing the OpenAPI description with schemathesis as ${name}`, () => {
    if (missing && process.env.CI !== 'true') {
      test(`skipped: ${missing}`, { skip: missing }, () => {});
      return;
    }

    let server: ChildProcess | undefined;
    let serverOutput = '';
    let dataDir: string;
    let work: string;
    let base: string;
    let seeded: Seeded;

    before(async () => {
      assert.ok(!missing, `${missing}; CI needs the fuzz suite`);
      dataDir = mkdtempSync(join(tmpdir(), 'vigil-fuzz-data-'));
      work = mkdtempSync(join(tmpdir(), 'vigil-fuzz-'));
      const port = await freePort();
      base = `http://127.0.0.1:${port}`;
      const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', ADMIN_PASSWORD, LOG_LEVEL: 'warn' };
      for (const name of ['DATABASE_URL', 'ADMIN_USERNAME', 'JWT_SECRET', 'PUBLIC_URL', 'SEARCH_BACKEND', 'OIDC_ISSUER']) delete env[name];
      const child = spawn(process.execPath, vigilArgv(['serve']), { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
      server = child;
      child.stdout.setEncoding('utf8').on('data', (d: string) => (serverOutput += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (serverOutput += d));
      await new Promise<void>((resolve, reject) => {
        const ready = () => {
          if (serverOutput.includes('Vigil is serving on')) {
            child.stdout.off('data', ready);
            child.off('exit', exited);
            resolve();
          }
        };
        const exited = (code: number | null) => reject(new Error(`vigil serve exited with ${code} before serving:\n${serverOutput}`));
        child.stdout.on('data', ready);
        child.once('exit', exited);
      });
      seeded = await seed(base, ADMIN_PASSWORD);
    });

    after(async () => {
      if (server && server.exitCode === null && server.signalCode === null) {
        const exited = new Promise((resolve) => server!.once('exit', resolve));
        server.kill('SIGTERM');
        const timer = setTimeout(() => server!.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
      if (work) rmSync(work, { recursive: true, force: true });
    });

    test(`as ${name}: no 5xx, every answer matches its declared schema`, { timeout: 15 * 60_000 }, async () => {
      const identity = seeded.identities.find((i) => i.name === name)!;
      const configFile = join(work, `${name}.toml`);
      writeFileSync(configFile, configFor(identity, seeded));
      const outcome = await runSchemathesis(configFile, `${base}/api/openapi.json`);
      assert.equal(outcome.code, 0, `schemathesis as ${name} found failures:\n${failures(outcome.output)}`);
      assert.match(outcome.output, /Test cases:\s*\n\s*\d+ generated, \d+ passed/, outcome.output.slice(-5000));
      assert.ok(server && server.exitCode === null, `the server stopped during the run:\n${serverOutput.slice(-5000)}`);
    });
  });
}

// Storage on PGlite and PostgreSQL: migrations, data and JWT secret surviving restarts, the bootstrap admin, and the embedded data-directory lock against other processes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { DataDirLockedError } from '../../src/db/data-dir-lock.js';
import { migrate } from '../../src/db/migrate.js';
import { migrations } from '../../src/db/migrations/index.js';
import { openDatabase } from '../../src/db/open.js';
import { createService, type Service } from '../../src/server.js';
import { createPostgresDatabase, DATABASE_KINDS, openTestDatabase, postgresUnavailable } from '../helpers/databases.js';
import { childLoader, projectModuleUrl } from '../helpers/child-node.js';
import { anonymous, Client, login } from '../helpers/service.js';

const ROOT = resolve(import.meta.dirname, '../..');
const src = (path: string) => projectModuleUrl(`src/${path}`);
const ROOT_PASSWORD = 'root-password-for-storage';

interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Environment for a child: ours without any Vigil settings, plus `env`. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = { ...process.env };
  for (const name of ['DATABASE_URL', 'DATA_DIR', 'ADMIN_USERNAME', 'ADMIN_PASSWORD', 'JWT_SECRET', 'PORT', 'HOST', 'PUBLIC_URL']) delete base[name];
  return { ...base, LOG_LEVEL: 'warn', ...env };
}

/** Runs TypeScript module code in a separate Node process. */
function runChild(code: string, env: Record<string, string>, options: { readyText?: string; timeoutMs?: number } = {}) {
  const child = spawn(process.execPath, [...childLoader, '--input-type=module', '-e', code], { cwd: ROOT, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const timeoutMs = options.timeoutMs ?? 20_000;
  const exited = new Promise<ChildResult>((resolveExit) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      // Let the pipes drain.
      setImmediate(() => resolveExit({ code, signal, stdout, stderr }));
    });
  });
  const ready = new Promise<void>((resolveReady, rejectReady) => {
    if (!options.readyText) return resolveReady();
    const check = () => {
      if (stdout.includes(options.readyText!)) resolveReady();
    };
    child.stdout.on('data', check);
    void exited.then((r) => rejectReady(new Error(`child exited before ready: ${r.code} ${r.signal}\n${r.stdout}\n${r.stderr}`)));
  });
  return { child, exited, ready };
}

const SERVE_CHILD = `const { main } = await import(${JSON.stringify(src('cli/main.ts'))}); process.exitCode = await main(['serve']);`;

for (const kind of DATABASE_KINDS) {
  describe(`storage [${kind}]`, async () => {
    const reason = kind === 'postgres' ? await postgresUnavailable() : null;
    if (reason) {
      describe(`skipped: ${reason}`, { skip: reason }, () => {});
      return;
    }

    /** Where this suite's service keeps its data: a data directory or a PostgreSQL database. */
    let storageEnv: Record<string, string> = {};
    let cleanup: () => Promise<void> = async () => {};
    let service: Service | undefined;
    let rootToken: string | undefined;

    before(async () => {
      if (kind === 'pglite') {
        const dir = mkdtempSync(join(tmpdir(), 'vigil-storage-'));
        storageEnv = { DATA_DIR: dir };
        cleanup = async () => rmSync(dir, { recursive: true, force: true });
      } else {
        const created = await createPostgresDatabase();
        storageEnv = { DATABASE_URL: created.url };
        cleanup = created.drop;
      }
    });
    after(async () => {
      await service?.close();
      await cleanup();
    });

    const start = (env: Record<string, string> = {}) => createService(loadConfig({ DATA_DIR: '/nonexistent-test-dir', ...storageEnv, ...env }));

    test('the first start migrates and creates the bootstrap admin with ADMIN_USERNAME/ADMIN_PASSWORD', async () => {
      service = await start({ ADMIN_USERNAME: 'root', ADMIN_PASSWORD: ROOT_PASSWORD });
      assert.deepEqual(service.bootstrap, { username: 'root', generatedPassword: undefined });
      const root = await login(service, 'root', ROOT_PASSWORD);
      rootToken = root.token;
      assert.equal((await root.get('/api/auth/me')).data.role, 'admin');
      const created = await root.post('/api/users', { username: 'keeper', password: 'keeper-password-1', role: 'analyst' });
      assert.equal(created.statusCode, 201);
      const health = await anonymous(service).get('/api/health');
      assert.equal(health.statusCode, 200);
      assert.equal(health.data.database, 'ok');
    });

    test('running the migrations again applies nothing', async () => {
      assert.ok(service);
      assert.deepEqual(await migrate(service.db), []);
      const rows = await service.db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
      assert.deepEqual(rows.map((r) => r.version), migrations.map((m) => m.version).sort((a, b) => a - b));
    });

    test('data, the generated JWT secret and sessions survive a restart, and no second admin is created', async () => {
      assert.ok(service && rootToken);
      const [secretBefore] = await service.db.query<{ value: string }>(`SELECT value FROM settings WHERE key = 'jwt_secret'`);
      assert.ok(secretBefore.value.length >= 32);
      await service.close();
      service = undefined;

      service = await start({ ADMIN_PASSWORD: 'a-different-admin-password' });
      assert.equal(service.bootstrap, null, 'users exist, so no bootstrap admin');
      const [secretAfter] = await service.db.query<{ value: string }>(`SELECT value FROM settings WHERE key = 'jwt_secret'`);
      assert.equal(secretAfter.value, secretBefore.value);

      const root = new Client(service, rootToken);
      const me = await root.get('/api/auth/me');
      assert.equal(me.statusCode, 200, 'a token from before the restart is still valid');
      assert.equal(me.data.username, 'root');
      const users = await root.get('/api/users?sort_by=username&sort_order=asc');
      assert.deepEqual(users.data.items.map((u: { username: string }) => u.username), ['keeper', 'root']);
      await login(service, 'keeper', 'keeper-password-1');
      const newAdmin = await anonymous(service).post('/api/auth/login', { username: 'admin', password: 'a-different-admin-password' });
      assert.equal(newAdmin.statusCode, 401);
    });

    if (kind === 'pglite') {
      test('a second process cannot open the data directory while it is in use', async () => {
        assert.ok(service);
        const { exited } = runChild(SERVE_CHILD, { ...storageEnv, PORT: '0' });
        const result = await exited;
        assert.equal(result.code, 1, `exit code; stderr: ${result.stderr}`);
        assert.match(result.stderr, /already in use by another Vigil process/);
        assert.ok(result.stderr.includes(`pid ${process.pid}`), result.stderr);
        assert.ok(result.stderr.includes(storageEnv.DATA_DIR), result.stderr);
        assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
        assert.doesNotMatch(result.stdout, /Vigil is serving/);
        // The first process is unaffected.
        assert.equal((await anonymous(service).get('/api/health')).statusCode, 200);
        assert.equal((await new Client(service, rootToken).get('/api/users')).data.total, 2);
      });

      test('the same process cannot open it twice either', async () => {
        await assert.rejects(openDatabase({ dataDir: storageEnv.DATA_DIR }), DataDirLockedError);
        assert.equal((await anonymous(service!).get('/api/health')).statusCode, 200);
      });

      test('closing releases the lock', async () => {
        await service!.close();
        service = undefined;
        assert.equal(existsSync(join(storageEnv.DATA_DIR, 'vigil.lock')), false);
      });

      test('a lock left by a killed process is taken over, and the data is intact', async () => {
        const holder = runChild(
          `const { openDatabase } = await import(${JSON.stringify(src('db/open.ts'))});
           await openDatabase({ dataDir: process.env.DATA_DIR });
           console.log('READY');
           setInterval(() => {}, 1000);`,
          storageEnv,
          { readyText: 'READY' },
        );
        await holder.ready;
        const lockPath = join(storageEnv.DATA_DIR, 'vigil.lock');
        assert.equal(readFileSync(lockPath, 'utf8').trim(), String(holder.child.pid));
        await assert.rejects(openDatabase({ dataDir: storageEnv.DATA_DIR }), /already in use by another Vigil process/);
        holder.child.kill('SIGKILL');
        const result = await holder.exited;
        assert.equal(result.signal, 'SIGKILL');
        assert.ok(existsSync(lockPath), 'the killed process could not clean up');

        service = await start();
        assert.equal(readFileSync(lockPath, 'utf8').trim(), String(process.pid));
        const root = new Client(service, rootToken);
        assert.equal((await root.get('/api/users')).data.total, 2);
        await service.close();
        service = undefined;
      });

      test('a lock naming our own pid from an earlier life (container restart) is taken over', async () => {
        const lockPath = join(storageEnv.DATA_DIR, 'vigil.lock');
        writeFileSync(lockPath, `${process.pid}\n`);
        service = await start();
        assert.equal((await anonymous(service).get('/api/health')).statusCode, 200);
      });
    }
  });
}

describe('data directory lock under concurrent starts', () => {
  test('of several processes starting at once, exactly one gets the lock', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-lock-race-'));
    try {
      const code = `const { lockDataDir } = await import(${JSON.stringify(src('db/data-dir-lock.ts'))});
        const go = Number(process.env.START_AT);
        while (Date.now() < go) {}
        let outcome;
        try { lockDataDir(process.env.DATA_DIR); outcome = 'LOCKED'; } catch (e) { outcome = 'REFUSED ' + e.message; }
        console.log(outcome);
        setTimeout(() => {}, 1000);`;
      for (let round = 0; round < 2; round++) {
        const startAt = String(Date.now() + 1500);
        const children = Array.from({ length: 3 }, () => runChild(code, { DATA_DIR: dir, START_AT: startAt }));
        const results = await Promise.all(children.map((c) => c.exited));
        const winners = results.filter((r) => r.stdout.includes('LOCKED'));
        assert.equal(winners.length, 1, `round ${round}: ${results.map((r) => r.stdout.trim() + r.stderr).join(' | ')}`);
        for (const r of results) assert.equal(r.code, 0, r.stderr);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('instances starting together on one PostgreSQL database', () => {
  test('all start, the schema is migrated once, one admin is created and tokens work on every instance', async (t) => {
    const reason = await postgresUnavailable();
    if (reason) return t.skip(reason);
    const created = await createPostgresDatabase();
    const services: Service[] = [];
    try {
      const config = loadConfig({ DATABASE_URL: created.url, ADMIN_PASSWORD: 'shared-admin-password' });
      const results = await Promise.allSettled(Array.from({ length: 4 }, () => createService(config)));
      for (const r of results) if (r.status === 'fulfilled') services.push(r.value);
      assert.deepEqual(
        results.map((r) => (r.status === 'fulfilled' ? 'started' : String((r.reason as Error).message))),
        ['started', 'started', 'started', 'started'],
      );
      assert.equal(services.filter((s) => s.bootstrap !== null).length, 1, 'exactly one instance created the admin');
      const rows = await services[0].db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
      assert.deepEqual(rows.map((r) => r.version), migrations.map((m) => m.version).sort((a, b) => a - b));
      const session = await login(services[0], 'admin', 'shared-admin-password');
      for (const other of services) assert.equal((await new Client(other, session.token).get('/api/auth/me')).statusCode, 200);
    } finally {
      for (const s of services) await s.close();
      await created.drop();
    }
  });
});

describe('bootstrap admin', () => {
  for (const kind of DATABASE_KINDS) {
    test(`a generated password is returned once and works [${kind}]`, async (t) => {
      const reason = kind === 'postgres' ? await postgresUnavailable() : null;
      if (reason) return t.skip(reason);
      const testDb = await openTestDatabase(kind);
      try {
        const config = loadConfig({ DATA_DIR: '/nonexistent-test-dir' });
        const first = await createService(config, { db: testDb.db });
        assert.equal(first.bootstrap?.username, 'admin');
        const password = first.bootstrap?.generatedPassword;
        assert.equal(typeof password, 'string');
        assert.ok(password!.length >= 16, 'generated password is long');
        await login(first, 'admin', password!);
        await first.close();
        const second = await createService(config, { db: testDb.db });
        assert.equal(second.bootstrap, null);
        await login(second, 'admin', password!);
        await second.close();
      } finally {
        await testDb.drop();
      }
    });
  }
});

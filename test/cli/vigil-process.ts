// Runs the `vigil` command line as a real process (from the sources, as this test runs them), collecting its
// output; and starts `vigil serve` (the built server) as a long-running process.
import { spawn, type ChildProcess } from 'node:child_process';
import type { StdioOptions } from 'node:child_process';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { childLoader, projectModule } from '../helpers/child-node.js';
import { repoRoot } from '../sigma/corpus-helpers.js';

const MAIN = projectModule('src/cli/main.ts');
/** The installed command (the built server), as an operator runs it. */
const VIGIL_BIN = join(repoRoot, 'bin', 'vigil.js');
const RUNNER = `const {main}=await import(${JSON.stringify(MAIN)}); process.exitCode = await main(process.argv.slice(1));`;

/** The node arguments that run `vigil <args>`. */
export function vigilArgv(args: string[]): string[] {
  return [...childLoader, '--input-type=module', '-e', RUNNER, ...args];
}

export interface VigilResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run `vigil <args>` with `stdin` as its input; `stdout` may name a file descriptor to write to instead. */
export function vigil(args: string[], stdin?: string, stdout?: number): Promise<VigilResult> {
  return new Promise((resolve, reject) => {
    const stdio: StdioOptions = ['pipe', stdout ?? 'pipe', 'pipe'];
    const p = spawn(process.execPath, vigilArgv(args), { cwd: repoRoot, stdio });
    let out = '';
    let err = '';
    p.stdout?.setEncoding('utf8').on('data', (d: string) => (out += d));
    p.stderr?.setEncoding('utf8').on('data', (d: string) => (err += d));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, stdout: out, stderr: err }));
    p.stdin?.end(stdin ?? '');
  });
}

/** A TCP port free on 127.0.0.1 right now (for a `vigil serve` process to listen on). */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

/** A `vigil serve` process started on a free port: its output so far (the last 20,000 characters) and its exit. */
export interface Serving {
  child: ChildProcess;
  port: number;
  exited: Promise<void>;
  output(): string;
}

/**
 * Starts `vigil serve` on a free loopback port with `env` over this process's environment (less the
 * settings a test names itself) and waits for its "serving" line; kills it and fails past `startBoundMs`
 * (a safety stop, not a speed check) or when it exits first.
 */
export async function startServing(env: Record<string, string>, startBoundMs: number): Promise<Serving> {
  const port = await freePort();
  const inherited = { ...process.env };
  for (const name of ['DATABASE_URL', 'DATA_DIR', 'PORT', 'HOST', 'PUBLIC_URL', 'ADMIN_USERNAME', 'JWT_SECRET']) delete inherited[name];
  const child = spawn(process.execPath, [VIGIL_BIN, 'serve'], {
    cwd: repoRoot,
    env: { ...inherited, LOG_LEVEL: 'warn', HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-20_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((done) => child.on('exit', () => done()));
  await new Promise<void>((ready, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`vigil serve did not start in ${startBoundMs / 1000} s\n${output}`));
    }, startBoundMs);
    child.stdout!.on('data', () => {
      if (output.includes('Vigil is serving on')) {
        clearTimeout(timer);
        ready();
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`vigil serve exited before serving\n${output}`));
    });
  });
  return { child, port, exited, output: () => output };
}

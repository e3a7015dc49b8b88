// Runs the `vigil` command line as a real process (from the sources, as this test runs them), collecting its output.
import { spawn } from 'node:child_process';
import type { StdioOptions } from 'node:child_process';
import { createServer } from 'node:net';
import { childLoader, projectModule } from '../helpers/child-node.js';
import { repoRoot } from '../sigma/corpus-helpers.js';

const MAIN = projectModule('src/cli/main.ts');
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

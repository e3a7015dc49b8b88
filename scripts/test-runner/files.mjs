// The test files of a run and one file's run: that file alone in a node process (its compiled copy, or
// its source through tsx), in a process group of its own (so a file's servers, shippers and browsers
// end with it), its output kept until it ends, stopped with a message when it runs past
// TEST_FILE_TIMEOUT_S seconds (default 1800).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';

const timeoutMs = Number(process.env.TEST_FILE_TIMEOUT_S ?? 1800) * 1000;
/** Preloaded by every test process: WebAssembly at V8's baseline tier (see wasm-baseline.mjs). */
const WASM_BASELINE = new URL('./wasm-baseline.mjs', import.meta.url).href;

/**
 * The CPU time (ms) of the runner's ended child processes, with everything they waited for, from
 * /proc/self/stat (cutime + cstime, in clock ticks of 10 ms); null where there is no /proc.
 */
function endedChildrenCpuMs() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return null;
  }
}
let cpuSeen = endedChildrenCpuMs();

export function collectTestFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...collectTestFiles(path));
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

/**
 * Starts one file: `file` is its source path, `script` what node runs (the compiled copy, or the source
 * itself when `tsx` is set). `done` resolves with {file, ok, ms, cpuMs, output}; `stop()` ends its process group.
 */
export function runFile(file, script, tsx) {
  const loader = [...(tsx ? ['--import', 'tsx'] : ['--enable-source-maps']), '--import', WASM_BASELINE];
  // The file itself is the process (node:test runs it and reports as `node --test` would), without the
  // extra process `node --test FILE` starts to run it in.
  // Passwords are hashed at a test cost (src/auth/passwords.ts): the suites sign in thousands of times.
  return runProcess(file, [...loader, '--test-reporter=spec', script], { VIGIL_TEST_PASSWORD_HASHING: 'fast' });
}

/**
 * Starts `node argv` as the job `name` (a test file, or a check such as the linter), in a process group
 * of its own, with `env` under the runner's environment; answers {done, stop} as runFile does.
 */
export function runProcess(name, argv, env = {}) {
  const file = name;
  const started = Date.now();
  const chunks = [];
  const child = spawn(process.execPath, argv, {
    env: { ...env, ...process.env, FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdout.on('data', (chunk) => chunks.push(chunk));
  child.stderr.on('data', (chunk) => chunks.push(chunk));
  const stop = () => {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, timeoutMs);
  const done = new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      // Children the file left behind end with it.
      stop();
      const cpuNow = endedChildrenCpuMs();
      const cpuMs = cpuNow === null ? null : cpuNow - cpuSeen;
      cpuSeen = cpuNow;
      let output = Buffer.concat(chunks).toString('utf8');
      if (timedOut) output += `\n✖ ${file} was stopped after ${timeoutMs / 1000} s (TEST_FILE_TIMEOUT_S)\n`;
      else if (code !== 0) output += `\n✖ ${file} exited with ${signal ?? `code ${code}`}\n`;
      resolve({ file, ok: code === 0 && !timedOut, ms: Date.now() - started, cpuMs, output });
    });
  });
  return { done, stop };
}

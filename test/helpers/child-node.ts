// How a test starts project code in a child `node` process the way the test itself runs: from the
// compiled copy the test runner made (scripts/test-runner/compile.mjs) without a loader, or from the
// TypeScript sources through tsx when the test runs that way.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../sigma/corpus-helpers.js';

const compiled = import.meta.url.endsWith('.js');
/** Preloaded as in the test processes: WebAssembly at V8's baseline tier (scripts/test-runner/wasm-baseline.mjs). */
const wasmBaseline = pathToFileURL(join(repoRoot, 'scripts/test-runner/wasm-baseline.mjs')).href;

/** The node options that load project modules in a child: tsx for sources, source maps for the copy. */
export const childLoader: readonly string[] = [...(compiled ? ['--enable-source-maps'] : ['--import', 'tsx']), '--import', wasmBaseline];

/** The path of a project module (`src/cli/main.ts`) as this run loads it. */
export function projectModule(path: string): string {
  return join(repoRoot, compiled ? path.replace(/\.ts$/, '.js') : path);
}

/** The same, as a file: URL (for `import()` in code a child evaluates). */
export function projectModuleUrl(path: string): string {
  return pathToFileURL(projectModule(path)).href;
}

// How to start a worker thread from a module beside its starter: the built entry (.js) as it is; a
// TypeScript entry (sources run through tsx, as the tests do) after registering tsx in the new thread,
// since the loader hooks of the main thread do not reach it.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The entry `name` beside the module at `starterUrl`, with the starter's own extension. */
export function workerEntry(starterUrl: string, name: string): { source: string | URL; eval: boolean } {
  const url = new URL(`./${name}${extname(fileURLToPath(starterUrl))}`, starterUrl);
  if (!url.pathname.endsWith('.ts')) return { source: url, eval: false };
  const tsx = import.meta.resolve('tsx/esm/api');
  return { source: `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(url.href)}); });`, eval: true };
}

// How to start a worker thread from a module beside its starter: the built entry (.js) as it is; a
// TypeScript entry (sources run through tsx, as `node --import tsx` does) after registering tsx in the
// new thread, since the loader hooks of the main thread do not reach it. The thread gets the process's
// Node options but those that only concern the main script (`-e CODE`, `--input-type`), with which
// Node refuses to start a thread from a file.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface WorkerEntry {
  source: string | URL;
  /** The `eval` and `execArgv` options of `new Worker`. */
  options: { eval: boolean; execArgv: string[] };
}

const WITH_VALUE = new Set(['-e', '--eval', '-p', '--print', '--input-type']);

/** The process's Node options without those of its main script. */
function threadExecArgv(): string[] {
  const kept: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i].split('=')[0];
    if (WITH_VALUE.has(name)) {
      if (!argv[i].includes('=')) i++;
      continue;
    }
    kept.push(argv[i]);
  }
  return kept;
}

/** The entry `name` beside the module at `starterUrl`, with the starter's own extension. */
export function workerEntry(starterUrl: string, name: string): WorkerEntry {
  const url = new URL(`./${name}${extname(fileURLToPath(starterUrl))}`, starterUrl);
  const execArgv = threadExecArgv();
  if (!url.pathname.endsWith('.ts')) return { source: url, options: { eval: false, execArgv } };
  const tsx = import.meta.resolve('tsx/esm/api');
  const source = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(url.href)}); });`;
  return { source, options: { eval: true, execArgv } };
}

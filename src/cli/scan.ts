// `vigil scan`: offline hunting. Loads Sigma rules from files/directories, streams NDJSON events (a file
// or stdin) through the candidate index, prints one JSON line per match to stdout and a summary to stderr.
// Promises: rules that fail to load and event lines that are not JSON objects are reported and skipped;
// memory stays flat whatever the size of the events file (line-by-line reading, stdout backpressure);
// exit 0 on success, 2 on usage errors (with a message), 1 when an input cannot be read.
import { createReadStream, readdirSync, readFileSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { buildCatalog, getPreset, listPresets } from '../sigma/index.js';
import type { RuleSource } from '../sigma/index.js';

const USAGE = `usage: vigil scan --rules <file|dir>... --events <file.ndjson|-> [--pipeline <preset>]

  --rules      Sigma rule files or directories (searched recursively for .yml/.yaml); repeatable
  --events     newline-delimited JSON events; '-' reads standard input
  --pipeline   field-mapping preset (default sigma-native): ${listPresets()
    .map((p) => p.name)
    .join(', ')}

Prints one JSON line per match to stdout:
  {"event": <0-based line number>, "rule_id": ..., "rule_title": ..., "level": ..., "rule_path": ...}
and a summary to stderr.
`;

const MAX_REPORTED_BAD_LINES = 20;
const FLUSH_BYTES = 64 * 1024;

interface ScanArgs {
  rules: string[];
  events: string;
  pipeline: string;
}

class UsageError extends Error {}

function parseArgs(argv: string[]): ScanArgs | 'help' {
  const rules: string[] = [];
  let events: string | undefined;
  let pipeline = 'sigma-native';
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined || (v.startsWith('--') && v.length > 2)) throw new UsageError(`${a} needs a value`);
      return v;
    };
    if (a === '-h' || a === '--help') return 'help';
    if (a === '--rules') {
      rules.push(value());
      while (i + 1 < argv.length && !argv[i + 1].startsWith('--')) rules.push(argv[++i]);
    } else if (a === '--events') {
      if (events !== undefined) throw new UsageError('--events given twice');
      events = value();
    } else if (a === '--pipeline') pipeline = value();
    else throw new UsageError(`unknown argument '${a}'`);
  }
  if (rules.length === 0) throw new UsageError('--rules is required');
  if (events === undefined) throw new UsageError('--events is required');
  return { rules, events, pipeline };
}

function* ruleFiles(path: string, st: Stats): Generator<string> {
  if (!st.isDirectory()) {
    yield path;
    return;
  }
  for (const name of readdirSync(path).sort()) {
    const p = join(path, name);
    const s = statSync(p);
    if (s.isDirectory()) yield* ruleFiles(p, s);
    else if (/\.ya?ml$/i.test(name)) yield p;
  }
}

function* readSources(paths: string[], rejected: Array<{ path: string; reason: string }>): Generator<RuleSource> {
  for (const root of paths) {
    for (const path of ruleFiles(root, statSync(root))) {
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch (e) {
        rejected.push({ path, reason: `cannot read: ${(e as Error).message}` });
        continue;
      }
      yield { path, text };
    }
  }
}

/** Writes text to a stream, waiting for 'drain' when the stream's buffer is full. */
class BufferedOutput {
  private buf = '';
  closed = false;
  constructor(private readonly out: NodeJS.WritableStream) {
    out.on('error', () => {
      this.closed = true; // e.g. EPIPE when the reader went away: stop writing, finish quietly
    });
  }

  async write(s: string): Promise<void> {
    this.buf += s;
    if (this.buf.length >= FLUSH_BYTES) await this.flush();
  }

  async flush(): Promise<void> {
    if (!this.buf || this.closed) {
      this.buf = '';
      return;
    }
    const chunk = this.buf;
    this.buf = '';
    if (this.out.write(chunk)) return;
    try {
      await once(this.out, 'drain'); // rejects if the stream fails meanwhile (e.g. EPIPE)
    } catch {
      this.closed = true;
    }
  }
}

export async function scan(argv: string[]): Promise<number> {
  let args: ScanArgs | 'help';
  try {
    args = parseArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`vigil scan: ${e.message}\n${USAGE}`);
    return 2;
  }
  if (args === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  const pipeline = getPreset(args.pipeline);
  if (!pipeline) {
    process.stderr.write(`vigil scan: unknown pipeline '${args.pipeline}' (presets: ${listPresets().map((p) => p.name).join(', ')})\n`);
    return 2;
  }
  for (const p of args.rules) {
    try {
      statSync(p);
    } catch {
      process.stderr.write(`vigil scan: --rules ${p}: no such file or directory\n`);
      return 2;
    }
  }
  if (args.events !== '-') {
    try {
      if (statSync(args.events).isDirectory()) throw new Error('is a directory');
    } catch (e) {
      process.stderr.write(`vigil scan: --events ${args.events}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}\n`);
      return 2;
    }
  }

  const loadStart = performance.now();
  const unreadable: Array<{ path: string; reason: string }> = [];
  const catalog = buildCatalog(readSources(args.rules, unreadable), pipeline);
  const rejected = [...unreadable, ...catalog.rejected];
  const loadMs = performance.now() - loadStart;
  for (const r of rejected) process.stderr.write(`vigil scan: rule rejected: ${r.path}: ${r.reason}\n`);
  // Per-rule output prefixes, built once.
  const prefix = catalog.rules.map(
    (r) => `,"rule_id":${JSON.stringify(r.id)},"rule_title":${JSON.stringify(r.title)},"level":${JSON.stringify(r.level)},"rule_path":${JSON.stringify(r.path)}}\n`,
  );

  const input: Readable = args.events === '-' ? process.stdin : createReadStream(args.events);
  let inputError: Error | null = null;
  input.on('error', (e) => {
    inputError = e;
  });
  const lines = createInterface({ input, crlfDelay: Infinity });
  const out = new BufferedOutput(process.stdout);
  const index = catalog.index;
  let lineNo = -1;
  let events = 0;
  let bad = 0;
  let matches = 0;
  const scanStart = performance.now();
  for await (const line of lines) {
    lineNo++;
    if (line.trim() === '') continue;
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch (e) {
      if (++bad <= MAX_REPORTED_BAD_LINES) process.stderr.write(`vigil scan: line ${lineNo}: not valid JSON (${(e as Error).message}); skipped\n`);
      continue;
    }
    if (typeof event !== 'object' || event === null || Array.isArray(event)) {
      if (++bad <= MAX_REPORTED_BAD_LINES) process.stderr.write(`vigil scan: line ${lineNo}: not a JSON object; skipped\n`);
      continue;
    }
    events++;
    const hits = index.match(event);
    if (hits.length === 0) continue;
    hits.sort((a, b) => a - b);
    for (const h of hits) {
      matches++;
      await out.write(`{"event":${lineNo}${prefix[h]}`);
    }
    if (out.closed) break;
  }
  await out.flush();
  if (inputError) {
    process.stderr.write(`vigil scan: cannot read events: ${(inputError as Error).message}\n`);
    return 1;
  }
  const seconds = (performance.now() - scanStart) / 1000;
  const rate = seconds > 0 ? Math.round(events / seconds) : events;
  if (bad > MAX_REPORTED_BAD_LINES) process.stderr.write(`vigil scan: ... ${bad - MAX_REPORTED_BAD_LINES} more bad lines not shown\n`);
  process.stderr.write(
    `vigil scan: ${events} events scanned (${bad} bad lines skipped), ${catalog.rules.length} rules loaded in ${Math.round(loadMs)} ms, ` +
      `${rejected.length} rules rejected, ${matches} matches, ${rate} events/s\n`,
  );
  return 0;
}

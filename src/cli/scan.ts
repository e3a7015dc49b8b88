// `vigil scan`: offline hunting. Loads Sigma rules from files/directories, streams NDJSON events (a file
// or stdin) through the candidate index, prints one JSON line per match to stdout and a summary to stderr.
// Promises: rules that fail to load (a --rules path that does not exist among them) and event lines that
// cannot be scanned (not JSON, not an object, nested too deeply, too long) are reported and skipped;
// memory stays flat whatever the size of the events file (bounded lines, stdout backpressure); results
// are written as each chunk of input is scanned; exit 0 on success, 2 on usage errors (with a message), 1
// when the events cannot be read, no rule loaded, no line of a non-empty input was an event, or results
// could not be written, 130 on Ctrl-C (after writing what was found and the summary). Messages about
// lines give the 1-based line with its 0-based event number (the `event` of the results). Under a pipeline
// that reads flat Windows events, events in evtx_dump's shape are flattened first (and NXLog or Sentinel
// events reshaped under their presets). --map, --placeholders and --scope give the scan what an index
// pattern gives deployed rules (scan-pipeline.ts); rules outside --scope are left out and counted.
// Correlation rules among the rules are evaluated over the matches in event time (scan-correlations.ts):
// one JSON line per firing, interleaved with the matches as the firings happen, the rest at the end.
import { createReadStream, fstatSync, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { buildCatalog, describeScope, eventShaperOf, EventTooDeepError, getPreset, listPresets, type Pipeline } from '../sigma/index.js';
import { scanPipeline } from './scan-pipeline.js';
import { ndjsonBatches, MAX_LINE_CHARS } from './ndjson-lines.js';
import { readRuleSources } from './rule-files.js';
import type { Unreadable } from './rule-files.js';
import { parseScanArgs, SCAN_USAGE, UsageError } from './scan-args.js';
import type { ScanArgs } from './scan-args.js';
import { BufferedOutput } from './scan-output.js';
import { BroadRules } from './broad-rules.js';
import { CorrelationScan } from './scan-correlations.js';

const MAX_REPORTED_BAD_LINES = 20;
/** Bytes read from an events file at a time. */
const READ_CHUNK = 1 << 20;

/** Control characters (from event lines quoted in messages) written as escapes: a log line must not
 * drive the terminal. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\x00-\x1f\x7f-\x9f]/g;

/** Whether the message stream went away (`2>&1 | head`): messages are dropped, the scan goes on. */
let messagesGone = false;

function say(text: string): void {
  if (messagesGone) return;
  const safe = text.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  process.stderr.write(`vigil scan: ${safe}\n`);
}

/** C1 control characters, which JSON leaves as they are but a terminal obeys. */
const C1 = /[\x80-\x9f]/g;

/** JSON text of a value, C1 control characters escaped (`\u009b`): a result line must not drive the
 * terminal either. */
function jsonText(v: unknown): string {
  return JSON.stringify(v).replace(C1, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
}

/** Why the events input cannot be read (null when it can be opened): a missing file, a directory. */
function eventsProblem(events: string): string | null {
  if (events === '-') {
    try {
      return fstatSync(0).isDirectory() ? '--events -: standard input is a directory' : null;
    } catch {
      return null; // no descriptor to inspect: reading will tell
    }
  }
  try {
    if (statSync(events).isDirectory()) return `--events ${events}: is a directory`;
  } catch (e) {
    return `--events ${events}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`;
  }
  return null;
}

export async function scan(argv: string[]): Promise<number> {
  process.stderr.on('error', () => {
    messagesGone = true;
  });
  let args: ScanArgs | 'help';
  try {
    args = parseScanArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`vigil scan: ${e.message}\n${SCAN_USAGE}`);
    return 2;
  }
  if (args === 'help') {
    process.stdout.write(SCAN_USAGE);
    return 0;
  }
  const preset = getPreset(args.pipeline);
  if (!preset) {
    say(`unknown pipeline '${args.pipeline}' (presets: ${listPresets().map((p) => p.name).join(', ')})`);
    return 2;
  }
  let pipeline: Pipeline;
  try {
    pipeline = scanPipeline(preset, args);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    say(e.message);
    return 2;
  }
  const problem = eventsProblem(args.events);
  if (problem !== null) {
    say(problem);
    return 1;
  }

  const loadStart = performance.now();
  const unreadable: Unreadable[] = [];
  const catalog = buildCatalog(readRuleSources(args.rules, unreadable), pipeline);
  const shape = eventShaperOf(pipeline);
  const correlations = new CorrelationScan(catalog, { timestampField: args.timestampField, latenessMs: args.latenessMs }, say);
  const rejected = [...unreadable, ...catalog.rejected, ...correlations.rejected];
  const loadMs = performance.now() - loadStart;
  for (const r of rejected) say(`rule rejected: ${r.path}: ${r.reason}`);
  for (const w of catalog.warnings) say(`warning: ${w}`);
  if (catalog.outOfScope > 0) say(`warning: ${catalog.outOfScope} rules left out: their log source is outside --scope (${describeScope(args.scope)})`);
  if (catalog.rules.length === 0) {
    say(`no rule loaded (${rejected.length} rejected): nothing to scan for`);
    return 1;
  }
  // Per-rule output suffixes, built once.
  const suffix = catalog.rules.map(
    (r) => `,"rule_id":${jsonText(r.id)},"rule_title":${jsonText(r.title)},"level":${jsonText(r.level)},"rule_path":${jsonText(r.path)}}\n`,
  );

  const input: Readable = args.events === '-' ? process.stdin : createReadStream(args.events, { highWaterMark: READ_CHUNK });
  let inputError: Error | null = null;
  input.on('error', (e) => {
    inputError = e;
  });
  const out = new BufferedOutput(process.stdout);
  const broad = new BroadRules(catalog.rules.length);
  const index = catalog.index;
  let lineNo = -1;
  let events = 0;
  let bad = 0;
  let matches = 0;
  const skip = (why: string): void => {
    if (++bad <= MAX_REPORTED_BAD_LINES) say(`line ${lineNo + 1} (event ${lineNo}): ${why}; skipped`);
  };
  // A line that is not UTF-8 (a log written in a legacy code page) is still scanned, and reported in its
  // turn (the reader finds it when it cuts the batch, before the lines ahead of it are scanned).
  let mangled = 0;
  const notUtf8: number[] = [];
  const invalidUtf8 = (n: number): void => {
    notUtf8.push(n);
  };
  // Ctrl-C ends the scan like the end of the input: what was found is written, with the summary.
  let interrupted = false;
  const interrupt = (): void => {
    interrupted = true;
    input.destroy();
  };
  process.once('SIGINT', interrupt);
  const scanStart = performance.now();
  try {
    for await (const batch of ndjsonBatches(input, MAX_LINE_CHARS, invalidUtf8)) {
      for (const line of batch) {
        if (interrupted) break;
        lineNo++;
        if (notUtf8.length && notUtf8[0] === lineNo) {
          notUtf8.shift();
          if (++mangled <= MAX_REPORTED_BAD_LINES) say(`line ${lineNo + 1} (event ${lineNo}): not valid UTF-8; its invalid bytes are read as U+FFFD`);
        }
        if (line === null) {
          skip(`longer than ${MAX_LINE_CHARS} characters`);
          continue;
        }
        if (line.trim() === '') continue;
        let event: unknown;
        try {
          event = JSON.parse(line);
        } catch (e) {
          skip(`not valid JSON (${(e as Error).message})`);
          continue;
        }
        if (typeof event !== 'object' || event === null || Array.isArray(event)) {
          skip(lineNo === 0 && Array.isArray(event) ? 'a JSON array, not an object (NDJSON expected: one event per line)' : 'not a JSON object');
          continue;
        }
        if (shape) event = shape(event as Record<string, unknown>);
        let hits: number[];
        try {
          hits = index.match(event as object);
        } catch (e) {
          if (!(e instanceof EventTooDeepError)) throw e;
          skip(e.message);
          continue;
        }
        events++;
        if (hits.length === 0) continue;
        if (hits.length > 1) hits.sort((a, b) => a - b);
        for (const h of hits) {
          matches++;
          broad.matched(h);
          if (out.write(`{"event":${lineNo}${suffix[h]}`)) await out.flush();
        }
        if (correlations.active) for (const l of correlations.matched(lineNo, event as Record<string, unknown>, hits)) if (out.write(l)) await out.flush();
        if (out.closed) break;
      }
      // Results are written as the input is read, not held back: a rare match shows while a long or
      // endless input (`tail -f`) is still being read.
      await out.flush();
      if (out.closed || interrupted) break;
    }
  } catch (e) {
    if (!interrupted && inputError === null) throw e; // not a read error: a fault of the scan itself
    if (interrupted) inputError = null;
  }
  process.removeListener('SIGINT', interrupt);
  if (inputError !== null) {
    await out.end();
    say(`cannot read events: ${(inputError as Error).message}`);
    return 1;
  }
  if (correlations.active && !out.closed) for (const l of correlations.finish()) out.write(l);
  await out.end();
  const seconds = (performance.now() - scanStart) / 1000;
  const rate = seconds > 0 ? Math.round(events / seconds) : events;
  if (bad > MAX_REPORTED_BAD_LINES) say(`... ${bad - MAX_REPORTED_BAD_LINES} more bad lines not shown`);
  if (mangled > MAX_REPORTED_BAD_LINES) say(`... ${mangled - MAX_REPORTED_BAD_LINES} more lines that are not valid UTF-8 not shown`);
  // Rules that match an empty event were named before the scan (catalog-warnings.ts).
  const broadWarning = broad.warning(events, catalog.rules.map((r) => r.title), new Set(catalog.index.match({})));
  if (broadWarning !== null) say(`warning: ${broadWarning}`);
  const stopped = interrupted
    ? ` (interrupted at line ${lineNo + 1})`
    : !out.closed
      ? ''
      : ` (stopped at line ${lineNo + 1}: ${out.failure ? 'results could not be written' : 'the output was closed'})`;
  const filters = catalog.filters ? ` and ${catalog.filters} filters` : '';
  say(
    `${events} events scanned${stopped} (${bad} bad lines skipped${mangled ? `, ${mangled} lines not valid UTF-8` : ''}), ` +
      `${catalog.rules.length} rules${filters} loaded in ${Math.round(loadMs)} ms, ` +
      `${rejected.length} rules rejected${catalog.outOfScope ? `, ${catalog.outOfScope} rules out of scope` : ''}, ${matches} matches, ${rate} events/s` +
      (correlations.active
        ? `; ${correlations.set.correlations.length} correlation rules, ${correlations.firings} firings` +
          `${correlations.droppedLate ? `, ${correlations.droppedLate} late events dropped` : ''}${correlations.untimed ? `, ${correlations.untimed} events without a time` : ''}`
        : ''),
  );
  if (out.failure) {
    say(`cannot write results: ${out.failure.message}`);
    return 1;
  }
  if (interrupted) return 130;
  // Every non-blank line is an event or a bad line.
  if (bad > 0 && events === 0) {
    say('no line of the input could be scanned (see the reasons above): newline-delimited JSON objects, one event per line, are expected');
    return 1;
  }
  return 0;
}

// Command-line arguments of `vigil scan`. Promises: `--rules` takes one or more paths (up to the next
// argument that starts with `-`) and may be repeated; `--map` and `--scope` may be repeated, the other
// options given once;
// every option also accepts the `--option=value` form; anything else is a UsageError with a message.
import { listPresets, SCOPE_KEYS, type LogsourceKeys } from '../sigma/index.js';

export const SCAN_USAGE = `usage: vigil scan --rules <file|dir>... --events <file.ndjson|-> [--pipeline <preset>]
                 [--map <SigmaField>=<event.field>]... [--placeholders <file.yml|json>]
                 [--scope <attribute>:<value>[,<attribute>:<value>]...]...
                 [--timestamp-field <field>] [--lateness <duration>]

  --rules        Sigma rule files or directories (searched recursively for .yml/.yaml); repeatable
  --events       newline-delimited JSON events; '-' reads standard input
  --pipeline     field-mapping preset (default sigma-native): ${listPresets()
  .map((p) => p.name)
  .join(', ')}
  --map          map a Sigma field onto an event field, before the preset's mappings; repeatable
                 (several for one Sigma field: any of the event fields may match)
  --placeholders values of %placeholder% names (expand): a YAML or JSON mapping of name to a value or
                 a list of values (Sigma strings: * and ? are wildcards)
  --scope        a log source the events come from, as product:, category: and service: attributes
                 (--scope product:windows,service:sysmon); repeatable, one log source each; rules of
                 other log sources are left out and counted
  --timestamp-field  the event time for correlation rules (default @timestamp): ISO 8601 text, or
                 seconds or milliseconds since the epoch
  --lateness     how far behind its group's newest event time an event may be and still be correlated
                 (default 5m; units s, m, h, d); older events are dropped and counted

Prints one JSON line per match to stdout:
  {"event": <0-based line number>, "rule_id": ..., "rule_title": ..., "level": ..., "rule_path": ...}
and a summary to stderr. Sigma filter documents among the rules apply to the rules they name.
Correlation rules among the rules print one JSON line per firing:
  {"correlation_id": ..., "correlation_name": ..., "correlation_title": ..., "group": {...},
   "window_start": ..., "window_end": ..., "value": ..., "events": [<0-based line numbers>], "rule_path": ...}
Exit status: 0 on success, 1 when nothing could be scanned or results could not be written, 2 on usage
errors, 130 when interrupted (Ctrl-C: the results found so far and the summary are written).
`;

export interface ScanArgs {
  rules: string[];
  events: string;
  pipeline: string;
  /** `--map` pairs, in the order given. */
  maps: { sigmaField: string; targetField: string }[];
  placeholders?: string;
  scope: LogsourceKeys[];
  /** Event field holding the event time (correlation rules). */
  timestampField: string;
  /** Accepted lateness of events for correlation rules, in milliseconds. */
  latenessMs: number;
}

const SCOPE_ATTRIBUTES: readonly string[] = SCOPE_KEYS;

/** `product:windows,service:sysmon` → {product: 'windows', service: 'sysmon'}. */
function scopeEntry(text: string): LogsourceKeys {
  const entry: Record<string, string> = {};
  for (const part of text.split(',')) {
    const colon = part.indexOf(':');
    const key = colon === -1 ? '' : part.slice(0, colon).trim();
    const value = colon === -1 ? '' : part.slice(colon + 1).trim();
    if (!SCOPE_ATTRIBUTES.includes(key) || value === '') {
      throw new UsageError(`--scope ${text}: expected <attribute>:<value> pairs separated by commas, attributes ${SCOPE_KEYS.join(', ')}`);
    }
    if (Object.hasOwn(entry, key)) throw new UsageError(`--scope ${text}: ${key} given twice`);
    entry[key] = value;
  }
  return entry;
}

/** `Image=process.executable` → the pair (split at the first '='). */
function mapping(text: string): { sigmaField: string; targetField: string } {
  const eq = text.indexOf('=');
  const sigmaField = eq === -1 ? '' : text.slice(0, eq);
  const targetField = eq === -1 ? '' : text.slice(eq + 1);
  if (sigmaField === '' || targetField === '') throw new UsageError(`--map ${text}: expected <SigmaField>=<event.field>`);
  return { sigmaField, targetField };
}

export class UsageError extends Error {}

const DURATION_UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `90s`, `5m`, `1h`, `2d` (or a number of seconds) → milliseconds. */
function duration(name: string, text: string): number {
  const m = /^(\d{1,9})([smhd]?)$/.exec(text);
  if (m === null) throw new UsageError(`${name} ${text}: expected a duration such as 30s, 5m, 1h or 1d`);
  return Number(m[1]) * DURATION_UNITS[m[2] || 's'];
}

export function parseScanArgs(argv: string[]): ScanArgs | 'help' {
  const rules: string[] = [];
  let events: string | undefined;
  let pipeline: string | undefined;
  let placeholders: string | undefined;
  const maps: ScanArgs['maps'] = [];
  const scope: LogsourceKeys[] = [];
  let timestampField: string | undefined;
  let lateness: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = eq === -1 ? arg : arg.slice(0, eq);
    const value = (): string => {
      if (eq !== -1) {
        const inline = arg.slice(eq + 1);
        if (inline === '') throw new UsageError(`${name} needs a value`);
        return inline;
      }
      const v = argv[++i];
      if (v === undefined || v === '' || (v.startsWith('--') && v.length > 2)) throw new UsageError(`${name} needs a value`);
      return v;
    };
    if (name === '-h' || name === '--help') return 'help';
    if (name === '--rules') {
      rules.push(value());
      // Paths follow until the next option (`-h` included: a file named like an option is `./-h`).
      while (i + 1 < argv.length && !(argv[i + 1].startsWith('-') && argv[i + 1].length > 1)) {
        if (argv[++i] === '') throw new UsageError('--rules needs paths (an empty one was given)');
        rules.push(argv[i]);
      }
    } else if (name === '--events') {
      if (events !== undefined) throw new UsageError('--events given twice');
      events = value();
    } else if (name === '--pipeline') {
      if (pipeline !== undefined) throw new UsageError('--pipeline given twice');
      pipeline = value();
    } else if (name === '--map') {
      maps.push(mapping(value()));
    } else if (name === '--placeholders') {
      if (placeholders !== undefined) throw new UsageError('--placeholders given twice');
      placeholders = value();
    } else if (name === '--scope') {
      scope.push(scopeEntry(value()));
    } else if (name === '--timestamp-field') {
      if (timestampField !== undefined) throw new UsageError('--timestamp-field given twice');
      timestampField = value();
    } else if (name === '--lateness') {
      if (lateness !== undefined) throw new UsageError('--lateness given twice');
      lateness = duration(name, value());
    } else throw new UsageError(`unknown argument '${arg}'`);
  }
  if (rules.length === 0) throw new UsageError('--rules is required');
  if (events === undefined) throw new UsageError('--events is required');
  return {
    rules,
    events,
    pipeline: pipeline ?? 'sigma-native',
    maps,
    scope,
    timestampField: timestampField ?? '@timestamp',
    latenessMs: lateness ?? 5 * 60_000,
    ...(placeholders === undefined ? {} : { placeholders }),
  };
}

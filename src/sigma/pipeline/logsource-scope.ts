// Log-source scope: which Sigma log sources a stream of events carries, and whether a rule's log source
// can occur in it. Promises: pure data in, a boolean out; an empty or absent scope admits every rule.
//
// A scope is a list of entries (`{product: windows}`, `{product: windows, service: sysmon}`,
// `{category: process_creation}`); a rule is admitted when one entry admits it. An entry admits a rule
// when (1) every attribute both name is equal (case-sensitive, as pySigma compares log sources), and
// (2) every attribute the entry names and the rule leaves open can be filled by one log source known to
// produce events: a known source that agrees with the rule on everything the rule names and with the
// entry on everything the entry names. The known sources are the category → (product, service) pairs
// of the Windows taxonomy (SigmaHQ's thor.yml table, with its rewrites: process_creation is Sysmon or
// Security, antivirus is Defender) and the generic categories Linux and macOS produce.
// So under `{product: windows}` a rule of `category: process_creation` with no product is admitted
// (Windows produces process creations), one of `category: webserver` or `proxy` is not (no Windows log
// source is known to produce them: add `{category: webserver}` to the scope to carry them), nor is any
// rule naming another product. Under `{product: windows, service: sysmon}` a `product: windows,
// category: process_creation` rule is admitted (Sysmon 1) and a `category: ps_script` one is not.
import { THOR_LOGSOURCES } from './thor-data.js';

export interface LogsourceKeys {
  category?: string;
  product?: string;
  service?: string;
}

export const SCOPE_KEYS = ['product', 'category', 'service'] as const;
type Key = (typeof SCOPE_KEYS)[number];

/** Generic categories known outside the thor table (taxonomy appendix: Linux and macOS folders, and the
 * Windows categories the table does not locate). */
const EXTRA_SOURCES: LogsourceKeys[] = [
  { product: 'windows', category: 'file_access' },
  { product: 'windows', category: 'file_rename' },
  { product: 'linux', category: 'process_creation' },
  { product: 'linux', category: 'file_event' },
  { product: 'linux', category: 'network_connection' },
  { product: 'macos', category: 'process_creation' },
  { product: 'macos', category: 'file_event' },
];

/** Every (product, category, service) a log source is known to produce, from the tables above. */
const KNOWN_SOURCES: LogsourceKeys[] = [
  ...THOR_LOGSOURCES.filter((l) => l.logsource.category !== undefined).map((l) => ({
    category: l.logsource.category,
    product: l.rewrite?.product ?? l.logsource.product,
    service: l.rewrite?.service ?? l.logsource.service,
  })),
  ...EXTRA_SOURCES,
];

const named = (ls: LogsourceKeys, k: Key): string | undefined => (typeof ls[k] === 'string' && ls[k] !== '' ? ls[k] : undefined);

/** Whether one scope entry admits a rule's log source (see the file comment). */
export function entryAdmits(entry: LogsourceKeys, rule: LogsourceKeys): boolean {
  const open: Key[] = [];
  for (const k of SCOPE_KEYS) {
    const want = named(entry, k);
    if (want === undefined) continue;
    const have = named(rule, k);
    if (have === undefined) open.push(k);
    else if (have !== want) return false;
  }
  if (open.length === 0) return true;
  return KNOWN_SOURCES.some((known) =>
    SCOPE_KEYS.every((k) => {
      const fixed = named(rule, k) ?? named(entry, k);
      // A known source silent on an attribute cannot confirm a value for it.
      return fixed === undefined || named(known, k) === fixed;
    }),
  );
}

/** Whether a rule's log source can occur in a stream of this scope (null or [] = any). */
export function scopeAdmits(scope: readonly LogsourceKeys[] | null | undefined, rule: LogsourceKeys): boolean {
  if (!scope || scope.length === 0) return true;
  return scope.some((entry) => entryAdmits(entry, rule));
}

/** `product: zeek, service: dns` (attributes in the order product, category, service). */
export function describeLogsource(ls: LogsourceKeys): string {
  return SCOPE_KEYS.filter((k) => named(ls, k) !== undefined)
    .map((k) => `${k}: ${ls[k]}`)
    .join(', ');
}

/** `product: windows; category: process_creation` (entries separated by `; `). */
export function describeScope(scope: readonly LogsourceKeys[]): string {
  return scope.map(describeLogsource).join('; ');
}

// The observables of a matched event: the values a threat-intel feed could list, each with the field it
// was found in. A bounded walk over the event's string values (at most MAX_VALUES values, MAX_DEPTH
// levels; only matched events are enriched) recognises IP addresses, URLs (and their host), and
// md5/sha1/sha256 hashes in any field, Sysmon-style `Hashes` lists ("SHA256=…,MD5=…"), and domain
// names in fields that hold host names (ECS `*.domain`, `dns.question.name`, Sysmon `QueryName`,
// `DestinationHostname`, Zeek/Suricata `query`/`rrname`, ...). Domains are looked for only there, since
// file names such as "invoice.zip" would otherwise read as domains. Inside longer text (command lines,
// messages) IPv4 addresses, URLs with their host, and hashes are found too, within a scanning budget
// per value and per event. The alert's entities (source_ip, host) are observables too.
import { formatAddress, parseAddress, type Address } from './addresses.js';
import type { AlertEntities } from './enricher.js';
import { normaliseDomain, parseUrl } from './indicators.js';

export type Observable =
  | { kind: 'address'; address: Address; value: string; field: string }
  | { kind: 'domain' | 'url' | 'md5' | 'sha1' | 'sha256'; value: string; field: string };

const MAX_VALUES = 2000;
const MAX_DEPTH = 10;
const MAX_VALUE_LENGTH = 2048;
const MAX_OBSERVABLES = 200;
/** Longer text is scanned for indicators inside it: at most this much of one value, and of one event. */
const MAX_TEXT_SCANNED = 8 * 1024;
const MAX_TEXT_PER_EVENT = 64 * 1024;

const DOMAIN_KEYS = new Set([
  'domain',
  'registered_domain',
  'hostname',
  'host',
  'fqdn',
  'queryname',
  'destinationhostname',
  'sourcehostname',
  'query',
  'rrname',
  'sni',
  'server_name',
  'servername',
]);
const DOMAIN_PATHS = new Set(['dns.question.name', 'tls.client.server_name']);
const HASH_KEYS = new Set(['hashes', 'hash']);
const HASH_BY_LENGTH: Record<number, 'md5' | 'sha1' | 'sha256'> = { 32: 'md5', 40: 'sha1', 64: 'sha256' };
const HEX = /^[0-9a-fA-F]+$/;

class Collector {
  readonly found: Observable[] = [];
  /** Characters of text still to scan for indicators inside it. */
  textBudget = MAX_TEXT_PER_EVENT;
  private readonly seen = new Set<string>();

  add(observable: Observable): void {
    if (this.found.length >= MAX_OBSERVABLES) return;
    const key = `${observable.kind}\u0000${observable.value}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.found.push(observable);
  }

  /** A host name or address (an entity, a URL's host): as an address when it is one, else a domain. */
  addHost(text: string, field: string): void {
    const host = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
    const address = parseAddress(host);
    if (address) return this.add({ kind: 'address', address, value: formatKey(address, host), field });
    const domain = normaliseDomain(host);
    if (domain) this.add({ kind: 'domain', value: domain, field });
  }
}

/** The canonical text of an address (no formatting when the text is already plain IPv4). */
function formatKey(address: Address, text: string): string {
  return address.version === 4 && !text.includes(':') ? text : formatAddress(address);
}

/** Recognises a whole value as an observable (an address, URL, hash, hash list or, in host-name fields, a domain); true when it is one. */
function addWhole(out: Collector, value: string, path: string, key: string): boolean {
  const first = value.charCodeAt(0);
  if (value.length <= 60 && ((first >= 48 && first <= 57) || value.includes(':')) && !value.includes('/')) {
    const address = parseAddress(value);
    if (address) {
      out.add({ kind: 'address', address, value: formatKey(address, value), field: path });
      return true;
    }
  }
  if (value.includes('://') && !/\s/.test(value)) {
    const url = parseUrl(value);
    if (url) {
      out.add({ kind: 'url', value: url.href, field: path });
      out.addHost(url.hostname, path);
      return true;
    }
  }
  const hash = HASH_BY_LENGTH[value.length];
  if (hash && HEX.test(value)) {
    out.add({ kind: hash, value: value.toLowerCase(), field: path });
    return true;
  }
  if (HASH_KEYS.has(key) && value.includes('=')) {
    for (const part of value.split(',')) {
      const digest = part.slice(part.indexOf('=') + 1).trim();
      const type = HASH_BY_LENGTH[digest.length];
      if (type && HEX.test(digest)) out.add({ kind: type, value: digest.toLowerCase(), field: path });
    }
    return true;
  }
  if (DOMAIN_KEYS.has(key) || DOMAIN_PATHS.has(path)) {
    const domain = normaliseDomain(value);
    if (domain) {
      out.add({ kind: 'domain', value: domain, field: path });
      return true;
    }
  }
  return false;
}

/** Indicators inside longer text (a command line, a message): IPv4 addresses, URLs (with their host) and hashes.
 * Bare domain names are not looked for in text, where file names ("invoice.zip") would read as domains. */
const EMBEDDED_IPV4 = /(?<![\d.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?!\d|\.\d)/g;
const EMBEDDED_URL = /\b(?:https?|ftp):\/\/[^\s"'<>`|]+/gi;
const EMBEDDED_HASH = /(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{64}|[0-9A-Fa-f]{40}|[0-9A-Fa-f]{32})(?![0-9A-Fa-f])/g;

function addEmbedded(out: Collector, text: string, path: string): void {
  for (const m of text.matchAll(EMBEDDED_URL)) {
    // A URL ends before the punctuation that closes the sentence or the quote around it.
    const url = parseUrl(m[0].replace(/[.,;:)\]}]+$/, ''));
    if (url) {
      out.add({ kind: 'url', value: url.href, field: path });
      out.addHost(url.hostname, path);
    }
  }
  for (const m of text.matchAll(EMBEDDED_IPV4)) out.addHost(m[0], path);
  for (const m of text.matchAll(EMBEDDED_HASH)) out.add({ kind: HASH_BY_LENGTH[m[0].length], value: m[0].toLowerCase(), field: path });
}

function addString(out: Collector, value: string, path: string, key: string): void {
  if (value.length === 0) return;
  if (value.length <= MAX_VALUE_LENGTH && addWhole(out, value, path, key)) return;
  // Text of more than one token: what it carries inside, within the event's scanning budget.
  if (!/[\s,;|"'()=]/.test(value) || out.textBudget <= 0) return;
  const text = value.slice(0, Math.min(MAX_TEXT_SCANNED, out.textBudget));
  out.textBudget -= text.length;
  addEmbedded(out, text, path);
}

/** The observables of `event` and its alert entities, in the order found, without repeats. */
export function observablesOf(event: Record<string, unknown>, entities: AlertEntities): Observable[] {
  const out = new Collector();
  const stack: { value: unknown; path: string; key: string; depth: number }[] = [{ value: event, path: '', key: '', depth: 0 }];
  let budget = MAX_VALUES;
  while (stack.length > 0 && budget > 0) {
    const { value, path, key, depth } = stack.pop()!;
    if (typeof value === 'string') {
      budget--;
      addString(out, value, path, key);
    } else if (Array.isArray(value)) {
      if (depth >= MAX_DEPTH) continue;
      for (let i = Math.min(value.length, MAX_VALUES) - 1; i >= 0; i--) stack.push({ value: value[i], path, key, depth: depth + 1 });
    } else if (value !== null && typeof value === 'object') {
      if (depth >= MAX_DEPTH) continue;
      const entries = Object.entries(value);
      for (let i = Math.min(entries.length, MAX_VALUES) - 1; i >= 0; i--) {
        const [k, v] = entries[i];
        stack.push({ value: v, path: path ? `${path}.${k}` : k, key: k.toLowerCase(), depth: depth + 1 });
      }
    }
  }
  if (entities.source_ip) out.addHost(entities.source_ip, 'source_ip');
  if (entities.host) out.addHost(entities.host, 'host');
  return out.found;
}

// CSV feeds: a header row names the columns (case-insensitive): the value in `indicator`, `value`,
// `ioc`, `ioc_value` or `observable` with its type in `type`/`ioc_type` (or the request's `type`, or
// the value's shape), or typed columns such as `url`, `ip`/`dst_ip`, `domain`/`hostname`, `cidr`,
// `md5_hash`/`sha1_hash`/`sha256_hash` (one indicator per filled typed column); a score from
// `score`/`confidence`/`confidence_level`; a description and a source from the usual columns.
// `#` lines are comments, and the last comment line before the data may be the header (abuse.ch).
import { detectType, score, type IndicatorType } from '../indicators.js';
import { csvLines, splitCsvLine } from './csv-records.js';
import { FeedBuilder, FeedFormatError, MAX_LINE_LENGTH, STEP, type ParseOptions, type ParseSteps } from './feed-builder.js';

const VALUE_COLUMNS = ['indicator', 'ioc', 'ioc_value', 'value', 'observable', 'hash'];
const TYPED_COLUMNS: Record<string, IndicatorType> = {
  url: 'url',
  ip: 'ip',
  dst_ip: 'ip',
  ip_address: 'ip',
  ipaddress: 'ip',
  ipv4: 'ip',
  ipv6: 'ip',
  cidr: 'cidr',
  network: 'cidr',
  netblock: 'cidr',
  domain: 'domain',
  domain_name: 'domain',
  hostname: 'domain',
  fqdn: 'domain',
  md5: 'md5',
  md5_hash: 'md5',
  sha1: 'sha1',
  sha1_hash: 'sha1',
  sha256: 'sha256',
  sha256_hash: 'sha256',
};
const TYPE_COLUMNS = ['type', 'ioc_type', 'indicator_type', 'observable_type'];
const SCORE_COLUMNS = ['score', 'risk_score', 'confidence', 'confidence_level'];
const DESCRIPTION_COLUMNS = ['description', 'comment', 'malware_printable', 'malware', 'signature', 'threat', 'threat_type', 'tags'];
const SOURCE_COLUMNS = ['source', 'reference', 'urlhaus_link', 'reporter'];

/** What the `type` column may say, in the spellings of common exports (ThreatFox, MISP, STIX). */
const TYPE_NAMES: Record<string, IndicatorType | 'detect'> = {
  ip: 'ip',
  ipv4: 'ip',
  ipv6: 'ip',
  'ip:port': 'ip',
  'ip-dst': 'ip',
  'ip-src': 'ip',
  'ipv4-addr': 'ip',
  'ipv6-addr': 'ip',
  ip_address: 'ip',
  cidr: 'cidr',
  'ip-range': 'cidr',
  netblock: 'cidr',
  domain: 'domain',
  'domain-name': 'domain',
  hostname: 'domain',
  fqdn: 'domain',
  url: 'url',
  uri: 'url',
  md5: 'md5',
  md5_hash: 'md5',
  sha1: 'sha1',
  sha1_hash: 'sha1',
  sha256: 'sha256',
  sha256_hash: 'sha256',
  'sha-256': 'sha256',
  hash: 'detect',
  filehash: 'detect',
};

/** The indicator type a type-column text names; 'detect' for a generic hash, undefined when unknown. */
export function typeNamed(text: string): IndicatorType | 'detect' | undefined {
  return TYPE_NAMES[text.trim().toLowerCase()];
}

/** An IP address without the port of "1.2.3.4:443" or "[2001:db8::1]:443" (ThreatFox ip:port). */
export function withoutPort(value: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(value);
  if (bracketed) return bracketed[1];
  const v4 = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(value);
  return v4 ? v4[1] : value;
}

interface Layout {
  value?: number;
  typed: { column: number; type: IndicatorType }[];
  type?: number;
  score?: number;
  description?: number;
  source?: number;
}

function layoutOf(header: string[]): Layout | undefined {
  const names = header.map((h) => h.trim().toLowerCase().replace(/^#\s*/, '').replace(/\s+/g, '_'));
  const find = (candidates: string[]) => {
    for (const c of candidates) {
      const i = names.indexOf(c);
      if (i !== -1) return i;
    }
    return undefined;
  };
  const layout: Layout = {
    value: find(VALUE_COLUMNS),
    typed: names.flatMap((name, column) => (TYPED_COLUMNS[name] ? [{ column, type: TYPED_COLUMNS[name] }] : [])),
    type: find(TYPE_COLUMNS),
    score: find(SCORE_COLUMNS),
    description: find(DESCRIPTION_COLUMNS),
    source: find(SOURCE_COLUMNS),
  };
  return layout.value !== undefined || layout.typed.length > 0 ? layout : undefined;
}

/** Whether a line (a comment's text or a data line) is a header naming an indicator column. */
export function headerLayout(text: string): Layout | undefined {
  const cells = splitCsvLine(text.replace(/^#+\s*/, ''));
  return cells ? layoutOf(cells) : undefined;
}

export function* parseCsv(content: string, options: ParseOptions): ParseSteps {
  const feed = new FeedBuilder(options.maxIndicators);
  let layout: Layout | undefined;
  let lastComment: string | undefined;
  for (const { n, text, comment } of csvLines(content)) {
    if (n % STEP === 0) yield;
    const at = `line ${n}`;
    if (comment) {
      if (!layout) lastComment = text;
      continue;
    }
    if (!layout) {
      // A commented header (abuse.ch) comes first: the first data line may hold a type name like "url".
      layout = lastComment === undefined ? undefined : headerLayout(lastComment);
      if (!layout) {
        layout = headerLayout(text);
        if (layout) continue;
        throw new FeedFormatError(
          'The CSV content has no header row naming the indicator column (indicator, value, ioc, ioc_value, url, ip, dst_ip, domain, md5_hash, sha256_hash, ...)',
        );
      }
    }
    if (text.length > MAX_LINE_LENGTH) {
      feed.reject(at, `line longer than ${MAX_LINE_LENGTH} characters`);
      continue;
    }
    const cells = splitCsvLine(text);
    if (!cells) {
      feed.reject(at, 'unbalanced quotes');
      continue;
    }
    addRow(feed, layout, cells, at, options.type);
  }
  if (!layout) throw new FeedFormatError('The CSV content has no data rows');
  return feed.result();
}

function addRow(feed: FeedBuilder, layout: Layout, cells: string[], at: string, requestedType: IndicatorType | undefined): void {
  const cell = (i: number | undefined) => (i === undefined ? undefined : cells[i]?.trim() || undefined);
  const extra = { score: score(cell(layout.score)), description: cell(layout.description), source: cell(layout.source) };
  if (layout.value !== undefined) {
    const value = cell(layout.value);
    if (value === undefined) {
      feed.reject(at, 'empty indicator value');
      return;
    }
    const typeText = cell(layout.type);
    let type: IndicatorType | 'detect' | undefined = typeText === undefined ? (requestedType ?? 'detect') : typeNamed(typeText);
    if (type === undefined) {
      feed.skip();
      return;
    }
    const raw = type === 'ip' ? withoutPort(value) : value;
    if (type === 'detect') type = detectType(raw);
    if (type === undefined) {
      feed.reject(at, `not an IP, CIDR, URL, hash or domain: ${JSON.stringify(value.slice(0, 80))}`);
      return;
    }
    feed.add(type, raw, at, extra);
    return;
  }
  let any = false;
  for (const { column, type } of layout.typed) {
    const value = cell(column);
    if (value === undefined) continue;
    any = true;
    feed.add(type, type === 'ip' ? withoutPort(value) : value, at, extra);
  }
  if (!any) feed.reject(at, 'no indicator value in the row');
}

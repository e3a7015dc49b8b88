// abuse.ch feeds in their common export shapes, told apart by content:
// - JSON: ThreatFox exports and API answers (`ioc`/`ioc_value`, `ioc_type`, `confidence_level`),
//   URLhaus (`url`, `threat`, `urlhaus_link`), Feodo Tracker blocklists (`ip_address`, `malware`) and
//   MalwareBazaar (`sha256_hash`, `md5_hash`, `sha1_hash`, `signature`); records in an array, under
//   `data` or `urls`, or in an object keyed by entry id whose values are arrays of records.
// - CSV exports (header row or commented header): read as CSV (see csv.ts).
// - Text exports (one URL, IP or hash per line, `#` comments): read as a plain list.
import { detectType, score, type IndicatorType } from '../indicators.js';
import { headerLayout, parseCsv, typeNamed, withoutPort } from './csv.js';
import { csvLines } from './csv-records.js';
import { FeedBuilder, FeedFormatError, parseJson, STEP, type ParseOptions, type ParseSteps } from './feed-builder.js';
import { parsePlain } from './plain.js';

type Record_ = Record<string, unknown>;

const isRecord = (value: unknown): value is Record_ => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : typeof value === 'number' ? String(value) : undefined);

/** The records of an abuse.ch JSON document, wherever its shape keeps them. */
function recordsOf(document: unknown): unknown[] {
  if (Array.isArray(document)) return document;
  if (!isRecord(document)) throw new FeedFormatError('The abuse.ch JSON content is neither an array nor an object of records');
  for (const key of ['data', 'urls', 'payloads']) {
    if (Array.isArray(document[key])) return document[key] as unknown[];
  }
  if (typeof document.query_status === 'string' && document.query_status !== 'ok') {
    throw new FeedFormatError(`The abuse.ch answer holds no records (query_status: ${document.query_status.slice(0, 100)})`);
  }
  const values = Object.values(document);
  if (values.length > 0 && values.every(Array.isArray)) return values.flat();
  throw new FeedFormatError('The abuse.ch JSON content holds no records (expected an array, `data`, `urls`, or entries keyed by id)');
}

const HASH_FIELDS: [string, IndicatorType][] = [
  ['sha256_hash', 'sha256'],
  ['md5_hash', 'md5'],
  ['sha1_hash', 'sha1'],
];

function addRecord(feed: FeedBuilder, record: unknown, at: string, requestedType: IndicatorType | undefined): void {
  if (!isRecord(record)) {
    feed.reject(at, 'not a JSON object');
    return;
  }
  const ioc = text(record.ioc) ?? text(record.ioc_value);
  if (ioc !== undefined) {
    const typeText = text(record.ioc_type);
    let type = typeText === undefined ? (requestedType ?? 'detect') : typeNamed(typeText);
    if (type === undefined) return feed.skip();
    const value = type === 'ip' ? withoutPort(ioc) : ioc;
    if (type === 'detect') type = detectType(value);
    if (type === undefined) return feed.reject(at, `not an IP, CIDR, URL, hash or domain: ${JSON.stringify(value.slice(0, 80))}`);
    feed.add(type, value, at, {
      score: score(record.confidence_level),
      description: record.malware_printable ?? record.threat_type,
      source: record.reference ?? record.reporter,
    });
    return;
  }
  const url = text(record.url);
  if (url !== undefined) {
    feed.add('url', url, at, { description: record.threat ?? record.tags, source: record.urlhaus_link ?? record.reporter });
    return;
  }
  const ip = text(record.ip_address) ?? text(record.dst_ip);
  if (ip !== undefined) {
    feed.add('ip', withoutPort(ip), at, { description: record.malware, source: 'Feodo Tracker' });
    return;
  }
  let any = false;
  for (const [field, type] of HASH_FIELDS) {
    const value = text(record[field]);
    if (value === undefined) continue;
    any = true;
    feed.add(type, value, at, { description: record.signature, source: record.reporter });
  }
  if (!any) feed.reject(at, 'no ioc, url, ip_address or hash field');
}

function* parseAbusechJson(content: string, options: ParseOptions): ParseSteps {
  const feed = new FeedBuilder(options.maxIndicators);
  const records = recordsOf(parseJson(content, 'these abuse.ch'));
  for (let i = 0; i < records.length; i++) {
    if ((i + 1) % STEP === 0) yield;
    addRecord(feed, records[i], `record ${i + 1}`, options.type);
  }
  return feed.result();
}

/** Whether a text export is CSV: its first data line, or the comment line before it, names columns. */
function looksLikeCsv(content: string): boolean {
  let lastComment: string | undefined;
  for (const line of csvLines(content)) {
    if (line.comment) {
      lastComment = line.text;
      continue;
    }
    return headerLayout(line.text) !== undefined || (lastComment !== undefined && headerLayout(lastComment) !== undefined);
  }
  return false;
}

export function* parseAbusech(content: string, options: ParseOptions): ParseSteps {
  const start = content.trimStart().replace(/^\ufeff/, '')[0];
  if (start === '{' || start === '[') return yield* parseAbusechJson(content, options);
  return yield* looksLikeCsv(content) ? parseCsv(content, options) : parsePlain(content, options);
}

// STIX 2.1 content: a bundle (`{type: "bundle", objects: [...]}`), a TAXII envelope (`{objects}`), an
// array of objects or one object. `indicator` objects with `pattern_type: "stix"` give the values of
// their pattern (see stix-pattern.ts), scored by their `confidence`; revoked indicators and those past
// `valid_until` are skipped, as are other pattern languages. Cyber observables (ipv4-addr, ipv6-addr,
// domain-name, url with `value`; file with `hashes`) are indicators too. Other objects are ignored.
import type { IndicatorType } from '../indicators.js';
import { score } from '../indicators.js';
import { FeedBuilder, FeedFormatError, parseJson, STEP, type ParseOptions, type ParseSteps } from './feed-builder.js';
import { patternValues } from './stix-pattern.js';

type Obj = Record<string, unknown>;
const isObject = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown) => (typeof value === 'string' ? value : undefined);

const SCO_TYPES: Record<string, IndicatorType> = { 'ipv4-addr': 'ip', 'ipv6-addr': 'ip', 'domain-name': 'domain', url: 'url' };
const HASHES: Record<string, IndicatorType> = { MD5: 'md5', SHA1: 'sha1', 'SHA-1': 'sha1', SHA256: 'sha256', 'SHA-256': 'sha256' };

function objectsOf(document: unknown): unknown[] {
  if (Array.isArray(document)) return document;
  if (isObject(document) && Array.isArray(document.objects)) return document.objects;
  if (isObject(document) && typeof document.type === 'string') return [document];
  throw new FeedFormatError('The STIX content is not a bundle (expected {"type": "bundle", "objects": [...]})');
}

function sourceOf(object: Obj): string | undefined {
  const refs = Array.isArray(object.external_references) ? object.external_references : [];
  const first = refs.find(isObject);
  return first ? (str(first.source_name) ?? str(first.url)) : undefined;
}

function addIndicator(feed: FeedBuilder, object: Obj, at: string, now: number): void {
  const pattern = str(object.pattern);
  if (pattern === undefined) return feed.reject(at, 'an indicator without a pattern');
  if (object.pattern_type !== undefined && object.pattern_type !== 'stix') return feed.skip();
  const validUntil = str(object.valid_until);
  if (object.revoked === true || (validUntil !== undefined && Date.parse(validUntil) < now)) return feed.skip();
  const values = patternValues(pattern);
  if (values.length === 0) return feed.skip();
  const extra = { score: score(object.confidence), description: str(object.name) ?? str(object.description), source: sourceOf(object) };
  for (const { type, value } of values) {
    if (type === 'detect') feed.reject(at, `not an IP, CIDR, URL, hash or domain: ${JSON.stringify(value.slice(0, 80))}`);
    else feed.add(type, value, at, extra);
  }
}

function addObservable(feed: FeedBuilder, object: Obj, at: string): boolean {
  const type = SCO_TYPES[str(object.type) ?? ''];
  if (type) {
    const value = str(object.value);
    if (value === undefined) feed.reject(at, `a ${String(object.type)} without a value`);
    else feed.add(type === 'ip' && value.includes('/') ? 'cidr' : type, value, at);
    return true;
  }
  if (object.type === 'file' && isObject(object.hashes)) {
    for (const [name, value] of Object.entries(object.hashes)) {
      const hash = HASHES[name.toUpperCase()];
      if (hash && typeof value === 'string') feed.add(hash, value, at, { description: str(object.name) });
    }
    return true;
  }
  return false;
}

export function* parseStix(content: string, options: ParseOptions): ParseSteps {
  const feed = new FeedBuilder(options.maxIndicators);
  const now = Date.now();
  const objects = objectsOf(parseJson(content, 'STIX'));
  for (let i = 0; i < objects.length; i++) {
    if ((i + 1) % STEP === 0) yield;
    const object = objects[i];
    const at = `object ${i + 1}`;
    if (!isObject(object)) feed.reject(at, 'not a JSON object');
    else if (object.type === 'indicator') addIndicator(feed, object, at, now);
    else if (!addObservable(feed, object, at)) feed.skip();
  }
  return feed.result();
}

// MISP events (core format JSON): `{Event: {...}}`, a bare event, an array of them, or a REST search
// answer `{response: [...]}`. Attributes of `Event.Attribute[]` and `Event.Object[].Attribute[]` with
// `to_ids` set become indicators (attributes meant as context, and deleted ones, are skipped):
// ip-src/ip-dst (a CIDR value is a network), their `|port` forms, domain, hostname(|port), domain|ip
// (both halves), url, md5/sha1/sha256 and filename|<hash>. Other attribute types are skipped. The
// event's threat level gives the score: 1 High → 90, 2 Medium → 60, 3 Low → 30, 4 Undefined → none.
import type { IndicatorType } from '../indicators.js';
import { FeedBuilder, FeedFormatError, parseJson, STEP, type ParseOptions, type ParseSteps } from './feed-builder.js';

type Obj = Record<string, unknown>;
const isObject = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);

const THREAT_LEVEL_SCORES: Record<string, number> = { '1': 90, '2': 60, '3': 30 };

/** Attribute type → the types of its `|`-separated parts (undefined: a part that is not an indicator). */
const ATTRIBUTE_TYPES: Record<string, (IndicatorType | undefined)[]> = {
  'ip-src': ['ip'],
  'ip-dst': ['ip'],
  'ip-src|port': ['ip', undefined],
  'ip-dst|port': ['ip', undefined],
  domain: ['domain'],
  hostname: ['domain'],
  'hostname|port': ['domain', undefined],
  'domain|ip': ['domain', 'ip'],
  url: ['url'],
  md5: ['md5'],
  sha1: ['sha1'],
  sha256: ['sha256'],
  'filename|md5': [undefined, 'md5'],
  'filename|sha1': [undefined, 'sha1'],
  'filename|sha256': [undefined, 'sha256'],
};

function eventsOf(document: unknown): Obj[] {
  const items = Array.isArray(document) ? document : isObject(document) && Array.isArray(document.response) ? document.response : [document];
  const events = items.map((item) => (isObject(item) && isObject(item.Event) ? item.Event : item)).filter(isObject);
  if (events.length === 0 || !events.some((e) => Array.isArray(e.Attribute) || Array.isArray(e.Object))) {
    throw new FeedFormatError('The MISP content holds no event with attributes (expected {"Event": {"Attribute": [...], "Object": [...]}})');
  }
  return events;
}

const truthy = (value: unknown) => value === true || value === 1 || value === '1' || value === 'true';

function addAttribute(feed: FeedBuilder, attribute: unknown, at: string, event: { score?: number; info?: string; source?: string }): void {
  if (!isObject(attribute) || typeof attribute.type !== 'string' || typeof attribute.value !== 'string') {
    feed.reject(at, 'an attribute needs a string type and value');
    return;
  }
  const types = ATTRIBUTE_TYPES[attribute.type];
  if (!types || !truthy(attribute.to_ids) || truthy(attribute.deleted)) {
    feed.skip();
    return;
  }
  const parts = types.length === 1 ? [attribute.value] : attribute.value.split('|');
  if (parts.length !== types.length) {
    feed.reject(at, `a ${attribute.type} value has ${types.length} parts separated by "|"`);
    return;
  }
  const comment = typeof attribute.comment === 'string' && attribute.comment.trim() !== '' ? attribute.comment : event.info;
  types.forEach((type, i) => {
    if (!type) return;
    const value = parts[i].trim();
    feed.add(type === 'ip' && value.includes('/') ? 'cidr' : type, value, at, { score: event.score, description: comment, source: event.source });
  });
}

export function* parseMisp(content: string, options: ParseOptions): ParseSteps {
  const feed = new FeedBuilder(options.maxIndicators);
  const events = eventsOf(parseJson(content, 'MISP'));
  let n = 0;
  for (let e = 0; e < events.length; e++) {
    const event = events[e];
    const orgc = isObject(event.Orgc) && typeof event.Orgc.name === 'string' ? event.Orgc.name : undefined;
    const context = {
      score: THREAT_LEVEL_SCORES[String(event.threat_level_id)],
      info: typeof event.info === 'string' ? event.info : undefined,
      source: orgc ?? (typeof event.uuid === 'string' ? `MISP event ${event.uuid}` : undefined),
    };
    const attributes: unknown[] = Array.isArray(event.Attribute) ? event.Attribute : [];
    for (let i = 0; i < attributes.length; i++) {
      if (++n % STEP === 0) yield;
      addAttribute(feed, attributes[i], `event ${e + 1} attribute ${i + 1}`, context);
    }
    const objects: unknown[] = Array.isArray(event.Object) ? event.Object : [];
    for (let o = 0; o < objects.length; o++) {
      const object = objects[o];
      const inner: unknown[] = isObject(object) && Array.isArray(object.Attribute) ? object.Attribute : [];
      for (let i = 0; i < inner.length; i++) {
        if (++n % STEP === 0) yield;
        addAttribute(feed, inner[i], `event ${e + 1} object ${o + 1} attribute ${i + 1}`, context);
      }
    }
  }
  return feed.result();
}

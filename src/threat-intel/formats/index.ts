// The feed formats by name: each a pure parser from bounded text to indicators and rejection counts.
import { parseAbusech } from './abusech.js';
import { parseCsv } from './csv.js';
import type { ParsedFeed, ParseOptions } from './feed-builder.js';
import { parseMisp } from './misp.js';
import { parsePlain } from './plain.js';
import { parseStix } from './stix.js';

export const FEED_FORMATS = ['plain', 'csv', 'misp', 'stix', 'abusech'] as const;
export type FeedFormat = (typeof FEED_FORMATS)[number];

const PARSERS: Record<FeedFormat, (content: string, options: ParseOptions) => ParsedFeed> = {
  plain: parsePlain,
  csv: parseCsv,
  misp: parseMisp,
  stix: parseStix,
  abusech: parseAbusech,
};

export function parseFeed(format: FeedFormat, content: string, options: ParseOptions): ParsedFeed {
  return PARSERS[format](content, options);
}

export { FeedFormatError, type ParsedFeed, type ParseOptions, type Problem } from './feed-builder.js';

// The feed formats by name: each a pure parser from bounded text to indicators and rejection counts,
// written in steps so that a large feed can be parsed without holding the event loop (parseFeedInSteps).
import { parseAbusech } from './abusech.js';
import { parseCsv } from './csv.js';
import { runToEnd, type ParsedFeed, type ParseOptions, type ParseSteps } from './feed-builder.js';
import { parseMisp } from './misp.js';
import { parsePlain } from './plain.js';
import { parseStix } from './stix.js';

export const FEED_FORMATS = ['plain', 'csv', 'misp', 'stix', 'abusech'] as const;
export type FeedFormat = (typeof FEED_FORMATS)[number];

const PARSERS: Record<FeedFormat, (content: string, options: ParseOptions) => ParseSteps> = {
  plain: parsePlain,
  csv: parseCsv,
  misp: parseMisp,
  stix: parseStix,
  abusech: parseAbusech,
};

/** The parse of `content` in steps (it yields every few thousand entries). */
export function parseFeedInSteps(format: FeedFormat, content: string, options: ParseOptions): ParseSteps {
  return PARSERS[format](content, options);
}

export function parseFeed(format: FeedFormat, content: string, options: ParseOptions): ParsedFeed {
  return runToEnd(parseFeedInSteps(format, content, options));
}

export { FeedFormatError, type ParsedFeed, type ParseOptions, type Problem } from './feed-builder.js';

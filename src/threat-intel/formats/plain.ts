// Plain indicator lists: one value per line, blank lines and `#` comments ignored (also a comment after
// white space at the end of a line, and anything after the first white space, as in "1.2.0.0/16 ; SBL1").
// Hosts-file lines ("0.0.0.0 evil.example") give their host name. With a `type` every value must be
// of that type; without one each value's type is taken from its shape (see detectType), which is
// unambiguous because the shapes do not overlap.
import { detectType } from '../indicators.js';
import { contentLines, FeedBuilder, MAX_LINE_LENGTH, STEP, type ParseOptions, type ParseSteps } from './feed-builder.js';

const SINKHOLES = new Set(['0.0.0.0', '127.0.0.1', '::', '::1', '::0']);

/** The line up to a `#` that follows white space (a trailing comment). */
function withoutComment(line: string): string {
  for (let i = line.indexOf('#'); i > 0; i = line.indexOf('#', i + 1)) {
    const before = line.charCodeAt(i - 1);
    if (before === 32 || before === 9) return line.slice(0, i);
  }
  return line;
}

/** The value a list line names: its first token, or a hosts-file line's host name. */
export function lineValue(line: string): string {
  const tokens = withoutComment(line).trim().split(/\s+/);
  return tokens.length > 1 && SINKHOLES.has(tokens[0]) ? tokens[1] : tokens[0];
}

export function* parsePlain(content: string, options: ParseOptions): ParseSteps {
  const feed = new FeedBuilder(options.maxIndicators);
  let n = 0;
  for (const { line, at } of contentLines(content)) {
    if (++n % STEP === 0) yield;
    if (line.length > MAX_LINE_LENGTH) {
      feed.reject(at, `line longer than ${MAX_LINE_LENGTH} characters`);
      continue;
    }
    const value = lineValue(line);
    const type = options.type ?? detectType(value);
    if (type === undefined) {
      feed.reject(at, `not an IP, CIDR, URL, hash or domain: ${JSON.stringify(value.slice(0, 80))}`);
      continue;
    }
    feed.add(type, value, at);
  }
  return feed.result();
}

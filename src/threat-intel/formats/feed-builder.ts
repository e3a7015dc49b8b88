// What every format parser fills: the feed's valid indicators (normalised, de-duplicated by type and
// value, the higher score kept), how many entries were rejected as invalid and why (the first few
// reasons kept for the answer), how many were skipped on purpose (not indicators, revoked, expired),
// and the bound on indicators per feed.
import { normalise, note, type Indicator, type IndicatorType } from '../indicators.js';

/**
 * A parse in steps: the parser yields after every STEP entries so a caller can let other work run
 * between steps (see parseFeedInSteps); run to the end at once it is an ordinary function.
 */
export type ParseSteps = Generator<void, ParsedFeed, void>;

/** Entries handled between two yields of a parse in steps. */
export const STEP = 2000;

/** Runs a parse in steps to its end. */
export function runToEnd<T>(steps: Generator<void, T, void>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/** Raised when the content cannot be read as the format at all (the request answers 400 with it). */
export class FeedFormatError extends Error {}

export interface Problem {
  /** 1-based line of line-oriented formats, or the entry's position in JSON formats. */
  at: string;
  reason: string;
}

export interface ParsedFeed {
  indicators: Indicator[];
  rejected: number;
  skipped: number;
  problems: Problem[];
}

export interface ParseOptions {
  /** The type every value of an untyped list has (plain lists); otherwise guessed per value. */
  type?: IndicatorType;
  /** Most indicators a feed may hold (more is a FeedFormatError). */
  maxIndicators: number;
}

const MAX_PROBLEMS = 20;
/** Longest text line a line-oriented feed may have. */
export const MAX_LINE_LENGTH = 64 * 1024;

export class FeedBuilder {
  /** Position of each (type, value) in `indicators`. */
  private readonly positions = new Map<IndicatorType, Map<string, number>>();
  private readonly indicators: Indicator[] = [];
  private rejected = 0;
  private skipped = 0;
  private readonly problems: Problem[] = [];

  constructor(private readonly maxIndicators: number) {}

  /** Adds `raw` as an indicator of `type`; an invalid value is rejected with a reason naming it. */
  add(type: IndicatorType, raw: string, at: string, extra: { score?: number; description?: unknown; source?: unknown } = {}): boolean {
    const value = normalise(type, raw);
    if (value === undefined) {
      this.reject(at, `not a valid ${type}: ${JSON.stringify(raw.length > 80 ? `${raw.slice(0, 80)}…` : raw)}`);
      return false;
    }
    let positions = this.positions.get(type);
    if (!positions) {
      positions = new Map();
      this.positions.set(type, positions);
    }
    const existing = positions.get(value);
    if (existing !== undefined) {
      const kept = this.indicators[existing];
      if (extra.score !== undefined && (kept.score === undefined || extra.score > kept.score)) kept.score = extra.score;
      return true;
    }
    if (this.indicators.length >= this.maxIndicators) {
      throw new FeedFormatError(`The feed holds more than ${this.maxIndicators.toLocaleString('en-US')} indicators, the most one feed may have; split it`);
    }
    const indicator: Indicator = { type, value };
    if (extra.score !== undefined) indicator.score = extra.score;
    const description = note(extra.description);
    if (description !== undefined) indicator.description = description;
    const source = note(extra.source);
    if (source !== undefined) indicator.source = source;
    positions.set(value, this.indicators.length);
    this.indicators.push(indicator);
    return true;
  }

  reject(at: string, reason: string): void {
    this.rejected++;
    if (this.problems.length < MAX_PROBLEMS) this.problems.push({ at, reason });
  }

  skip(): void {
    this.skipped++;
  }

  result(): ParsedFeed {
    return { indicators: this.indicators, rejected: this.rejected, skipped: this.skipped, problems: this.problems };
  }
}

/** The lines of a text feed with their 1-based numbers, blank lines and `#` comment lines left out. */
export function* contentLines(content: string): Generator<{ line: string; at: string }> {
  let start = 0;
  let n = 0;
  while (start <= content.length) {
    let end = content.indexOf('\n', start);
    if (end === -1) end = content.length;
    n++;
    let line = content.slice(start, end);
    start = end + 1;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (n === 1 && line.charCodeAt(0) === 0xfeff) line = line.slice(1);
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    yield { line: trimmed, at: `line ${n}` };
    if (end === content.length) break;
  }
}

/** Parses JSON content, turning a syntax error into a FeedFormatError that names the format. */
export function parseJson(content: string, format: string): unknown {
  try {
    return JSON.parse(content.charCodeAt(0) === 0xfeff ? content.slice(1) : content);
  } catch (error) {
    throw new FeedFormatError(`The content is not valid JSON (${format} feeds are JSON): ${(error as Error).message}`);
  }
}

// Correlation rules in `vigil scan`: the correlation documents among the rules are compiled into one set;
// every match of a rule they reference is fed to the engine with the event's time (the --timestamp-field,
// default @timestamp: ISO 8601 text, or a number of seconds (below 1e11) or milliseconds since the epoch)
// and its line number as the event id; each firing becomes one JSON line. Promises: a correlation that
// cannot be evaluated is reported as a rejected rule; a referenced rule's match on an event without a
// readable time is not fed (counted, the first lines reported); inputs older than the newest time read
// in their own group minus --lateness are dropped (counted), so a file whose groups are interleaved out
// of time order fires as if sorted; the end of the input evaluates everything still waiting.
import { compileCorrelations, feed, flush, forgetStale, newState } from '../sigma/index.js';
import type { CatalogRule, CorrelationSet, EngineState, FeedResult, Firing, RuleCatalog } from '../sigma/index.js';

const MAX_REPORTED_UNTIMED = 20;
/** Inputs fed between two forgettings of stale group clocks (engine forgetStale). */
const FORGET_EVERY = 4096;

/** Event time in milliseconds from a timestamp value, or null. */
export function eventTime(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? (Math.abs(v) < 1e11 ? v * 1000 : v) : null;
  if (typeof v !== 'string' || v.trim() === '') return null;
  if (/^\s*-?\d+(\.\d+)?\s*$/.test(v)) return eventTime(Number(v));
  // ISO 8601 dates and date-times (a time without an offset is read as UTC).
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}:?\d{2})?)?$/i.exec(v.trim());
  if (m === null) return null;
  const zone = m[3] === undefined ? 'Z' : m[3].length === 5 ? `${m[3].slice(0, 3)}:${m[3].slice(3)}` : m[3];
  const t = Date.parse(m[2] === undefined ? `${m[1]}T00:00:00Z` : `${m[1]}T${m[2]}${zone.toUpperCase()}`);
  return Number.isFinite(t) ? t : null;
}

function fieldOf(event: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(event, name)) return event[name];
  let cur: unknown = event;
  for (const part of name.split('.')) {
    if (typeof cur !== 'object' || cur === null || Array.isArray(cur) || !Object.hasOwn(cur, part)) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

export interface CorrelationScanOptions {
  timestampField: string;
  latenessMs: number;
}

export class CorrelationScan {
  readonly set: CorrelationSet;
  private readonly state: EngineState;
  private readonly paths: string[];
  /** For each catalogue rule: its references (id and name), or null when no correlation uses it. */
  private readonly refs: Array<string[] | null>;
  /** Rejected correlations, as `{path, reason}`. */
  readonly rejected: Array<{ path: string; reason: string }> = [];
  firings = 0;
  untimed = 0;
  private fed = 0;

  constructor(
    catalog: Pick<RuleCatalog, 'correlations' | 'rules'>,
    private readonly options: CorrelationScanOptions,
    private readonly say: (text: string) => void,
  ) {
    const { set, rejected, warnings } = compileCorrelations(
      catalog.correlations.map((c) => c.rule),
      { latenessMs: options.latenessMs },
    );
    this.set = set;
    this.state = newState(set);
    for (const r of rejected) this.rejected.push({ path: catalog.correlations[r.input].path, reason: `correlation: ${r.reason}` });
    this.paths = set.correlations.map((c) => catalog.correlations[c.input].path);
    for (const w of warnings) say(`warning: ${w}`);
    // A reference to no loaded rule or correlation can never be fed: said once per correlation.
    const known = new Set<string>();
    for (const r of catalog.rules) for (const x of [r.id, r.name]) if (x !== null) known.add(x.toLowerCase());
    for (const c of set.correlations) for (const x of [c.id, c.name]) if (x !== null) known.add(x.toLowerCase());
    for (const c of set.correlations) {
      const missing = c.rules.filter((r) => !known.has(r.toLowerCase()));
      if (missing.length) say(`warning: correlation '${c.title}' references ${missing.map((m) => `'${m}'`).join(', ')}, which no loaded rule is (by id or name)`);
    }
    this.refs = catalog.rules.map((r: CatalogRule) => {
      const refs = [r.id, r.name].filter((x): x is string => x !== null);
      return refs.some((x) => set.targets.has(x.toLowerCase())) ? refs : null;
    });
  }

  get active(): boolean {
    return this.set.correlations.length > 0;
  }

  get droppedLate(): number {
    return this.state.droppedLate;
  }

  /** Feed the matches of one event (0-based line `lineNo`); returns the result lines to write. */
  matched(lineNo: number, event: Record<string, unknown>, hits: readonly number[]): string[] {
    const lines: string[] = [];
    let time: number | null | undefined;
    for (const h of hits) {
      const refs = this.refs[h];
      if (refs === null) continue;
      if (time === undefined) time = eventTime(fieldOf(event, this.options.timestampField));
      if (time === null) {
        if (++this.untimed <= MAX_REPORTED_UNTIMED) {
          this.say(`line ${lineNo + 1} (event ${lineNo}): no readable time in ${this.options.timestampField}; its matches are not correlated`);
        }
        return lines;
      }
      this.report(feed(this.set, this.state, { ruleRef: refs, eventId: String(lineNo), time, fields: event }), lines);
      if (++this.fed % FORGET_EVERY === 0) forgetStale(this.set, this.state);
    }
    return lines;
  }

  /** The end of the input: evaluates what waits for the lateness bound. */
  finish(): string[] {
    const lines: string[] = [];
    this.report(flush(this.set, this.state), lines);
    if (this.untimed > MAX_REPORTED_UNTIMED) this.say(`... ${this.untimed - MAX_REPORTED_UNTIMED} more events without a readable time not shown`);
    return lines;
  }

  private report(r: FeedResult, lines: string[]): void {
    for (const w of r.warnings) this.say(`warning: ${w}`);
    for (const f of r.firings) {
      this.firings++;
      lines.push(this.line(f));
    }
  }

  private line(f: Firing): string {
    return (
      JSON.stringify({
        correlation_id: f.correlation.id,
        correlation_name: f.correlation.name,
        correlation_title: f.correlation.title,
        group: f.groupKey,
        window_start: new Date(f.windowStart).toISOString(),
        window_end: new Date(f.windowEnd).toISOString(),
        value: f.value,
        events: f.eventIds.map(Number),
        rule_path: this.paths[f.correlation.index],
      }).replace(/[\x80-\x9f]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`) + '\n'
    );
  }
}

// Rules that fire on nearly every event of a scan: usually rules whose log source the pipeline has no
// conditions for (a Cisco keyword rule finds `format` in the `information` of every Windows event), or rules
// too broad for the data. Counted during the scan, reported once after it as a warning.

/** A scan must have seen this many events before a rule is called broad. */
const MIN_EVENTS = 100;
/** Share of the events a rule must match to be called broad. */
const SHARE = 0.9;
const NAMED = 3;

export class BroadRules {
  private readonly counts: Int32Array;

  constructor(rules: number) {
    this.counts = new Int32Array(rules);
  }

  /** Count one match of rule `key`. */
  matched(key: number): void {
    this.counts[key]++;
  }

  /** The warning for rules that matched at least 90% of `events` (null when there is none), leaving out
   * the rules of `known` (already named by a warning before the scan). */
  warning(events: number, titles: string[], known: ReadonlySet<number>): string | null {
    if (events < MIN_EVENTS) return null;
    const broad: number[] = [];
    for (let k = 0; k < this.counts.length; k++) if (this.counts[k] >= events * SHARE && !known.has(k)) broad.push(k);
    if (broad.length === 0) return null;
    const named = broad.slice(0, NAMED).map((k) => `'${titles[k]}'`).join(', ');
    return (
      `${broad.length} rules matched at least ${SHARE * 100}% of the events (${named}${broad.length > NAMED ? ', …' : ''}): ` +
      'their log source may have no conditions under this pipeline, or they are too broad for these events'
    );
  }
}

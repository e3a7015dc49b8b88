// A brute-force correlation evaluator for the property test, written from the definition in
// docs/correlation.md and as plainly as possible: decide which events are accepted (lateness, measured
// against the newest earlier-arrived event of the same group), sort them by event time, then for every
// event enumerate its group's window from scratch and check the condition.
// Shares no code with src/sigma/correlation/.

export interface BruteSpec {
  type: string;
  rules: string[];
  groupBy: string[];
  timespanMs: number;
  cond: Array<{ op: string; value: number }>;
  field?: string;
  percentile?: number | null;
}

export interface BruteEvent {
  rule: string;
  id: string;
  time: number;
  fields: Record<string, unknown>;
}

export interface BruteFiring {
  group: Record<string, unknown>;
  start: number;
  end: number;
  value: number;
  ids: string[];
}

function compare(op: string, a: number, b: number): boolean {
  if (op === 'gt') return a > b;
  if (op === 'gte') return a >= b;
  if (op === 'lt') return a < b;
  if (op === 'lte') return a <= b;
  if (op === 'eq') return a === b;
  return a !== b;
}

/** The value an event brings, or undefined if it brings none. */
function valueOf(spec: BruteSpec, e: BruteEvent): unknown {
  if (!spec.type.startsWith('value_')) return 'none';
  const raw = e.fields[spec.field!];
  if (raw === undefined || raw === null) return undefined;
  if (spec.type === 'value_count') return String(raw);
  if (spec.type === 'value_percentile' && (spec.percentile ?? null) === null) return String(raw);
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

function aggregate(spec: BruteSpec, window: BruteEvent[]): number {
  const values = window.map((e) => valueOf(spec, e));
  switch (spec.type) {
    case 'event_count':
      return window.length;
    case 'value_count':
      return new Set(values).size;
    case 'temporal':
      return spec.rules.filter((r) => window.some((e) => e.rule === r)).length;
    case 'temporal_ordered': {
      // Largest k such that rules[0..k-1] occur in this order at increasing positions (tried for every k).
      let best = 0;
      for (let k = 1; k <= spec.rules.length; k++) {
        let pos = -1;
        let ok = true;
        for (let step = 0; step < k; step++) {
          let found = -1;
          for (let i = pos + 1; i < window.length; i++) {
            if (window[i].rule === spec.rules[step]) {
              found = i;
              break;
            }
          }
          if (found === -1) {
            ok = false;
            break;
          }
          pos = found;
        }
        if (ok) best = k;
      }
      return best;
    }
    case 'value_sum':
      return (values as number[]).reduce((a, b) => a + b, 0);
    case 'value_avg':
      return (values as number[]).reduce((a, b) => a + b, 0) / values.length;
    case 'value_percentile':
    case 'value_median': {
      const p = spec.type === 'value_median' ? 50 : (spec.percentile ?? null);
      if (p === null) {
        const last = values[values.length - 1];
        return (values.filter((v) => v === last).length * 100) / values.length;
      }
      const sorted = (values as number[]).slice().sort((a, b) => a - b);
      let rank = Math.ceil((p / 100) * sorted.length);
      if (rank < 1) rank = 1;
      return sorted[rank - 1];
    }
  }
  throw new Error(`type ${spec.type}`);
}

/** An input in event-time order: `order` breaks ties (the arrival of the event that caused it). */
export interface BruteInput extends BruteEvent {
  order: number;
  ids: string[];
}

/** The group of an event: its group-by values as text (a missing field is null). */
function groupText(groupBy: string[], e: BruteEvent): string {
  return JSON.stringify(groupBy.map((g) => (e.fields[g] === undefined || e.fields[g] === null ? null : String(e.fields[g]))));
}

/** The events the engine accepts (not older than the newest time seen so far among the earlier events
 * of the referenced rules in the same group, minus the lateness), sorted by time, ties in arrival order. */
export function acceptedInOrder(arrivals: BruteEvent[], referenced: string[], latenessMs: number, groupBy: string[]): BruteInput[] {
  const accepted: BruteInput[] = [];
  const newest = new Map<string, number>();
  arrivals.forEach((e, arrival) => {
    if (!referenced.includes(e.rule)) return;
    const g = groupText(groupBy, e);
    const before = newest.get(g) ?? -Infinity;
    if (e.time >= before - latenessMs) accepted.push({ ...e, order: arrival, ids: [e.id] });
    newest.set(g, Math.max(before, e.time));
  });
  return accepted.sort((a, b) => a.time - b.time || a.order - b.order);
}

/** Every input closes a window of its group; consumed inputs (up to a firing) never count again. */
export function evaluate(spec: BruteSpec, inputs: BruteInput[]): Array<BruteFiring & { order: number }> {
  const events = inputs.filter((e) => spec.rules.includes(e.rule) && valueOf(spec, e) !== undefined);
  const groupOf = (e: BruteEvent): string => groupText(spec.groupBy, e);
  const consumedUpTo = new Map<string, number>();
  const firings: Array<BruteFiring & { order: number }> = [];
  events.forEach((last, j) => {
    const g = groupOf(last);
    const window: BruteInput[] = [];
    for (let i = (consumedUpTo.get(g) ?? -1) + 1; i <= j; i++) {
      if (groupOf(events[i]) === g && events[i].time >= last.time - spec.timespanMs) window.push(events[i]);
    }
    const value = aggregate(spec, window);
    if (spec.cond.every((c) => compare(c.op, value, c.value))) {
      const group: Record<string, unknown> = {};
      for (const k of spec.groupBy) group[k] = last.fields[k] ?? null;
      firings.push({ group, start: window[0].time, end: last.time, value, ids: [...new Set(window.flatMap((e) => e.ids))], order: last.order });
      consumedUpTo.set(g, j);
    }
  });
  return firings;
}

export function bruteForce(spec: BruteSpec, arrivals: BruteEvent[], latenessMs: number): BruteFiring[] {
  return evaluate(spec, acceptedInOrder(arrivals, spec.rules, latenessMs, spec.groupBy)).map(({ order: _order, ...f }) => f);
}

/** A chain: `outer` references `inner` (by the name `innerName`) and base rules, both grouped by the same
 * fields (so one group's events share one clock). The inner firings enter the outer correlation at their
 * window end, right after the event that caused them. */
export function bruteChain(inner: BruteSpec, innerName: string, outer: BruteSpec, arrivals: BruteEvent[], latenessMs: number): { inner: BruteFiring[]; outer: BruteFiring[] } {
  const referenced = [...new Set([...inner.rules, ...outer.rules.filter((r) => r !== innerName)])];
  const accepted = acceptedInOrder(arrivals, referenced, latenessMs, inner.groupBy);
  const innerFirings = evaluate(inner, accepted);
  const chained: BruteInput[] = innerFirings.map((f) => ({ rule: innerName, id: '', ids: f.ids, time: f.end, fields: f.group, order: f.order + 0.5 }));
  const outerInputs = [...accepted, ...chained].sort((a, b) => a.time - b.time || a.order - b.order);
  const strip = (fs: Array<BruteFiring & { order: number }>): BruteFiring[] => fs.map(({ order: _order, ...f }) => f);
  return { inner: strip(innerFirings), outer: strip(evaluate(outer, outerInputs)) };
}

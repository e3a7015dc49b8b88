// Correlation at ingest, inside the transaction that stores a chunk of events: the matches of the
// events stored for the first time (a re-delivered event is not counted twice) feed the windows of the
// pattern's deployed correlations in event-time order; each firing becomes one alert of the correlation
// rule, carrying its group, window, value and contributing events (with their base alerts). A firing's
// alert key is derived from the correlation, group and window, so a window never alerts twice. With a
// lateness, the matches waiting for it are evaluated at the latest the lateness after they arrived: at
// each chunk, and by a timer when no chunk comes (correlation-due.ts).
import { createHash } from 'node:crypto';
import type { Queryable } from '../db/database.js';
import type { NewAlert } from '../alerts/store.js';
import type { IndexPatternRow } from '../index-patterns/store.js';
import { due, feed, settle, type FeedResult, type Firing, type RuleMatch } from '../sigma/index.js';
import { projectFields, type CorrelationPlan, type PlannedCorrelation } from './plan.js';
import { openStates } from './states.js';

/** A detection match of a stored event, as the correlations are fed. */
export interface CorrelationInput {
  /** The alert draft of the match (rule, event hash, event time, entities). */
  draft: NewAlert;
  /** The event as the rules saw it (the pattern's preset applied). */
  event: object;
}

/** What a correlation alert keeps of its firing (the alert's `correlation`, and its event). */
export interface CorrelationRecord {
  rule_id: string;
  type: string;
  group: Record<string, unknown>;
  window_start: string;
  window_end: string;
  value: number;
  event_count: number;
  event_ids: string[];
  base_alert_ids: string[];
}

export interface Correlated {
  /** Alert drafts of the firings. */
  alerts: NewAlert[];
  /** What an operator should know (late events dropped, a group cap reached), each said once per state. */
  warnings: string[];
}

/** Feeds the inputs (arrived at `now`, wall clock ms) to the plan's correlations, and evaluates what
 * waits past its deadline in those correlations and in the correlations `dueIds` names; answers the
 * alert drafts of their firings. */
export async function correlate(owner: object, tx: Queryable, pattern: IndexPatternRow, plan: CorrelationPlan, inputs: CorrelationInput[], now: number = Date.now(), dueIds: ReadonlySet<string> = new Set()): Promise<Correlated> {
  const relevant = inputs.filter((i) => plan.feeders.has(i.draft.ruleId));
  const warnings: string[] = [];
  const fedBy = plan.correlations.filter((c) => dueIds.has(c.id) || relevant.some((i) => c.feeders.has(i.draft.ruleId)));
  if (fedBy.length === 0) return { alerts: [], warnings };
  // Event-time order within the chunk (stable: equal times keep their arrival order).
  relevant.sort((a, b) => a.draft.eventTime.getTime() - b.draft.eventTime.getTime());
  const matchesOf = (planned: PlannedCorrelation): RuleMatch[] =>
    relevant.flatMap((input) => {
      const refs = planned.feeders.get(input.draft.ruleId);
      return refs ? [{ ruleRef: refs, eventId: input.draft.eventHash, time: input.draft.eventTime.getTime(), fields: projectFields(planned.fields, input.event) }] : [];
    });
  const fed = fedBy.map((planned) => ({ planned, matches: matchesOf(planned) }));
  const opened = await openStates(owner, tx, fed.map(({ planned, matches }) => ({ id: planned.id, set: planned.set, matches })), now);
  const firings: { planned: PlannedCorrelation; firing: Firing }[] = [];
  const keep = (planned: PlannedCorrelation, out: FeedResult) => {
    for (const firing of out.firings) if (firing.correlation.index === planned.top) firings.push({ planned, firing });
    for (const w of out.warnings) warnings.push(`correlation '${planned.title}' on index pattern '${pattern.name}': ${w}`);
  };
  for (const { planned, matches } of fed) {
    const state = opened.states.get(planned.id)!;
    for (const match of matches) keep(planned, feed(planned.set, state, match, now));
    // What the chunk's newest matches complete fires now, not at the next event.
    keep(planned, settle(planned.set, state));
    // What arrived the lateness ago fires now, whatever its group's clock.
    if (planned.set.options.latenessMs > 0) keep(planned, due(planned.set, state, now));
  }
  await opened.save();
  if (firings.length === 0) return { alerts: [], warnings };
  const baseAlerts = await baseAlertIds(tx, pattern.id, firings.flatMap(({ firing }) => firing.eventIds), [...plan.feeders.keys()]);
  // The entities and enrichment of a correlation alert are those of its newest contributing match in this chunk.
  const draftOf = new Map(relevant.map((i) => [i.draft.eventHash, i.draft]));
  const triggerOf = (firing: Firing) => [...firing.eventIds].reverse().map((id) => draftOf.get(id)).find((d) => d !== undefined);
  const alerts = firings.filter(({ planned }) => !plan.silenced.has(planned.id)).map(({ planned, firing }) => alertOf(planned, firing, triggerOf(firing), pattern, baseAlerts));
  return { alerts, warnings };
}

/** The base alerts of these events (by event hash), of the rules feeding correlations. */
async function baseAlertIds(tx: Queryable, patternId: string, eventHashes: string[], ruleIds: string[]): Promise<Map<string, string[]>> {
  const rows = await tx.query<{ id: string; event_hash: string }>(
    'SELECT id, event_hash FROM alerts WHERE index_pattern_id = $1 AND event_hash = ANY($2::text[]) AND rule_id = ANY($3::uuid[]) ORDER BY created_at, id',
    [patternId, [...new Set(eventHashes)], ruleIds],
  );
  const byEvent = new Map<string, string[]>();
  for (const r of rows) byEvent.set(r.event_hash, [...(byEvent.get(r.event_hash) ?? []), r.id]);
  return byEvent;
}

function alertOf(planned: PlannedCorrelation, firing: Firing, trigger: NewAlert | undefined, pattern: IndexPatternRow, baseAlerts: Map<string, string[]>): NewAlert {
  const record: CorrelationRecord = {
    rule_id: planned.id,
    type: planned.type,
    group: firing.groupKey,
    window_start: new Date(firing.windowStart).toISOString(),
    window_end: new Date(firing.windowEnd).toISOString(),
    value: firing.value,
    event_count: firing.inputCount,
    event_ids: firing.eventIds,
    base_alert_ids: firing.eventIds.flatMap((e) => baseAlerts.get(e) ?? []),
  };
  const key = createHash('sha256').update(JSON.stringify(['correlation', planned.id, firing.groupKey, firing.windowStart, firing.windowEnd])).digest('hex');
  return {
    ruleId: planned.id,
    ruleTitle: planned.title,
    ruleVersion: planned.version,
    severity: planned.severity,
    level: planned.level,
    tags: planned.tags,
    indexPatternId: pattern.id,
    indexPattern: pattern.name,
    eventHash: key,
    eventTime: new Date(firing.windowEnd),
    eventJson: JSON.stringify({ correlation: record }),
    matchedConditions: [{ [planned.type]: { value: firing.value, group: firing.groupKey } }],
    sourceIp: trigger?.sourceIp,
    user: trigger?.user,
    host: trigger?.host,
    enrichment: trigger?.enrichment,
    correlation: record,
  };
}

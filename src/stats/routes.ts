// GET /api/stats: the dashboard figures. "Open" alerts are those still needing work (new or
// acknowledged); last_24h and the events' last_24h are rolling windows ending now; the timeline has
// one entry per UTC hour for the 24 hours ending with the current (partial) hour, zero-filled; so has
// the ingest timeline (events received per hour).
import { Type } from '@fastify/type-provider-typebox';
import type { App, AppContext } from '../http/context.js';
import { errorResponses, Nullable, Timestamp, Uuid } from '../http/schemas.js';
import { PRECISION_DAYS, PRECISION_RULES, SHIFT_DAYS, shiftFigures } from './shift.js';
import { SEVERITIES, severityRank } from '../alerts/severity.js';
import { ALERT_STATUSES } from '../alerts/view.js';
import { countByStatusAndSeverity, countTopRules } from '../alerts/counts.js';
import { alertsSince24h, eventCounts, suppressedMatches, hourlyAlerts, hourlyEvents, ruleCounts, ruleTitles } from './store.js';

/** How many rules `top_rules` names. */
export const TOP_RULES = 10;
const OPEN_STATUSES: readonly string[] = ['new', 'acknowledged'];

const countsOf = (keys: readonly string[]) => Type.Object(Object.fromEntries(keys.map((k) => [k, Type.Integer()])));

export const StatsSchema = Type.Object(
  {
    alerts: Type.Object({
      total: Type.Integer(),
      open: Type.Integer({ description: 'Alerts new or acknowledged' }),
      last_24h: Type.Integer(),
      by_status: countsOf(ALERT_STATUSES),
      by_severity: countsOf(SEVERITIES),
      suppressed: Type.Integer({ description: 'Matches that added to an open alert instead of raising one (rules with suppression)' }),
    }),
    rules: Type.Object({ total: Type.Integer(), deployed: Type.Integer(), undeployed: Type.Integer() }),
    top_rules: Type.Array(Type.Object({ rule_id: Uuid, rule_title: Type.String(), count: Type.Integer() }), { description: `The ${TOP_RULES} rules with the most alerts` }),
    timeline: Type.Array(Type.Object({ time: Timestamp, count: Type.Integer() }), { description: 'Alerts created per UTC hour, 24 entries, oldest first' }),
    triage: Type.Object(
      {
        mean_time_to_acknowledge_seconds: Nullable(Type.Integer(), { description: `Mean time from an alert's creation to its acknowledgement, over acknowledgements of the last ${SHIFT_DAYS} days (null: none)` }),
        mean_time_to_resolve_seconds: Nullable(Type.Integer(), { description: `Mean time from an alert's creation to its close (resolved or false positive), over closes of the last ${SHIFT_DAYS} days (null: none)` }),
        oldest_open_alert_age_seconds: Nullable(Type.Integer(), { description: 'Age of the oldest alert still new or acknowledged (null: none open)' }),
        open_by_assignee: Type.Array(Type.Object({ assignee: Nullable(Uuid), assignee_name: Nullable(Type.String()), count: Type.Integer() }), {
          description: 'Open alerts per assignee (null: unassigned), most first',
        }),
        rule_precision: Type.Array(
          Type.Object({ rule_id: Uuid, rule_title: Type.String(), closed: Type.Integer(), false_positives: Type.Integer(), false_positive_rate: Type.Number() }),
          { description: `The ${PRECISION_RULES} rules with the most closed alerts raised in the last ${PRECISION_DAYS} days, and the share of those that were false positives` },
        ),
      },
      { description: 'Shift figures: speed of triage, backlog and rule precision' },
    ),
    ingest: Type.Object({
      events_total: Type.Integer(),
      events_last_24h: Type.Integer(),
      timeline: Type.Array(Type.Object({ time: Timestamp, count: Type.Integer() }), {
        description: 'Events received per UTC hour, the same 24 hours as the alert timeline, oldest first',
      }),
    }),
  },
  { description: 'Dashboard figures' },
);

/** The figures, shared by the session endpoint and the external (API key) one. */
export async function readStats(ctx: AppContext) {
  const db = ctx.db;
  const [counts, last24h, timeline, top, rules, events, suppressed, triage] = await Promise.all([
    countByStatusAndSeverity(db),
    alertsSince24h(db),
    hourlyAlerts(db),
    countTopRules(db, TOP_RULES),
    ruleCounts(db),
    eventCounts(db),
    suppressedMatches(db),
    shiftFigures(db),
  ]);
  // After eventCounts, which folds the hourly event counts when their deltas have piled up.
  const [titles, ingestTimeline] = await Promise.all([ruleTitles(db, top.map((t) => t.rule_id)), hourlyEvents(db)]);
  const byStatus: Record<string, number> = Object.fromEntries(ALERT_STATUSES.map((s) => [s, 0]));
  const bySeverity: Record<string, number> = Object.fromEntries(SEVERITIES.map((s) => [s, 0]));
  let total = 0;
  for (const c of counts) {
    total += c.count;
    byStatus[c.status] = (byStatus[c.status] ?? 0) + c.count;
    const severity = SEVERITIES.find((s) => severityRank(s) === c.severity_rank) ?? 'informational';
    bySeverity[severity] += c.count;
  }
  return {
    alerts: {
      total,
      open: OPEN_STATUSES.reduce((sum, s) => sum + (byStatus[s] ?? 0), 0),
      last_24h: last24h,
      by_status: byStatus,
      by_severity: bySeverity,
      suppressed,
    },
    rules: { total: rules.total, deployed: rules.deployed, undeployed: rules.total - rules.deployed },
    top_rules: top.map((t) => ({ rule_id: t.rule_id, rule_title: titles.get(t.rule_id) ?? '', count: t.count })),
    timeline: timeline.map((t) => ({ time: t.time.toISOString(), count: t.count })),
    triage,
    ingest: {
      events_total: events.total,
      events_last_24h: events.last_24h,
      timeline: ingestTimeline.map((t) => ({ time: t.time.toISOString(), count: t.count })),
    },
  };
}

export function statsRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/api/stats',
    {
      config: { access: { auth: 'session' } },
      schema: { tags: ['stats'], operationId: 'getStats', summary: 'Dashboard figures: alerts, rules, top rules, the last day hour by hour, ingested events', response: { 200: StatsSchema, ...errorResponses(401) } },
    },
    async () => readStats(ctx),
  );
}

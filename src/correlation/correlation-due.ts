// The correlation deadline timer's work: with a lateness, a match waits for its group's clock to pass
// it, but at most the lateness after it arrived. Ingest chunks evaluate what is due in the correlations
// they feed; this evaluates it in the others, when no event comes (a brute force followed by silence
// still alerts). One indexed query finds the correlations with matches due; each index pattern of
// those is then correlated in one ingest transaction, as a chunk without events would be.
import type { IngestContext } from '../ingest/service.js';
import { raiseAlerts } from '../ingest/suppression.js';
import { findPatternById } from '../index-patterns/store.js';
import { correlate } from './correlate.js';
import { correlationPlan } from './plan.js';
import { correlationsDue } from './state-store.js';
import { forgetStates } from './states.js';

/** How often the timer looks for due matches, given the lateness (ms): a fraction of it, within bounds. */
export function dueCheckInterval(latenessMs: number): number {
  return Math.min(5_000, Math.max(200, Math.floor(latenessMs / 4)));
}

/** Evaluates the waiting matches that arrived the lateness before `now`; answers the alerts created and
 * the warnings to log. */
export async function correlateDue(ctx: IngestContext, now: number = Date.now()): Promise<{ alertsCreated: number; warnings: string[] }> {
  const latenessMs = ctx.config.correlationLatenessMs;
  const warnings: string[] = [];
  if (latenessMs <= 0) return { alertsCreated: 0, warnings };
  const ids = new Set(await correlationsDue(ctx.db, now - latenessMs));
  if (ids.size === 0) return { alertsCreated: 0, warnings };
  const patternIds = await ctx.db.query<{ index_pattern_id: string }>('SELECT DISTINCT index_pattern_id FROM rules WHERE id = ANY($1::uuid[]) AND index_pattern_id IS NOT NULL', [[...ids]]);
  let alertsCreated = 0;
  for (const { index_pattern_id } of patternIds) {
    const pattern = await findPatternById(ctx.db, index_pattern_id);
    if (!pattern) continue;
    const plan = await correlationPlan(ctx, ctx.db, pattern, latenessMs);
    if (!plan) continue;
    try {
      alertsCreated += await ctx.db.transaction(async (tx) => {
        const correlated = await correlate(ctx, tx, pattern, plan, [], now, ids);
        warnings.push(...correlated.warnings);
        return raiseAlerts(tx, correlated.alerts.map((alert) => ({ alert, event: {} })));
      }, { lane: 'ingest' });
    } catch (error) {
      forgetStates(ctx);
      throw error;
    }
  }
  return { alertsCreated, warnings };
}

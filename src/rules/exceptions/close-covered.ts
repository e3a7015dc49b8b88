// Closing what a new exception covers: the rule's open alerts (new or acknowledged) whose stored event
// the exception matches are marked false positives, new ones acknowledged first (both moves recorded),
// through the bulk change alerts use, audited once (`alert.bulk_changed`, naming the exception).
import type { AppContext } from '../../http/context.js';
import { bulkChangeIds } from '../../alerts/bulk-by-filter.js';
import type { Actor } from '../../alerts/service.js';
import { coveredOpenAlerts } from './coverage.js';
import type { ExceptionSpec } from './matcher.js';

/** Closes the open alerts of the rule the exception covers; answers how many were closed. */
export async function closeCovered(ctx: AppContext, actor: Actor, ruleId: string, exception: ExceptionSpec): Promise<number> {
  const covered = await coveredOpenAlerts(ctx, ruleId, exception);
  if (covered.ids.length === 0) return 0;
  const { updated } = await bulkChangeIds(ctx.db, actor, covered.ids, { status: 'false_positive', acknowledgeFirst: true }, { rule_id: ruleId, exception_id: exception.id });
  return updated;
}

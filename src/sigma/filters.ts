// Sigma filters (meta filters, sigma-notes §8), applied the pySigma way. Promises: a filter applies to a
// detection rule when the rule's logsource is contained in the filter's (every attribute the filter sets is
// equal) and the filter lists the rule's id (a UUID, compared in any case) or name, or `any`; the rule's
// condition c becomes `(c) and (filter condition)` — so a filter that removes matches is written
// `condition: not selection`.
import { logsourceApplies } from './pipeline/pipeline.js';
import type { AppliedFilter } from './build-ir.js';
import type { SigmaRule } from './rule.js';

export function filterApplies(filter: SigmaRule, rule: SigmaRule): boolean {
  const f = filter.filter;
  if (filter.kind !== 'filter' || !f || rule.kind !== 'detection') return false;
  if (!logsourceApplies(filter.logsource, rule.logsource)) return false;
  if (f.rules === 'any') return true;
  return f.rules.some((r) => namesRule(r, rule));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a filter's reference names the rule: its id (a UUID, in any case) or its name. */
export function namesRule(ref: string, rule: SigmaRule): boolean {
  if (rule.id !== undefined && (ref === rule.id || (UUID.test(ref) && ref.toLowerCase() === rule.id.toLowerCase()))) return true;
  return rule.name !== undefined && ref === rule.name;
}

/** The filters of a list that apply to a rule, ready for buildIR. */
export function applicableFilters(rule: SigmaRule, filters: SigmaRule[]): AppliedFilter[] {
  return filters
    .filter((f) => filterApplies(f, rule))
    .map((f, i) => ({ prefix: `filter${i + 1}:`, detection: f.filter!.detection }));
}

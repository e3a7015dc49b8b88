// Warnings about a scan's rule set that are not errors of any one rule: filters naming rules that are not
// loaded, rules that run on every event because the pipeline has no conditions for their log source, and
// rules that match an event holding none of their fields (on another source's events they match all).
import { namesRule } from '../filters.js';
import { logsourceApplies } from '../pipeline/pipeline.js';
import type { Pipeline } from '../pipeline/pipeline.js';
import type { RuleIndex } from '../index/rule-index.js';
import type { SigmaRule } from '../rule.js';

export function catalogWarnings(pipeline: Pipeline, loaded: SigmaRule[], filters: SigmaRule[], index: RuleIndex<number>, titles: string[]): string[] {
  const out: string[] = [];
  for (const f of filters) {
    const refs = f.filter?.rules;
    if (refs === undefined || refs === 'any') continue;
    for (const ref of refs) if (!loaded.some((rule) => namesRule(ref, rule))) out.push(`filter '${f.title}' names '${ref}', which is no loaded rule`);
  }
  if (pipeline.logsources.length) {
    const unconditioned = loaded.filter((rule) => !pipeline.logsources.some((l) => logsourceApplies(l.logsource, rule.logsource))).length;
    if (unconditioned > 0) {
      out.push(`${unconditioned} rules have a log source the pipeline '${pipeline.name}' has no conditions for (not Windows, or a Windows source it does not know): they run on every event`);
    }
  }
  // Rules made only of `not …` (a Zeek rule on Windows events).
  const vacuous = index.match({});
  if (vacuous.length > 0) {
    const named = vacuous.slice(0, 3).map((k) => `'${titles[k]}'`).join(', ');
    out.push(`${vacuous.length} rules match an event that holds none of their fields (${named}${vacuous.length > 3 ? ', …' : ''}): they match every event without those fields`);
  }
  return out;
}

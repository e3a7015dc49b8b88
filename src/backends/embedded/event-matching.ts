// One event through a rule set, under the per-event work budget: the rules it matches, less those whose
// enabled exceptions match the event as stored, with what held; or, when matching it could cost more
// than MAX_EVENT_WORK (its characters of text times the matching cost of the rules it may match, their
// exceptions included), the reason it is refused, decided before any rule runs. Both backends decide
// through here, so they refuse the same events. An ordinary event costs one multiplication: its JSON
// text bounds its text, and the set's summed cost bounds the rules'.
import { eventText, MAX_EVENT_WORK } from '../../sigma/index.js';
import type { RuleMatch } from '../backend.js';
import type { RuleSet } from './rule-set.js';

const grouped = (n: number) => n.toLocaleString('en-US');

/**
 * Why matching the event could exceed the per-event work budget, or undefined when it cannot.
 * `stored` is the event as stored (exceptions read it), `seen` as the rules see it (shaped by the
 * pattern's preset; the same object without one), `jsonLength` the characters of its stored JSON text.
 */
export function overWorkBudget(set: RuleSet, stored: object, seen: object, jsonLength: number): string | undefined {
  // Without a preset the event's JSON text holds at least its text.
  if (stored === seen && jsonLength * set.totalCost <= MAX_EVENT_WORK) return undefined;
  let ruleCost = 0;
  let exceptionCost = 0;
  for (const id of set.candidates(seen)) {
    const detection = set.detection(id);
    if (!detection) continue;
    ruleCost += detection.ruleCost;
    exceptionCost += detection.exceptions.cost;
  }
  const cost = ruleCost + exceptionCost;
  if (cost === 0) return undefined;
  const stop = Math.floor(MAX_EVENT_WORK / cost) + 1;
  const seenText = ruleCost > 0 || stored === seen ? eventText(seen, stop) : 0;
  const storedText = exceptionCost === 0 ? 0 : stored === seen ? seenText : eventText(stored, stop);
  if (seenText * ruleCost + storedText * exceptionCost <= MAX_EVENT_WORK) return undefined;
  return (
    `matching the event could exceed the per-event work budget of ${grouped(MAX_EVENT_WORK)}: its text (more than ${grouped(stop - 1)} characters) ` +
    `times the matching cost of ${grouped(cost)} of the rules it may match (their exceptions included) is past it; send the event smaller`
  );
}

/** Matches suppressed, counted by the id of the exception that suppressed each. */
export type ExceptionTally = Map<string, number>;

/**
 * The matches of an event the budget admits: `ids` matched it (or, unset, the set's own match),
 * exceptions applied; each match an exception suppresses is counted in `tally` under its id.
 */
export function matchesOf(set: RuleSet, stored: object, seen: object, ids: string[] = set.match(seen), tally?: ExceptionTally): RuleMatch[] {
  const out: RuleMatch[] = [];
  for (const id of ids) {
    const detection = set.detection(id);
    if (!detection) continue;
    if (detection.exceptions.cost > 0) {
      const exception = detection.exceptions.matching(stored);
      if (exception !== null) {
        tally?.set(exception, (tally.get(exception) ?? 0) + 1);
        continue;
      }
    }
    out.push({ id, matchedConditions: set.matchedConditions(id, seen) });
  }
  return out;
}

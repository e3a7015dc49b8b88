// A rule's exceptions count in its matching cost (matcher.ts says what each costs): the rule's cost with
// its enabled exceptions is held to the same limit as a rule's own (MAX_MATCH_COST), so a change that
// would take it past is refused like a rule over the limit, with an error naming the limit. Checked on a
// rule worker for exception changes (regexes are compiled to be measured) and when a rule's YAML changes.
import { MAX_MATCH_COST, parseRule, ruleCost, type CompiledRule } from '../../sigma/index.js';
import { badRequest, HttpError, unprocessable, type FieldError } from '../../http/errors.js';
import type { IndexPatternRow } from '../../index-patterns/store.js';
import { compileFor } from '../analysis.js';
import { compileExceptions, exceptionValueProblem, type ExceptionSpec } from './matcher.js';

const grouped = (n: number) => n.toLocaleString('en-US');

/** The error of a rule whose matching cost with its exceptions is past the limit, or null. */
export function exceptionsLimitError(field: string, ruleCostValue: number, exceptionsCost: number, what: string): FieldError | null {
  const total = ruleCostValue + exceptionsCost;
  if (total <= MAX_MATCH_COST) return null;
  return {
    field,
    message:
      `${what} the rule's matching cost with its exceptions would be ${grouped(total)} (the rule ${grouped(ruleCostValue)}, its enabled exceptions ` +
      `${grouped(exceptionsCost)}; limit ${grouped(MAX_MATCH_COST)} per rule; an exception counts like a value test: a regex its compiled program size, any other operator 1)`,
  };
}

/** The detection of a stored rule as it matches (for its pattern), or undefined when it no longer compiles. */
function detectionOf(yaml: string, pattern: IndexPatternRow | null): CompiledRule | undefined {
  const parsed = parseRule(yaml);
  if (!parsed.ok || parsed.rule.kind !== 'detection') return undefined;
  try {
    return compileFor(parsed.rule, pattern ?? undefined, 'Rule validation failed');
  } catch (error) {
    if (error instanceof HttpError) return undefined;
    throw error;
  }
}

/**
 * Checks an exception being created or changed: its value (400 `Invalid exception`), then the rule's
 * matching cost with its enabled exceptions once the change is made (422 `Invalid exception` naming the
 * limit). Answers that cost. A rule that no longer compiles counts 0 (it matches nothing).
 */
export function checkExceptions(yaml: string, pattern: IndexPatternRow | null, enabled: ExceptionSpec[], changed: Pick<ExceptionSpec, 'operator' | 'value'>): number {
  const problem = exceptionValueProblem(changed);
  if (problem) throw badRequest('Invalid exception', [{ field: 'body.value', message: problem }]);
  const detection = detectionOf(yaml, pattern);
  const own = detection ? ruleCost(detection.ir).matchCost : 0;
  const exceptionsCost = compileExceptions(enabled).cost;
  const error = exceptionsLimitError('body.value', own, exceptionsCost, 'with this exception');
  if (error) throw unprocessable('Invalid exception', [error]);
  return own + exceptionsCost;
}

/** 422 (field `detection`) when a rule's new detection with its enabled exceptions is past the matching-cost limit. */
export function checkRuleWithExceptions(detection: CompiledRule, enabled: ExceptionSpec[], detail: string): void {
  if (enabled.length === 0) return;
  const error = exceptionsLimitError('detection', ruleCost(detection.ir).matchCost, compileExceptions(enabled).cost, 'with this detection');
  if (error) throw unprocessable(detail, [error]);
}

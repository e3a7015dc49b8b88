// The live detections of one percolator index in this process: stored-query id → compiled rule and its
// rule's enabled exceptions, matched through the engine's candidate index so each event only evaluates
// rules that can match. Each entry knows its matching cost (the rule's plus its exceptions'), and the
// set their sum, so the per-event work budget (event-matching.ts) costs nothing for an ordinary event.
import { RuleIndex, ruleCost, type CompiledRule, type Explanation } from '../../sigma/index.js';
import { compileExceptions, type ExceptionSet } from '../../rules/exceptions/matcher.js';

export interface LiveDetection {
  rule: CompiledRule;
  exceptions: ExceptionSet;
  /** The rule's matching cost per character of text (rule-budget.ts). */
  ruleCost: number;
}

const NO_EXCEPTIONS = compileExceptions([]);

export class RuleSet {
  private readonly index = new RuleIndex<string>();
  private readonly rules = new Map<string, LiveDetection>();
  /** Grows with every change, so derived data (such as an OpenSearch projection) knows when to rebuild. */
  revision = 0;
  /** The matching cost of every live detection with its exceptions, summed. */
  totalCost = 0;

  put(id: string, rule: CompiledRule, exceptions: ExceptionSet = NO_EXCEPTIONS): void {
    this.remove(id);
    const detection = { rule, exceptions, ruleCost: ruleCost(rule.ir).matchCost };
    this.index.add(id, rule);
    this.rules.set(id, detection);
    this.totalCost += detection.ruleCost + exceptions.cost;
    this.revision++;
  }

  remove(id: string): void {
    this.index.remove(id);
    const old = this.rules.get(id);
    if (!old) return;
    this.rules.delete(id);
    this.totalCost -= old.ruleCost + old.exceptions.cost;
    this.revision++;
  }

  /** The live compiled rules with their ids. */
  *entries(): IterableIterator<[string, CompiledRule]> {
    for (const [id, detection] of this.rules) yield [id, detection.rule];
  }

  /** The live compiled rule of a stored query (to explain a match). */
  get(id: string): CompiledRule | undefined {
    return this.rules.get(id)?.rule;
  }

  /** The live detection of a stored query, with its exceptions and costs. */
  detection(id: string): LiveDetection | undefined {
    return this.rules.get(id);
  }

  /** For an event the stored query matched: each selection that held, with its values; empty when it is not live. */
  matchedConditions(id: string, event: object): Explanation['matchedConditions'] {
    const explanation = this.rules.get(id)?.rule.explain(event);
    return explanation?.matched ? explanation.matchedConditions : [];
  }

  has(id: string): boolean {
    return this.index.has(id);
  }

  get size(): number {
    return this.index.size;
  }

  /** Ids of the rules that may match `event` (a superset of those that do), from the candidate index. */
  candidates(event: object): string[] {
    return this.index.candidates(event);
  }

  match(event: object): string[] {
    return this.index.match(event);
  }
}

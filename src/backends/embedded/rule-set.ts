// The live detections of one percolator index in this process: stored-query id → compiled rule,
// matched through the engine's candidate index so each event only evaluates rules that can match.
import { RuleIndex, type CompiledRule, type Explanation } from '../../sigma/index.js';

export class RuleSet {
  private readonly index = new RuleIndex<string>();
  private readonly rules = new Map<string, CompiledRule>();
  /** Grows with every change, so derived data (such as an OpenSearch projection) knows when to rebuild. */
  revision = 0;

  put(id: string, rule: CompiledRule): void {
    this.index.add(id, rule);
    this.rules.set(id, rule);
    this.revision++;
  }

  remove(id: string): void {
    this.index.remove(id);
    if (this.rules.delete(id)) this.revision++;
  }

  /** The live compiled rules with their ids. */
  entries(): IterableIterator<[string, CompiledRule]> {
    return this.rules.entries();
  }

  /** The live compiled rule of a stored query (to explain a match). */
  get(id: string): CompiledRule | undefined {
    return this.rules.get(id);
  }

  /** For an event the stored query matched: each selection that held, with its values; empty when it is not live. */
  matchedConditions(id: string, event: object): Explanation['matchedConditions'] {
    const explanation = this.rules.get(id)?.explain(event);
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

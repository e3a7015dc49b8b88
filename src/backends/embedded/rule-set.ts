// The live detections of one percolator index in this process: stored-query id → compiled rule.
import type { CompiledRule } from '../../sigma/index.js';

export class RuleSet {
  private readonly rules = new Map<string, CompiledRule>();

  put(id: string, rule: CompiledRule): void {
    this.rules.set(id, rule);
  }

  remove(id: string): void {
    this.rules.delete(id);
  }

  has(id: string): boolean {
    return this.rules.has(id);
  }

  get size(): number {
    return this.rules.size;
  }

  match(event: object): string[] {
    const out: string[] = [];
    for (const [id, rule] of this.rules) if (rule.match(event)) out.push(id);
    return out;
  }
}

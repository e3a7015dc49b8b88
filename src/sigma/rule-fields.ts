// ruleFields: the Sigma field names a rule's detection uses (fieldref targets included), for the
// caller's "field is not mapped" checks. Promises: sorted, unique, keyword searches excluded.
import type { SearchNode, SigmaRule } from './rule.js';
import type { ValueExpr } from './detection/value-expr.js';

function fromValue(v: ValueExpr, out: Set<string>): void {
  if (v.t === 'any' || v.t === 'all') v.of.forEach((x) => fromValue(x, out));
  else if (v.t === 'fieldref') out.add(v.field);
}

function fromSearch(node: SearchNode, out: Set<string>): void {
  if (node.t === 'item') {
    if (node.item.field !== null) out.add(node.item.field);
    fromValue(node.item.value, out);
  } else node.of.forEach((n) => fromSearch(n, out));
}

export function ruleFields(rule: SigmaRule): string[] {
  const out = new Set<string>();
  const dets = [rule.parsed, rule.filter?.detection].filter((d) => d !== undefined);
  for (const d of dets) for (const node of d.searches.values()) fromSearch(node, out);
  return [...out].sort();
}

// The `%placeholder%` names a rule needs (values under the `expand` modifier), and which of them a set
// of placeholder values leaves without values. Promises: names in order of first use in the detection,
// each once; every search identifier counts, used by the condition or not (as pySigma resolves every
// detection item); names are compared exactly (case-sensitive, as pySigma does).
import type { ValueExpr } from './detection/value-expr.js';
import type { SearchNode, SigmaRule } from './rule.js';

function collectValue(v: ValueExpr, out: Set<string>): void {
  if (v.t === 'any' || v.t === 'all') {
    for (const x of v.of) collectValue(x, out);
    return;
  }
  if (v.t !== 'str') return;
  for (const p of v.s.parts) if (typeof p === 'object') out.add(p.placeholder);
}

function collectSearch(node: SearchNode, out: Set<string>): void {
  if (node.t === 'item') collectValue(node.item.value, out);
  else for (const n of node.of) collectSearch(n, out);
}

/** The placeholder names a detection rule uses (none for correlation and filter documents). */
export function placeholdersOf(rule: SigmaRule): string[] {
  const out = new Set<string>();
  if (rule.parsed) for (const node of rule.parsed.searches.values()) collectSearch(node, out);
  return [...out];
}

/** The placeholders of a rule that `values` gives no value (an absent name or an empty list). */
export function missingPlaceholders(rule: SigmaRule, values: Readonly<Record<string, readonly string[]>> | null | undefined): string[] {
  return placeholdersOf(rule).filter((name) => {
    const v = values && Object.prototype.hasOwnProperty.call(values, name) ? values[name] : undefined;
    return !v || v.length === 0;
  });
}

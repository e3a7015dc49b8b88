// Witness extraction: from a rule's IR, the necessary conditions an event must satisfy for the rule to be
// able to match, used by the candidate index to skip rules cheaply.
//
// Soundness invariant (the analysis may only ever weaken): if `rule.match(event)` is true then every
// clause of `requirementOf(rule.ir)` holds for the event, where a clause holds when at least one of its
// atoms holds:
// - `exact(field, v)`: some primitive value found at `field` has `lower(asString(value)) === v`;
// - `sub(field, v)`:   some primitive value found at `field` has `lower(asString(value))` containing `v`
//                      (`field: null` = any leaf of the event, for keyword searches);
// - `present(field)`:  some value (null and objects included) is found at `field`.
// `lower` is String.prototype.toLowerCase on the whole value, the same folding the matcher applies.
// Whenever the analysis is unsure it answers "no constraint" (null) instead of a stronger statement: nodes
// under `not`, keyword tests other than literal strings, `null`/`exists:false`, and cased substrings.
import { ANY, ONE } from '../detection/sigma-string.js';
import type { IRNode, Test } from '../ir.js';

export type Atom =
  | { kind: 'exact'; field: string; value: string }
  | { kind: 'sub'; field: string | null; value: string }
  | { kind: 'present'; field: string };

/** A disjunction of atoms (never empty). */
export type Clause = Atom[];

/** null: no usable constraint (always a candidate); 'never': the rule can never match; else a CNF. */
export type Requirement = null | 'never' | Clause[];

/** At most this many clauses are kept per rule (the cheapest ones). */
export const MAX_CLAUSES = 3;

const PRESENT_COST = 40;

function atomCost(a: Atom): number {
  if (a.kind === 'present') return PRESENT_COST;
  const n = a.value.length;
  if (a.kind === 'exact') return n <= 2 ? 6 : 2;
  return n >= 6 ? 1 : n >= 4 ? 3 : n === 3 ? 8 : 25;
}

/** Estimated cost of a clause: roughly how often it holds on an unrelated event (lower is more selective). */
export function clauseCost(c: Clause): number {
  let s = 0;
  for (const a of c) s += atomCost(a);
  return s;
}

function longestLiteral(parts: Array<string | typeof ANY | typeof ONE>): string {
  let best = '';
  for (const p of parts) if (typeof p === 'string' && p.length > best.length) best = p;
  return best;
}

/** Atoms for one value test on one field (or on any leaf when field is null); null when unusable. */
function testAtoms(field: string | null, test: Test): Atom[] | null {
  switch (test.op) {
    case 'str': {
      const wild = test.parts.some((p) => p === ANY || p === ONE);
      if (!wild) {
        const lit = test.parts.length ? (test.parts[0] as string) : '';
        if (field === null) return lit ? [{ kind: 'sub', field, value: lit.toLowerCase() }] : null;
        return [{ kind: 'exact', field, value: lit.toLowerCase() }];
      }
      const lit = longestLiteral(test.parts);
      // Cased substrings are not sound under whole-value lowercasing (context-dependent case mappings).
      if (lit && !test.cased) return [{ kind: 'sub', field, value: lit.toLowerCase() }];
      return field === null ? null : [{ kind: 'present', field }];
    }
    case 'num':
      if (field === null) return null;
      return [...new Set([test.text.toLowerCase(), String(test.n)])].map((value) => ({ kind: 'exact', field, value }));
    case 'bool':
      return field === null ? null : [{ kind: 'exact', field, value: test.b ? 'true' : 'false' }];
    case 'null':
      return null;
    case 'exists':
      return test.b && field !== null ? [{ kind: 'present', field }] : null;
    default:
      return field === null ? null : [{ kind: 'present', field }];
  }
}

function matchRequirement(node: Extract<IRNode, { t: 'match' }>): Requirement {
  if (node.fields === null) {
    const atoms = testAtoms(null, node.test);
    return atoms ? [atoms] : null;
  }
  const clause: Atom[] = [];
  for (const f of node.fields) {
    const atoms = testAtoms(f, node.test);
    if (!atoms) return null;
    clause.push(...atoms);
  }
  return clause.length ? [clause] : null;
}

function cheapest(clauses: Clause[]): Clause {
  let best = clauses[0];
  let cost = clauseCost(best);
  for (let i = 1; i < clauses.length; i++) {
    const c = clauseCost(clauses[i]);
    if (c < cost) [best, cost] = [clauses[i], c];
  }
  return best;
}

/** The requirement of an IR subtree (see the invariant at the top of this file). */
export function requirementOf(node: IRNode): Requirement {
  switch (node.t) {
    case 'const':
      return node.v ? null : 'never';
    case 'not':
      return null;
    case 'sel':
      return requirementOf(node.of);
    case 'match':
      return matchRequirement(node);
    case 'and': {
      const clauses: Clause[] = [];
      for (const child of node.of) {
        const r = requirementOf(child);
        if (r === 'never') return 'never';
        if (r) clauses.push(...r);
      }
      if (!clauses.length) return null;
      return clauses.map((c) => [c, clauseCost(c)] as const).sort((a, b) => a[1] - b[1]).slice(0, MAX_CLAUSES).map((x) => x[0]);
    }
    case 'or': {
      const union: Atom[] = [];
      let live = 0;
      for (const child of node.of) {
        const r = requirementOf(child);
        if (r === 'never') continue;
        if (r === null) return null;
        live++;
        union.push(...cheapest(r));
      }
      if (!live) return 'never';
      return [dedupe(union)];
    }
  }
}

function dedupe(atoms: Atom[]): Atom[] {
  const seen = new Set<string>();
  return atoms.filter((a) => {
    const k = `${a.kind}\u0000${a.field ?? '\u0001'}\u0000${a.kind === 'present' ? '' : a.value}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

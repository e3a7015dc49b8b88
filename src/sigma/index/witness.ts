// Witness extraction: from a rule's IR, the necessary conditions an event must satisfy for the rule to be
// able to match, used by the candidate index to skip rules cheaply.
//
// Soundness invariant (the analysis may only ever weaken): if `rule.match(event)` is true then every
// clause of `requirementOf(rule.ir)` holds for the event, where a clause holds when at least one of its
// atoms holds:
// - `exact(field, v)`: some primitive value found at `field` has `foldCase(asString(value)) === v`;
// - `sub(field, v)`:   some primitive value found at `field` has `foldCase(asString(value))` containing `v`
//                      (`field: null` = any leaf of the event, for keyword searches); with `at: START`
//                      (`at: END`) it starts (ends) with `v`;
// - `present(field)`:  some value (null and objects included) is found at `field`.
// foldCase (case-fold.ts) is the folding the matcher applies.
// Whenever the analysis is unsure it answers "no constraint" (null) instead of a stronger statement: nodes
// under `not`, keyword tests other than literal strings, `null`/`exists:false`, and cased substrings.
// Regexes contribute the literals every match must contain (regex-literals.ts).
import { foldCase } from '../case-fold.js';
import { asString } from '../compile/value-tests.js';
import { ANY, ONE } from '../detection/sigma-string.js';
import type { IRNode, Test } from '../ir.js';
import { isAscii } from './gram-scanner.js';
import { regexLiterals } from './regex-literals.js';

/** Where a substring atom's value must occur: anywhere, at the start or at the end of the value. */
export const ANYWHERE = 0;
export const START = 1;
export const END = 2;
export type Placement = typeof ANYWHERE | typeof START | typeof END;

export type Atom =
  | { kind: 'exact'; field: string; value: string }
  | { kind: 'sub'; field: string | null; value: string; at?: Placement }
  | { kind: 'present'; field: string };

/** A disjunction of atoms (never empty). */
export type Clause = Atom[];

/** null: no usable constraint (always a candidate); 'never': the rule can never match; else a CNF. */
export type Requirement = null | 'never' | Clause[];

/** At most this many clauses are kept per rule (the cheapest ones). */
export const MAX_CLAUSES = 3;

const PRESENT_COST = 40;
const MIN_KEYWORD = 3;

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

/** Index of the (first) longest literal part, -1 when there is none. */
function longestLiteral(parts: Array<string | typeof ANY | typeof ONE>): number {
  let best = -1;
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (typeof p === 'string' && p.length > 0 && (best < 0 || p.length > (parts[best] as string).length)) best = i;
  }
  return best;
}

/** Atoms for one value test on one field (or on any leaf when field is null); null when unusable. */
function testAtoms(field: string | null, test: Test): Atom[] | null {
  switch (test.op) {
    case 'str': {
      const wild = test.parts.some((p) => p === ANY || p === ONE);
      if (!wild && field !== null) return [{ kind: 'exact', field, value: test.parts.length ? foldCase(test.parts[0] as string) : '' }];
      const at = longestLiteral(test.parts);
      const lit = at < 0 ? '' : (test.parts[at] as string);
      // A keyword literal shorter than MIN_KEYWORD holds on nearly every event and would only slow down
      // the scan of every value: such a rule is better evaluated always.
      if (field === null && lit.length < MIN_KEYWORD) return null;
      // Cased substrings are left to presence (a literal cut inside a surrogate pair need not fold alike).
      if (lit && !test.cased) {
        // The glob holds on the folded value, so a leading (trailing) literal starts (ends) it.
        const placed = field === null ? ANYWHERE : at === 0 ? START : at === test.parts.length - 1 ? END : ANYWHERE;
        return [placed === ANYWHERE ? { kind: 'sub', field, value: foldCase(lit) } : { kind: 'sub', field, value: foldCase(lit), at: placed }];
      }
      return field === null ? null : [{ kind: 'present', field }];
    }
    case 'num':
      if (field === null) return null;
      // The text an event's string must equal, and the text of an event's number equal to n (asString).
      return [...new Set([foldCase(test.text), asString(test.n) as string])].map((value) => ({ kind: 'exact', field, value }));
    case 'bool':
      return field === null ? null : [{ kind: 'exact', field, value: test.b ? 'true' : 'false' }];
    case 'null':
      return null;
    case 'exists':
      return test.b && field !== null ? [{ kind: 'present', field }] : null;
    case 're': {
      // On a named field even a one-character literal beats mere presence; keyword regexes (every value
      // of the event is scanned) keep the default minimum.
      const lits = regexLiterals(test, field === null ? undefined : 1);
      if (lits) return lits.map((value) => ({ kind: 'sub', field, value }));
      return field === null ? null : [{ kind: 'present', field }];
    }
    default:
      return field === null ? null : [{ kind: 'present', field }];
  }
}

/** A clause with its estimated cost while the analysis runs, and whether it comes from the rule's own
 * detection (inside a search identifier) rather than from the pipeline's logsource conditions. */
interface Costed {
  atoms: Atom[];
  cost: number;
  own: boolean;
}

/** Conditions outside any search identifier come from the pipeline (logsource routing: EventID, Channel…);
 * they are shared by many rules, so they are ranked after the rule's own detection witnesses. */
const PIPELINE_PENALTY = 10;

function matchClauses(node: Extract<IRNode, { t: 'match' }>, inSel: boolean): Costed[] | null {
  const atoms: Atom[] = [];
  for (const f of node.fields ?? [null]) {
    const a = testAtoms(f, node.test);
    if (!a) return null;
    atoms.push(...a);
  }
  if (!atoms.length) return null;
  return [{ atoms, cost: clauseCost(atoms) * (inSel ? 1 : PIPELINE_PENALTY), own: inSel }];
}

function dedupe(atoms: Atom[]): Atom[] {
  if (atoms.length < 2) return atoms;
  // kind → field → values seen (no key strings to build).
  const seen = { exact: new Map<string | null, Set<string>>(), sub: new Map<string | null, Set<string>>(), present: new Map<string | null, Set<string>>() };
  const out: Atom[] = [];
  for (const a of atoms) {
    const byField = seen[a.kind];
    let values = byField.get(a.field);
    if (values === undefined) {
      values = new Set();
      byField.set(a.field, values);
    }
    const v = a.kind === 'present' ? '' : a.kind === 'sub' && a.at ? `${a.at}\u0000${a.value}` : a.value;
    if (values.has(v)) continue;
    values.add(v);
    out.push(a);
  }
  return out;
}

function analyse(node: IRNode, inSel: boolean): null | 'never' | Costed[] {
  switch (node.t) {
    case 'const':
      return node.v ? null : 'never';
    case 'not':
      return null;
    case 'sel':
      return analyse(node.of, true);
    case 'match':
      return matchClauses(node, inSel);
    case 'and': {
      const clauses: Costed[] = [];
      for (const child of node.of) {
        const r = analyse(child, inSel);
        if (r === 'never') return 'never';
        if (r) clauses.push(...r);
      }
      if (!clauses.length) return null;
      return clauses.sort((a, b) => a.cost - b.cost).slice(0, MAX_CLAUSES);
    }
    case 'or': {
      // Any choice of one clause per alternative gives a valid clause (their union); clause t takes each
      // alternative's t-th cheapest clause (or its last one), the detection's own clauses first, so that
      // unions pair like with like (a logsource alternative each: Sysmon's and Security's mapping of the
      // same detection, and their conditions).
      const alts: Costed[][] = [];
      for (const child of node.of) {
        const r = analyse(child, inSel);
        if (r === 'never') continue;
        if (r === null) return null;
        alts.push(r.some((c) => !c.own) ? [...r.filter((c) => c.own), ...r.filter((c) => !c.own)] : r);
      }
      if (!alts.length) return 'never';
      let width = 0;
      for (const a of alts) if (a.length > width) width = a.length;
      const out: Costed[] = [];
      for (let t = 0; t < width; t++) {
        const all: Atom[] = [];
        let cost = 0;
        let own = true;
        for (const a of alts) {
          const c = a[Math.min(t, a.length - 1)];
          for (const atom of c.atoms) all.push(atom);
          cost += c.cost;
          own &&= c.own;
        }
        out.push({ atoms: dedupe(all), cost, own });
      }
      return out;
    }
  }
}

/** ASCII substrings this short occur in most values of the fields they are tested on (a non-ASCII one,
 * such as an emoji, is rare, and only texts with non-ASCII characters are searched for it). */
const WEAK_SUBSTRING = 2;

function isWeak(a: Atom): boolean {
  return a.kind === 'sub' && a.value.length <= WEAK_SUBSTRING && isAscii(a.value);
}

/** The requirement of an IR tree (see the invariant at the top of this file), cheapest clauses first. */
export function requirementOf(node: IRNode): Requirement {
  const r = analyse(node, false);
  return r === null || r === 'never' ? r : requiredClauses(r);
}

function requiredClauses(r: Costed[]): Clause[] {
  // A clause with a keyword atom makes every value of every event go through the keyword scanner; when the
  // rule has clauses on named fields, those are kept alone (dropping clauses only weakens the requirement).
  const fielded = r.filter((c) => c.atoms.every((a) => a.field !== null));
  const kept = fielded.length ? fielded : r;
  // A clause with a very short substring holds on most events yet makes the scanner report it on nearly
  // every value; when the rule has a selective clause of its own detection (the log source's conditions
  // hold on most events of that source), the weak ones are dropped the same way.
  const strong = kept.filter((c) => !c.atoms.some(isWeak));
  const chosen = strong.some((c) => c.own) ? strong : kept;
  // The log source's conditions (EventID 1, the Sysmon channel) hold on every event of that source and are
  // shared by hundreds of rules: as a clause they would mark all those rules on each such event. A rule
  // with a selective clause of its own is indexed by its own clauses alone (the conditions are still
  // checked when it is evaluated).
  const ownSelective = chosen.some((c) => c.own && c.atoms.every((a) => a.kind !== 'present'));
  return (ownSelective ? chosen.filter((c) => c.own) : chosen).map((c) => c.atoms);
}

// Rules the candidate index decides by itself: pure keyword rules, i.e. an OR (through `sel` nodes) of
// case-insensitive keyword substring tests `*lit*`. Such a rule matches exactly when some primitive value
// of the event contains one of its literals after folding (case-fold.ts), which is what its single index
// clause of keyword atoms `sub(null, lit)` states (witness.ts), and the index evaluates that clause
// exactly (every primitive leaf goes through the keyword scanner, event-walk.ts; scanners report exactly
// the patterns that occur, gram-scanner.ts). For these rules, being a candidate therefore means matching.
// Promise: `decidedByIndex(ir, requirement)` is true only when the IR has that shape and the requirement
// is one clause whose atoms are exactly the IR's keyword literals; the caller may then skip `rule.match`.
import { foldCase } from '../case-fold.js';
import { ANY } from '../detection/sigma-string.js';
import type { IRNode } from '../ir.js';
import type { Requirement } from './witness.js';

/** Folded literals of a pure keyword OR tree, or null when the tree has any other shape. */
function keywordLiterals(node: IRNode, out: Set<string>): Set<string> | null {
  switch (node.t) {
    case 'sel':
      return keywordLiterals(node.of, out);
    case 'or':
      for (const child of node.of) if (keywordLiterals(child, out) === null) return null;
      return out;
    case 'match': {
      const t = node.test;
      if (node.fields !== null || t.op !== 'str' || t.cased) return null;
      const p = t.parts;
      if (p.length !== 3 || p[0] !== ANY || p[2] !== ANY || typeof p[1] !== 'string' || p[1].length === 0) return null;
      out.add(foldCase(p[1]));
      return out;
    }
    default:
      return null;
  }
}

export function decidedByIndex(ir: IRNode, requirement: Requirement): boolean {
  if (requirement === null || requirement === 'never' || requirement.length !== 1) return false;
  const lits = keywordLiterals(ir, new Set());
  if (lits === null) return false;
  const atoms = new Set<string>();
  for (const a of requirement[0]) {
    if (a.kind !== 'sub' || a.field !== null) return false;
    atoms.add(a.value);
  }
  if (atoms.size !== lits.size) return false;
  for (const l of lits) if (!atoms.has(l)) return false;
  return true;
}

// The intermediate representation (IR): a boolean tree of typed field predicates, produced after the
// pipeline (field mapping, logsource conditions, placeholders) and consumed by every back end (the JS
// matcher today; the candidate index and the OpenSearch DSL compiler later).
//
// Invariants:
// - Inner nodes are `and` / `or` (n-ary, never empty), `not`, `const`, and `sel` (a named search
//   identifier, kept only for explain; semantically transparent).
// - Leaves are `match` nodes: `fields` lists *target* (event-side, post-mapping) field paths, OR-linked;
//   `fields: null` is a keyword search over every value of the event.
// - A `match` node is true when at least one value found at one of its fields (arrays: any member)
//   satisfies `test`; the `null` and `exists:false` tests instead hold when no (non-null) value is found.
// - No modifier, placeholder or Sigma escape survives into the IR: `str` tests hold literal parts and the
//   wildcards ANY/ONE; `cased: false` means compare case-insensitively.
// - Witness extraction: a `match` reachable from the root through `and`/`or`/`sel` only (never under a
//   `not`), with a `str` test without wildcards (exact), or a literal part (substring), or any test other
//   than null/exists:false (field presence), is a necessary condition for its conjunct.
import type { Part } from './detection/sigma-string.js';
import type { Cidr } from './detection/ip.js';
import type { CompareOp, TimePart } from './detection/value-expr.js';

export type StrPart = Exclude<Part, { placeholder: string }>;

export type Test =
  | { op: 'str'; parts: StrPart[]; cased: boolean }
  | { op: 'num'; n: number; text: string }
  | { op: 'bool'; b: boolean }
  | { op: 'null' }
  | { op: 'exists'; b: boolean }
  | { op: 're'; source: string; i: boolean; m: boolean; s: boolean }
  | { op: 'cidr'; cidr: Cidr; text: string }
  | { op: 'cmp'; cmp: CompareOp; n: number }
  | { op: 'time'; part: TimePart; cmp: CompareOp | 'eq'; n: number }
  | { op: 'fieldref'; targets: string[]; startsWith: boolean; endsWith: boolean; cased: boolean };

export type IRNode =
  | { t: 'and' | 'or'; of: IRNode[] }
  | { t: 'not'; of: IRNode }
  | { t: 'const'; v: boolean }
  | { t: 'sel'; name: string; of: IRNode }
  | { t: 'match'; fields: string[] | null; test: Test };

/** Flatten nested nodes of kind `t` into one list, dropping the neutral constant (`and`: true, `or`: false)
 * and repeats of one node (`sel or sel` is `sel`: a search identifier lowers to one shared node); null when
 * the absorbing constant occurs (`and`: false, `or`: true). One pass, no intermediate arrays. */
function flatten(t: 'and' | 'or', of: IRNode[]): IRNode[] | null {
  const neutral = t === 'and';
  const out: IRNode[] = [];
  let seen: Set<IRNode> | null = null;
  const add = (m: IRNode): void => {
    if (out.length < 8) {
      if (!out.includes(m)) out.push(m);
      return;
    }
    if (seen === null) seen = new Set(out);
    if (!seen.has(m)) {
      seen.add(m);
      out.push(m);
    }
  };
  for (const n of of) {
    if (n.t === t) {
      for (const m of n.of) {
        if (m.t !== 'const') add(m);
        else if (m.v !== neutral) return null;
      }
    } else if (n.t !== 'const') add(n);
    else if (n.v !== neutral) return null;
  }
  return out;
}

/** Value tests one evaluation of `node` may run: its leaves, a node reached by several paths counted once
 * per path (shared nodes are evaluated once per reference). Linear in the number of distinct nodes. */
export function evaluatedTests(node: IRNode, memo = new Map<IRNode, number>()): number {
  const known = memo.get(node);
  if (known !== undefined) return known;
  let n: number;
  switch (node.t) {
    case 'match':
      n = 1;
      break;
    case 'const':
      n = 0;
      break;
    case 'not':
    case 'sel':
      n = evaluatedTests(node.of, memo);
      break;
    default:
      n = 0;
      for (const m of node.of) n += evaluatedTests(m, memo);
  }
  memo.set(node, n);
  return n;
}

export function and(of: IRNode[]): IRNode {
  const flat = flatten('and', of);
  if (flat === null) return { t: 'const', v: false };
  if (flat.length === 0) return { t: 'const', v: true };
  return flat.length === 1 ? flat[0] : { t: 'and', of: flat };
}

export function or(of: IRNode[]): IRNode {
  const flat = flatten('or', of);
  if (flat === null) return { t: 'const', v: true };
  if (flat.length === 0) return { t: 'const', v: false };
  return flat.length === 1 ? flat[0] : { t: 'or', of: flat };
}

export function not(of: IRNode): IRNode {
  if (of.t === 'const') return { t: 'const', v: !of.v };
  if (of.t === 'not') return of.of;
  return { t: 'not', of };
}

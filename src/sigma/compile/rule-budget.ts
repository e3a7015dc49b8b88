// Per-rule work limits, checked on the IR before any regex is compiled for matching. Promises: a rule
// within the limits compiles in bounded time and memory, and matching one event value of n characters
// costs at most about n × MAX_MATCH_COST elementary steps; a rule over a limit gets one {field, message}
// error naming the limit, found without compiling more regexes than the cost limit allows.
//
// The matching cost of a rule is a bound on the work per character of a value it reads: a regex costs its
// RE2 program size (the automaton advances that many states per character at worst), a wildcard pattern
// (`*` inside, or `?`) its length (the glob matcher may retry it from every position), a substring test 1
// (one scan), and a list of at least 32 case-insensitive substrings on one field 1 in all (one automaton
// pass); exact, prefix and suffix tests cost no scan. SigmaHQ's largest rules stay far below every limit:
// 4,434 value tests, 19 regexes, 48 wildcard patterns, a matching cost of 2,006.
import { ANY, ONE } from '../detection/sigma-string.js';
import type { IRNode, Test } from '../ir.js';
import type { FieldError } from '../rule.js';
import { shapeOf } from './string-match.js';
import { cachedRegex } from './value-tests.js';

/** Regular expressions (`re` values) one rule may hold. */
export const MAX_REGEXES = 200;
/** Wildcard patterns (a `*` not at either end, or a `?`) one rule may hold. */
export const MAX_WILDCARDS = 1_000;
/** Matching cost (work per character of an event value, see above) one rule may have. */
export const MAX_MATCH_COST = 10_000;
/** Fused case-insensitive substring lists of at least this many entries run as one automaton pass
 * (matcher.ts AUTOMATON_THRESHOLD); groups of at least FUSED tests on one field are fused. */
const AUTOMATON_THRESHOLD = 32;
const FUSED = 3;

export interface RuleCost {
  regexes: number;
  wildcards: number;
  /** Matching cost per character of a value; a lower bound when `partial` (counting stopped past the limit). */
  matchCost: number;
  partial: boolean;
}

const grouped = (n: number) => n.toLocaleString('en-US');

function strLength(test: Extract<Test, { op: 'str' }>): number {
  let n = 0;
  for (const p of test.parts) n += typeof p === 'string' ? p.length : 1;
  return n;
}

function isWildcard(test: Test): boolean {
  return test.op === 'str' && test.parts.some((p) => p === ONE || p === ANY) && shapeOf(test.parts).kind === 'glob';
}

/** Distinct match nodes, plus the substring tests that run inside an automaton (cost shared). */
function collect(ir: IRNode): { matches: Extract<IRNode, { t: 'match' }>[]; automaton: Set<IRNode>; automata: number } {
  const seen = new Set<IRNode>();
  const matches: Extract<IRNode, { t: 'match' }>[] = [];
  const automaton = new Set<IRNode>();
  let automata = 0;
  const stack: IRNode[] = [ir];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (seen.has(node)) continue;
    seen.add(node);
    if (node.t === 'match') matches.push(node);
    else if (node.t === 'not' || node.t === 'sel') stack.push(node.of);
    else if (node.t === 'and' || node.t === 'or') {
      for (const child of node.of) stack.push(child);
      if (node.t === 'or') automata += fusedAutomata(node.of, automaton);
    }
  }
  return { matches, automaton, automata };
}

/** Marks the case-insensitive substring tests of an `or` that the matcher runs as one automaton per field. */
function fusedAutomata(children: IRNode[], into: Set<IRNode>): number {
  const groups = new Map<string, IRNode[]>();
  for (const n of children) {
    if (n.t !== 'match' || n.test.op !== 'str' || n.test.cased) continue;
    const key = n.fields === null ? '\u0001' : n.fields.join('\u0000');
    const group = groups.get(key);
    if (group) group.push(n);
    else groups.set(key, [n]);
  }
  let automata = 0;
  for (const group of groups.values()) {
    if (group.length < FUSED) continue;
    const contains = group.filter((n) => n.t === 'match' && n.test.op === 'str' && shapeOf(n.test.parts).kind === 'contains');
    if (contains.length < AUTOMATON_THRESHOLD) continue;
    for (const n of contains) into.add(n);
    automata++;
  }
  return automata;
}

/** The cost of a rule's IR; regexes are compiled (and cached for the matcher) only while the cost is within the limit. */
export function ruleCost(ir: IRNode): RuleCost {
  const { matches, automaton, automata } = collect(ir);
  let regexes = 0;
  let wildcards = 0;
  for (const m of matches) {
    if (m.test.op === 're') regexes++;
    else if (isWildcard(m.test)) wildcards++;
  }
  let matchCost = automata;
  if (regexes > MAX_REGEXES || wildcards > MAX_WILDCARDS) return { regexes, wildcards, matchCost, partial: true };
  let partial = false;
  for (const m of matches) {
    const test = m.test;
    if (test.op === 'str') {
      if (automaton.has(m)) continue;
      const kind = shapeOf(test.parts).kind;
      if (kind === 'glob') matchCost += strLength(test);
      else if (kind === 'contains') matchCost += 1;
    } else if (test.op === 'fieldref') matchCost += 1;
    else if (test.op === 're') {
      if (matchCost > MAX_MATCH_COST) {
        partial = true;
        break;
      }
      const compiled = cachedRegex(test);
      if (compiled.ok) matchCost += compiled.regex.programSize;
    }
  }
  return { regexes, wildcards, matchCost, partial };
}

/** The error of a rule over a work limit, or null. */
export function budgetError(ir: IRNode): FieldError | null {
  const cost = ruleCost(ir);
  if (cost.regexes > MAX_REGEXES) {
    return { field: 'detection', message: `the rule has ${grouped(cost.regexes)} regular expressions (limit ${grouped(MAX_REGEXES)} per rule)` };
  }
  if (cost.wildcards > MAX_WILDCARDS) {
    return { field: 'detection', message: `the rule has ${grouped(cost.wildcards)} wildcard patterns (limit ${grouped(MAX_WILDCARDS)} per rule)` };
  }
  if (cost.matchCost > MAX_MATCH_COST) {
    return {
      field: 'detection',
      message:
        `the rule's matching cost is ${grouped(cost.matchCost)}${cost.partial ? ' or more' : ''} (limit ${grouped(MAX_MATCH_COST)} per rule; ` +
        'a regex counts its compiled program size, a wildcard pattern its length, a substring test 1)',
    };
  }
  return null;
}

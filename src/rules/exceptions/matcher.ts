// Rule exceptions at match time: an event matching any enabled exception of a rule raises no alert.
// Field paths resolve like Sigma fields (nested or flat dotted keys, arrays: any member); every
// comparison is case-insensitive; numbers and booleans compare by their text.
import { BlockList, isIP } from 'node:net';
import { compileSafeRegex, makeAccessor } from '../../sigma/index.js';

export const EXCEPTION_OPERATORS = ['equals', 'contains', 'startswith', 'endswith', 'regex', 'cidr', 'in'] as const;
export type ExceptionOperator = (typeof EXCEPTION_OPERATORS)[number];

export interface ExceptionSpec {
  field: string;
  operator: ExceptionOperator;
  value: string | string[];
}

type Test = (text: string) => boolean;

function parseCidr(value: string): BlockList | null {
  const [address, prefixText] = value.trim().split('/');
  const family = isIP(address);
  if (family === 0) return null;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  const max = family === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > max || (prefixText !== undefined && !/^\d+$/.test(prefixText))) return null;
  const list = new BlockList();
  list.addSubnet(address, prefix, type);
  return list;
}

/** Why an exception's value is unusable for its operator, or null when it is fine. */
export function exceptionValueProblem(spec: Pick<ExceptionSpec, 'operator' | 'value'>): string | null {
  if (spec.operator === 'in') {
    return Array.isArray(spec.value) && spec.value.length > 0 ? null : "operator 'in' needs a non-empty list of values";
  }
  if (typeof spec.value !== 'string') return `operator '${spec.operator}' needs a single string value`;
  if (spec.operator === 'regex') {
    const compiled = compileSafeRegex({ source: spec.value, i: true, m: false, s: false });
    return compiled.ok ? null : compiled.message;
  }
  if (spec.operator === 'cidr' && !parseCidr(spec.value)) return `'${spec.value}' is not an IPv4 or IPv6 address or CIDR range`;
  return null;
}

function compileTest(spec: ExceptionSpec): Test {
  const one = typeof spec.value === 'string' ? spec.value.toLowerCase() : '';
  switch (spec.operator) {
    case 'equals':
      return (t) => t.toLowerCase() === one;
    case 'contains':
      return (t) => t.toLowerCase().includes(one);
    case 'startswith':
      return (t) => t.toLowerCase().startsWith(one);
    case 'endswith':
      return (t) => t.toLowerCase().endsWith(one);
    case 'in': {
      const set = new Set((spec.value as string[]).map((v) => v.toLowerCase()));
      return (t) => set.has(t.toLowerCase());
    }
    case 'regex': {
      const compiled = compileSafeRegex({ source: spec.value as string, i: true, m: false, s: false });
      return compiled.ok ? (t) => compiled.regex.test(t) : () => false;
    }
    case 'cidr': {
      const list = parseCidr(spec.value as string);
      return (t) => {
        const family = isIP(t);
        return list !== null && family !== 0 && list.check(t, family === 4 ? 'ipv4' : 'ipv6');
      };
    }
  }
}

/** A predicate telling whether an event matches the exception. */
export function compileException(spec: ExceptionSpec): (event: object) => boolean {
  const accessor = makeAccessor(spec.field);
  const test = compileTest(spec);
  return (event) =>
    accessor.each(event, (value) => {
      if (value === null || value === undefined || typeof value === 'object') return false;
      return test(String(value));
    });
}

/** One predicate for a rule's enabled exceptions: true when any of them matches the event. */
export function compileExceptions(exceptions: ExceptionSpec[]): (event: object) => boolean {
  const predicates = exceptions.map(compileException);
  return (event) => predicates.some((p) => p(event));
}

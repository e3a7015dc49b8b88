// Rule exceptions at match time: an event matching any enabled exception of a rule raises no alert.
// Field paths resolve like Sigma fields (nested or flat dotted keys, arrays: any member); every
// comparison is case-insensitive; numbers and booleans compare by their text. An exception has a
// matching cost in the units of a rule's (work per character of the value it reads): a regex its RE2
// program size, any other operator 1 (one case-folding pass over the value); a rule's exceptions add
// their cost to the rule's, under the same limit and the same per-event work budget. An exception past
// its expiry (`expires_at`) matches nothing from that instant on, wherever it is compiled.
import { BlockList, isIP } from 'node:net';
import { compileSafeRegex, makeAccessor } from '../../sigma/index.js';

export const EXCEPTION_OPERATORS = ['equals', 'contains', 'startswith', 'endswith', 'regex', 'cidr', 'in'] as const;
export type ExceptionOperator = (typeof EXCEPTION_OPERATORS)[number];

export interface ExceptionSpec {
  field: string;
  operator: ExceptionOperator;
  value: string | string[];
  /** The stored exception's id (set where matches are counted per exception). */
  id?: string;
  /** When the exception stops applying (ISO time); absent or null: never. */
  expires_at?: string | null;
}

type Test = (text: string) => boolean;

/** A rule's enabled exceptions, compiled: whether one matches an event, and what checking them costs per character. */
export interface ExceptionSet {
  matches(event: object): boolean;
  /** The first exception (in the order given) matching the event: its id ('' when it has none), or null. */
  matching(event: object): string | null;
  /** Matching cost per character of a value read (the sum over the exceptions). */
  cost: number;
}

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

function compileTest(spec: ExceptionSpec): { test: Test; cost: number } {
  const one = typeof spec.value === 'string' ? spec.value.toLowerCase() : '';
  switch (spec.operator) {
    case 'equals':
      return { test: (t) => t.toLowerCase() === one, cost: 1 };
    case 'contains':
      return { test: (t) => t.toLowerCase().includes(one), cost: 1 };
    case 'startswith':
      return { test: (t) => t.toLowerCase().startsWith(one), cost: 1 };
    case 'endswith':
      return { test: (t) => t.toLowerCase().endsWith(one), cost: 1 };
    case 'in': {
      const set = new Set((spec.value as string[]).map((v) => v.toLowerCase()));
      return { test: (t) => set.has(t.toLowerCase()), cost: 1 };
    }
    case 'regex': {
      const compiled = compileSafeRegex({ source: spec.value as string, i: true, m: false, s: false });
      return compiled.ok ? { test: (t) => compiled.regex.test(t), cost: compiled.regex.programSize } : { test: () => false, cost: 0 };
    }
    case 'cidr': {
      const list = parseCidr(spec.value as string);
      const test: Test = (t) => {
        const family = isIP(t);
        return list !== null && family !== 0 && list.check(t, family === 4 ? 'ipv4' : 'ipv6');
      };
      return { test, cost: 1 };
    }
  }
}

/** Whether an exception has expired at `now` (ms since the epoch). */
export function isExpired(spec: Pick<ExceptionSpec, 'expires_at'>, now = Date.now()): boolean {
  return spec.expires_at !== undefined && spec.expires_at !== null && Date.parse(spec.expires_at) <= now;
}

/** An exception's predicate on events (false once it has expired), with its matching cost per character. */
export function compileException(spec: ExceptionSpec): { matches: (event: object) => boolean; cost: number } {
  const accessor = makeAccessor(spec.field);
  const { test, cost } = compileTest(spec);
  const expiresAt = spec.expires_at ? Date.parse(spec.expires_at) : Number.POSITIVE_INFINITY;
  const matches = (event: object) =>
    Date.now() < expiresAt &&
    accessor.each(event, (value) => {
      if (value === null || value === undefined || typeof value === 'object') return false;
      return test(String(value));
    });
  return { matches, cost };
}

const NONE: ExceptionSet = { matches: () => false, matching: () => null, cost: 0 };

/** A rule's enabled exceptions as one set: it matches an event when any of them does. */
export function compileExceptions(exceptions: ExceptionSpec[]): ExceptionSet {
  if (exceptions.length === 0) return NONE;
  const compiled = exceptions.map(compileException);
  const predicates = compiled.map((c) => c.matches);
  const ids = exceptions.map((e) => e.id ?? '');
  const matching = (event: object): string | null => {
    const i = predicates.findIndex((p) => p(event));
    return i < 0 ? null : ids[i];
  };
  return { matches: (event) => predicates.some((p) => p(event)), matching, cost: compiled.reduce((sum, c) => sum + c.cost, 0) };
}

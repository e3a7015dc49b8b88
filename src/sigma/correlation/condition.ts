// The condition of a correlation: comparisons (gt, gte, lt, lte, eq, neq; several are AND-ed, so
// `gt: 100, lte: 200` is a range), the value_* field(s) and value_percentile's `percentile`. Temporal
// types default to `gte: <number of rules>` (pySigma's default).
import type { Comparison, ComparisonOp, CorrelationType } from './types.js';

const OPS: ComparisonOp[] = ['gt', 'gte', 'lt', 'lte', 'eq', 'neq'];

export interface ParsedCondition {
  comparisons: Comparison[];
  fields: string[];
  percentile: number | null;
}

function number(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v)) return Number(v);
  return null;
}

export function parseCondition(type: CorrelationType, raw: Record<string, unknown> | undefined, ruleCount: number): ParsedCondition | string {
  const comparisons: Comparison[] = [];
  let fields: string[] = [];
  let percentile: number | null = type === 'value_median' ? 50 : null;
  for (const [key, v] of Object.entries(raw ?? {})) {
    if ((OPS as string[]).includes(key)) {
      const n = number(v);
      if (n === null) return `${key} must be a number`;
      comparisons.push({ op: key as ComparisonOp, value: n });
    } else if (key === 'field') {
      const list = Array.isArray(v) ? v : [v];
      if (list.length === 0 || !list.every((x) => typeof x === 'string' && x !== '')) return 'field must be a field name or a list of them';
      fields = list as string[];
    } else if (key === 'percentile') {
      const n = number(v);
      if (n === null || n < 0 || n > 100) return 'percentile must be a number from 0 to 100';
      percentile = n;
    } else return `unknown key '${key}' (expected gt, gte, lt, lte, eq, neq, field, percentile)`;
  }
  if (comparisons.length === 0) {
    if (type === 'temporal' || type === 'temporal_ordered') comparisons.push({ op: 'gte', value: ruleCount });
    else return 'needs one of gt, gte, lt, lte, eq, neq';
  }
  if (type.startsWith('value_') && fields.length === 0) return `${type} needs a field`;
  if (type !== 'value_count' && fields.length > 1) return `${type} takes one field`;
  return { comparisons, fields, percentile };
}

export function holds(comparisons: readonly Comparison[], value: number): boolean {
  for (const c of comparisons) {
    const ok =
      c.op === 'gt' ? value > c.value
      : c.op === 'gte' ? value >= c.value
      : c.op === 'lt' ? value < c.value
      : c.op === 'lte' ? value <= c.value
      : c.op === 'eq' ? value === c.value
      : value !== c.value;
    if (!ok) return false;
  }
  return true;
}

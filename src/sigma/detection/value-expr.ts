// Typed detection values after modifiers: the vocabulary shared by the detection parser, the IR builder
// and the compiler. Promises: a ValueExpr never contains an unapplied modifier; expansions and value lists
// are explicit `any`/`all` groups; regex sources are raw (no Sigma escape processing).
import type { SigmaString } from './sigma-string.js';
import type { Cidr } from './ip.js';

export type CompareOp = 'gt' | 'gte' | 'lt' | 'lte';
export type TimePart = 'minute' | 'hour' | 'day' | 'week' | 'month' | 'year';

export type ValueLeaf =
  | { t: 'str'; s: SigmaString }
  | { t: 'num'; n: number; text: string }
  | { t: 'bool'; b: boolean }
  | { t: 'null' }
  | { t: 're'; source: string; i: boolean; m: boolean; s: boolean }
  | { t: 'cidr'; cidr: Cidr; text: string }
  | { t: 'cmp'; op: CompareOp; n: number }
  | { t: 'exists'; b: boolean }
  | { t: 'fieldref'; field: string; startsWith: boolean; endsWith: boolean; cased: boolean }
  | { t: 'time'; part: TimePart; op: CompareOp | 'eq'; n: number };

export type ValueExpr = ValueLeaf | { t: 'any'; of: ValueExpr[] } | { t: 'all'; of: ValueExpr[] };

/** One `field|mods: values` entry (field null = keyword search) after modifier application. */
export interface ItemExpr {
  field: string | null;
  value: ValueExpr;
  negate: boolean;
  /** Path of the entry in the rule, e.g. `detection.selection.Image|endswith` (for error messages). */
  path: string;
}

// The Sigma rule model produced by the loader. Promises: a SigmaRule of kind 'detection' has a validated
// title, logsource, level and a parsed detection (search identifiers with typed, modifier-applied items and
// a parsed condition). Correlation and filter documents are represented too, with their own sections.
import type { ConditionAst } from './condition/parse.js';
import type { ItemExpr } from './detection/value-expr.js';

export type Level = 'informational' | 'low' | 'medium' | 'high' | 'critical';
export const LEVELS: Level[] = ['informational', 'low', 'medium', 'high', 'critical'];
export type Status = 'stable' | 'test' | 'experimental' | 'deprecated' | 'unsupported';
export const STATUSES: Status[] = ['stable', 'test', 'experimental', 'deprecated', 'unsupported'];

export interface Logsource {
  category?: string;
  product?: string;
  service?: string;
  definition?: string;
  [custom: string]: string | undefined;
}

/** A search identifier: map = AND of items, list = OR of sub-searches, leaf = one item. */
export type SearchNode = { t: 'and' | 'or'; of: SearchNode[] } | { t: 'item'; item: ItemExpr };

export interface ParsedDetection {
  searches: Map<string, SearchNode>;
  /** One entry per condition (a YAML list of conditions is OR-linked). */
  conditions: ConditionAst[];
}

export interface SigmaCorrelation {
  type: string;
  rules: string[];
  groupBy: string[];
  timespan: string;
  timespanSeconds: number;
  condition?: Record<string, unknown> | string;
  aliases?: Record<string, unknown>;
  generate: boolean;
}

export interface SigmaFilterSection {
  rules: string[] | 'any';
  detection: ParsedDetection;
  raw: Record<string, unknown>;
}

export interface SigmaRule {
  kind: 'detection' | 'correlation' | 'filter';
  id?: string;
  name?: string;
  title: string;
  description?: string;
  author?: string;
  /** Always set for kind 'detection'; optional on correlations and absent on filters. */
  level?: Level;
  status?: Status;
  date?: string;
  modified?: string;
  tags: string[];
  references: string[];
  falsepositives: string[];
  logsource: Logsource;
  /** The raw detection section as written (empty for correlations). */
  detection: Record<string, unknown>;
  parsed?: ParsedDetection;
  correlation?: SigmaCorrelation;
  filter?: SigmaFilterSection;
  /** Every top-level attribute as loaded (custom attributes included). */
  raw: Record<string, unknown>;
}

export interface FieldError {
  field: string;
  message: string;
}

export type ParseResult =
  | { ok: true; rule: SigmaRule }
  | { ok: false; kind: 'yaml'; message: string }
  | { ok: false; kind: 'validation'; errors: FieldError[] };

// Processing pipelines as data (pySigma model, sigma-notes §9): field mappings (1:1 and 1:n), a default
// mapping, logsource → event conditions, and placeholder values for `expand`. Promises: a Pipeline is
// plain data (serialisable); `mapField` is the single place that decides a Sigma field's target fields.
import type { LogsourceKeys } from './logsource-scope.js';

export type ConditionScalar = string | number | boolean;

/** Event conditions added for rules whose logsource is contained in `logsource` (pySigma containment). */
export interface LogsourceCondition {
  logsource: { category?: string; product?: string; service?: string };
  /** AND of fields; a list value is OR-linked. Field names are Sigma names (they go through the mapping). */
  conditions: Record<string, ConditionScalar | ConditionScalar[]>;
  /** Sigma-field renames that apply only under this alternative, before the pipeline's mapping
   * (e.g. Security 4688: Image → NewProcessName). */
  renames?: Record<string, string>;
  /** The log source a rule is read as under this alternative (thor.yml's `rewrite`: an antivirus rule
   * is a Windows Defender rule, a Sysmon process_creation rule a Sysmon one): the pipeline's mapping scope
   * and scoped field mappings are decided on the rule's log source with these attributes replaced. */
  rewrite?: { product?: string; service?: string };
}

export interface Pipeline {
  name: string;
  description: string;
  /** identity: unmapped fields keep their name; none: unmapped fields are an error; prefix: unmapped
   * fields get the prefix, except names that start with a word and a dot (`host.name` is kept). */
  defaultMapping: 'identity' | 'none' | { prefix: string };
  fieldMappings: Record<string, string[]>;
  logsources: LogsourceCondition[];
  /** Field mappings that apply only to rules whose logsource is contained in `logsource` (pySigma
   * field_name_mapping with a logsource rule condition); they take precedence over `fieldMappings`. */
  scopedFieldMappings?: Array<{ logsource: LogsourceCondition['logsource']; mappings: Record<string, string[]> }>;
  /** When set, the field mappings (fixed, scoped and default) apply only to rules whose logsource is
   * contained in it (pySigma's rule condition on a mapping); other rules keep their field names (or, with
   * the default mapping `none`, must be mapped by `overrides`). */
  mappingScope?: LogsourceCondition['logsource'];
  /** The pipeline user's own mappings (an index pattern's): they win over every mapping above and apply
   * to every rule, whatever its log source. */
  overrides?: Record<string, string[]>;
  /** Values for `expand` placeholders (%name%), OR-linked. */
  vars: Record<string, string[]>;
  /** What an unresolved placeholder means: an error (default, as the spec requires) or a wildcard. */
  unresolvedPlaceholders: 'error' | 'wildcard';
  /** Where the events this pipeline reads carry their own time, tried in order when the index pattern's
   * timestamp field is absent from an event (before falling back to the arrival time). */
  timeFields?: string[];
  /** Events in evtx_dump's shape (`{"Event": {"System": …, "EventData": …}}`) are flattened to Sigma's
   * field names before matching (windows-event.ts), for pipelines that read flat Windows events. */
  flattenEvtxDump?: boolean;
  /** Events in another shipper's shape reshaped to Sigma's flat Windows names before matching
   * (event-shapes/): NXLog's im_msvistalog JSON, or a Microsoft Sentinel WindowsEvent row. */
  eventShape?: EventShapeName;
  /** The log sources the events carry (logsource-scope.ts): rules whose log source cannot occur there are
   * refused. Absent or empty: any. */
  logsourceScope?: LogsourceKeys[];
}

export type EventShapeName = 'nxlog' | 'sentinel-windows-event';

export interface PipelineSpec {
  defaultMapping: 'identity' | 'none' | { prefix: string };
  fieldMappings: { sigmaField: string; targetFields: string[] }[];
  preset?: string;
  vars?: Record<string, string[]>;
  unresolvedPlaceholders?: 'error' | 'wildcard';
  logsourceScope?: LogsourceKeys[];
}

/**
 * Target fields of a Sigma field outside any rule (a correlation's group-by and value fields): the
 * user's own mapping first, then the pipeline's table and default; null when nothing maps it.
 */
export function mapFieldWithOverrides(pipeline: Pipeline, field: string): string[] | null {
  const mine = pipeline.overrides && Object.prototype.hasOwnProperty.call(pipeline.overrides, field) ? pipeline.overrides[field] : undefined;
  return mine !== undefined && mine.length > 0 ? mine : mapField(pipeline, field);
}

/** Target fields of a Sigma field, or null when the pipeline does not map it. */
export function mapField(pipeline: Pipeline, field: string): string[] | null {
  const hit = Object.prototype.hasOwnProperty.call(pipeline.fieldMappings, field) ? pipeline.fieldMappings[field] : undefined;
  if (hit && hit.length > 0) return hit;
  const d = pipeline.defaultMapping;
  if (d === 'identity') return [field];
  if (d === 'none') return null;
  return QUALIFIED.test(field) ? [field] : [d.prefix + field];
}

/** A name that already names its place (`process.executable`, `winlog.channel`): a word, then a dot, as
 * pySigma's prefix transformation tells them (`^\w+\.`, Python's Unicode \w). */
const QUALIFIED = /^[\p{L}\p{N}\p{Mn}\p{Pc}]+\./u;

/** pySigma containment: every attribute the condition's logsource sets equals the rule's. */
export function logsourceApplies(cond: LogsourceCondition['logsource'], rule: { category?: string; product?: string; service?: string }): boolean {
  for (const key of ['category', 'product', 'service'] as const) {
    const want = cond[key];
    if (want !== undefined && want !== rule[key]) return false;
  }
  return true;
}

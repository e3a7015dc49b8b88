// compileRule: a parsed rule + pipeline (+ optional Sigma filters) → IR → compiled matcher. Promises: never
// throws for rule content; a rule outside the pipeline's log-source scope, unmapped fields, unresolved
// placeholders and unsafe regexes come back as {field, message} errors; filters that do not apply to the
// rule are ignored.
import { buildIR } from './build-ir.js';
import { compileIR } from './compile/matcher.js';
import type { CompiledRule } from './compile/matcher.js';
import { applicableFilters } from './filters.js';
import { getPreset } from './pipeline/presets.js';
import type { Pipeline } from './pipeline/pipeline.js';
import { describeLogsource, describeScope, scopeAdmits } from './pipeline/logsource-scope.js';
import type { FieldError, SigmaRule } from './rule.js';

export type CompileResult = { ok: true; matcher: CompiledRule } | { ok: false; errors: FieldError[] };

export interface CompileOptions {
  /** Parsed Sigma filter documents (kind 'filter'); those applying to the rule are AND-ed in. */
  filters?: SigmaRule[];
}

export function compileRule(rule: SigmaRule, pipeline?: Pipeline, options: CompileOptions = {}): CompileResult {
  const p = pipeline ?? (getPreset('sigma-native') as Pipeline);
  if (p.logsourceScope && rule.kind === 'detection' && !scopeAdmits(p.logsourceScope, rule.logsource)) {
    const message = `rule logsource (${describeLogsource(rule.logsource)}) is outside the log sources of pipeline '${p.name}' (${describeScope(p.logsourceScope)})`;
    return { ok: false, errors: [{ field: 'logsource', message }] };
  }
  const { ir, errors } = buildIR(rule, p, applicableFilters(rule, options.filters ?? []));
  if (errors.length) return { ok: false, errors };
  return compileIR(ir);
}

// compileRule: a parsed rule + pipeline (+ optional Sigma filters) → IR → compiled matcher. Promises: never
// throws for rule content; a rule outside the pipeline's log-source scope, unmapped fields, unresolved
// placeholders, unsafe regexes and rules over a work limit come back as {field, message} errors; filters that do not apply to the
// rule are ignored.
import { buildIR } from './build-ir.js';
import { compileIR } from './compile/matcher.js';
import type { CompiledRule } from './compile/matcher.js';
import { applicableFilters } from './filters.js';
import { getPreset } from './pipeline/presets.js';
import type { Pipeline } from './pipeline/pipeline.js';
import { describeLogsource, describeScope, scopeAdmits } from './pipeline/logsource-scope.js';
import type { FieldError, SigmaRule } from './rule.js';

/** `overLimit`: the rule is refused for a per-rule work limit (compile/rule-budget.ts, build-ir.ts MAX_PREDICATES). */
export type CompileResult = { ok: true; matcher: CompiledRule } | { ok: false; errors: FieldError[]; overLimit?: true };

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
  const { ir, errors, overLimit } = buildIR(rule, p, applicableFilters(rule, options.filters ?? []));
  if (overLimit) return { ok: false, errors, overLimit };
  if (errors.length) return { ok: false, errors };
  return compileIR(ir);
}

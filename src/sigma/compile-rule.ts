// compileRule: a parsed rule + pipeline → IR → compiled matcher. Promises: never throws for rule content;
// unmapped fields, unresolved placeholders and unsafe regexes come back as {field, message} errors.
import { buildIR } from './build-ir.js';
import { compileIR } from './compile/matcher.js';
import type { CompiledRule } from './compile/matcher.js';
import { getPreset } from './pipeline/presets.js';
import type { Pipeline } from './pipeline/pipeline.js';
import type { FieldError, ParsedDetection, SigmaRule } from './rule.js';

export type CompileResult = { ok: true; matcher: CompiledRule } | { ok: false; errors: FieldError[] };

export function compileRule(rule: SigmaRule, pipeline?: Pipeline, options: { filters?: ParsedDetection[] } = {}): CompileResult {
  const p = pipeline ?? (getPreset('sigma-native') as Pipeline);
  const { ir, errors } = buildIR(rule, p, options.filters ?? []);
  if (errors.length) return { ok: false, errors };
  return compileIR(ir);
}

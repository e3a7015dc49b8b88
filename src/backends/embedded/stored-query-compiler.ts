// Turns a stored query document back into a compiled detection (on deploy and on every instance that
// follows the change log).
import { buildPipeline, compileRule, parseRule, type CompiledRule } from '../../sigma/index.js';
import type { StoredQuery } from '../backend.js';

export type StoredQueryDocument = Omit<StoredQuery, 'id'>;

/** The compiled rule, or the reason it cannot be compiled. */
export function compileStoredQuery(doc: StoredQueryDocument): { ok: true; rule: CompiledRule } | { ok: false; reason: string } {
  const parsed = parseRule(doc.yaml);
  if (!parsed.ok) return { ok: false, reason: parsed.kind === 'yaml' ? parsed.message : parsed.errors.map((e) => `${e.field}: ${e.message}`).join('; ') };
  const compiled = compileRule(parsed.rule, buildPipeline(doc.pipeline));
  if (!compiled.ok) return { ok: false, reason: compiled.errors.map((e) => `${e.field}: ${e.message}`).join('; ') };
  return { ok: true, rule: compiled.matcher };
}

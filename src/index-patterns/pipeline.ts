// How an index pattern's field mappings become the engine's pipeline. `default_mapping: identity`
// means "the preset's own default (e.g. a winlog.event_data. prefix), or the field name itself";
// `none` means every Sigma field must be mapped explicitly (or by the preset's table). The pattern's
// placeholder values and log-source scope are part of the spec, so a stored query carries them and every
// instance compiles the same detection from it.
import { buildPipeline, getPreset, type Pipeline, type PipelineSpec } from '../sigma/index.js';
import type { IndexPatternRow } from './store.js';

type PipelineSettings = Pick<IndexPatternRow, 'default_mapping' | 'field_mappings' | 'preset'> & Partial<Pick<IndexPatternRow, 'placeholders' | 'logsource_scope'>>;

export function pipelineSpecOf(pattern: PipelineSettings): PipelineSpec {
  const grouped = new Map<string, string[]>();
  for (const m of pattern.field_mappings) {
    const targets = grouped.get(m.sigma_field) ?? [];
    if (!targets.includes(m.target_field)) targets.push(m.target_field);
    grouped.set(m.sigma_field, targets);
  }
  const preset = pattern.preset ? getPreset(pattern.preset) : undefined;
  return {
    defaultMapping: pattern.default_mapping === 'none' ? 'none' : (preset?.defaultMapping ?? 'identity'),
    fieldMappings: [...grouped].map(([sigmaField, targetFields]) => ({ sigmaField, targetFields })),
    preset: pattern.preset ?? undefined,
    // Only when set, so the spec of a pattern without them stays as it was.
    ...(pattern.placeholders && Object.keys(pattern.placeholders).length > 0 ? { vars: pattern.placeholders } : {}),
    ...(pattern.logsource_scope && pattern.logsource_scope.length > 0 ? { logsourceScope: pattern.logsource_scope } : {}),
  };
}

export function pipelineOf(pattern: PipelineSettings): Pipeline {
  return buildPipeline(pipelineSpecOf(pattern));
}

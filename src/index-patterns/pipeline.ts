// How an index pattern's field mappings become the engine's pipeline. `default_mapping: identity`
// means "the preset's own default (e.g. a winlog.event_data. prefix), or the field name itself";
// `none` means every Sigma field must be mapped explicitly (or by the preset's table).
import { buildPipeline, getPreset, type Pipeline, type PipelineSpec } from '../sigma/index.js';
import type { IndexPatternRow } from './store.js';

export function pipelineSpecOf(pattern: Pick<IndexPatternRow, 'default_mapping' | 'field_mappings' | 'preset'>): PipelineSpec {
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
  };
}

export function pipelineOf(pattern: Pick<IndexPatternRow, 'default_mapping' | 'field_mappings' | 'preset'>): Pipeline {
  return buildPipeline(pipelineSpecOf(pattern));
}

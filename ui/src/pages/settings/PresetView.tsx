// What a field-mapping preset maps: its description, its default for unmapped fields, its table
// (filterable) and the mappings it holds for one log source only. Fields the pattern maps itself are
// marked, since the pattern's own mapping wins.
import { useState } from 'react';
import type { FieldMapping, FieldMappingPreset } from './types';
import { ListTable } from './ListTable';

function matches(m: FieldMapping, filter: string): boolean {
  const f = filter.trim().toLowerCase();
  return !f || m.sigma_field.toLowerCase().includes(f) || m.target_field.toLowerCase().includes(f);
}

function Rows({ mappings, own, filter }: { mappings: FieldMapping[]; own: Set<string>; filter: string }) {
  return mappings
    .filter((m) => matches(m, filter))
    .map((m) => (
      <tr key={`${m.sigma_field}→${m.target_field}`}>
        <td className="mono">
          {m.sigma_field} {own.has(m.sigma_field) && <span className="badge">pattern maps it</span>}
        </td>
        <td className="mono">{m.target_field}</td>
      </tr>
    ));
}

function scopeText(logsource: FieldMappingPreset['scoped_field_mappings'][number]['logsource']): string {
  return (['product', 'category', 'service'] as const)
    .filter((k) => logsource[k])
    .map((k) => `${k}: ${logsource[k]}`)
    .join(', ');
}

/** Where the preset reads a field it does not map (`identity`, or `prefix:<text>`). */
function defaultText(defaultMapping: string) {
  if (defaultMapping.startsWith('prefix:'))
    return (
      <>
        under <span className="mono">{defaultMapping.slice('prefix:'.length)}&lt;name&gt;</span>
      </>
    );
  return defaultMapping === 'identity' ? 'under their own name' : <span className="mono">{defaultMapping}</span>;
}

export function PresetView({ preset, ownFields }: { preset: FieldMappingPreset; ownFields: string[] }) {
  const [filter, setFilter] = useState('');
  const own = new Set(ownFields);
  const shown = preset.field_mappings.filter((m) => matches(m, filter)).length;
  return (
    <section className="panel preset-view" aria-labelledby="preset-view-title">
      <h3 id="preset-view-title">What {preset.name} maps</h3>
      <p>{preset.description}</p>
      <p className="muted small">
        Fields it does not map are read {defaultText(preset.default_mapping)}, unless the pattern says they are an error. The pattern's own mappings win over the
        preset's.
      </p>
      {preset.field_mappings.length + preset.scoped_field_mappings.length > 0 && (
        <label>
          Filter the preset's mappings
          <input type="search" value={filter} onChange={(e) => setFilter(e.target.value)} />
        </label>
      )}
      {preset.field_mappings.length > 0 && (
        <>
          <p className="muted small" role="status">
            {shown} of {preset.field_mappings.length} mappings for rules of every log source
          </p>
          <div className="table-wrap scroll-box" role="region" aria-label={`Mappings of the preset ${preset.name}`} tabIndex={0}>
            <ListTable caption={`Mappings of the preset ${preset.name}`} columns={['Sigma field', 'Event field']}>
              <Rows mappings={preset.field_mappings} own={own} filter={filter} />
            </ListTable>
          </div>
        </>
      )}
      {preset.scoped_field_mappings.map((scope, i) => (
        <details key={i}>
          <summary>
            For rules of {scopeText(scope.logsource)} ({scope.field_mappings.length})
          </summary>
          <ListTable caption={`Mappings of ${preset.name} for ${scopeText(scope.logsource)}`} columns={['Sigma field', 'Event field']}>
            <Rows mappings={scope.field_mappings} own={own} filter={filter} />
          </ListTable>
        </details>
      ))}
    </section>
  );
}

// Which Sigma fields read an event field of the catalogue, as the engine's pipeline would resolve them:
// the pattern's own mappings (being edited), the preset's table (its log-source scoped rows named with
// their scope), and, for a Sigma field no table maps, the default mapping: the same name (identity) or
// the preset's prefix before it (`winlog.event_data.` + Image). With "Fields nobody maps: none" only
// the tables count.

/** A mapping row (of the pattern or of a preset). */
interface Mapping {
  sigma_field: string;
  target_field: string;
}

/** The parts of a preset (`GET /api/field_mapping_presets`) that say what it maps. */
export interface PresetTables {
  default_mapping: string;
  field_mappings: Mapping[];
  scoped_field_mappings: { logsource: { category?: string; product?: string; service?: string }; field_mappings: Mapping[] }[];
}

export type DefaultMapping = 'identity' | 'none';

const scopeText = (logsource: { category?: string; product?: string; service?: string }) =>
  Object.entries(logsource)
    .filter(([, v]) => v)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');

/** Event field → the labels of the Sigma fields that read it, for every field a table names, and a
 * function for the rest (the default mapping needs the event field's name). */
export function readBy(rows: Mapping[], preset: PresetTables | undefined, defaultMapping: DefaultMapping): (eventField: string) => string[] {
  const tables = new Map<string, string[]>();
  const add = (target: string, label: string) => {
    const list = tables.get(target) ?? [];
    if (!list.includes(label)) list.push(label);
    tables.set(target, list);
  };
  const own = new Set<string>();
  for (const row of rows) {
    const sigma = row.sigma_field.trim();
    const target = row.target_field.trim();
    if (!sigma || !target) continue;
    own.add(sigma);
    add(target, sigma);
  }
  // The pattern's own mapping of a Sigma field replaces the preset's.
  const mapped = new Set(own);
  for (const m of preset?.field_mappings ?? []) {
    mapped.add(m.sigma_field);
    if (!own.has(m.sigma_field)) add(m.target_field, `${m.sigma_field} (preset)`);
  }
  for (const scoped of preset?.scoped_field_mappings ?? []) {
    for (const m of scoped.field_mappings) if (!own.has(m.sigma_field)) add(m.target_field, `${m.sigma_field} (preset, ${scopeText(scoped.logsource)})`);
  }

  const fallback = defaultMapping === 'none' ? 'none' : (preset?.default_mapping ?? 'identity');
  const prefix = fallback.startsWith('prefix:') ? fallback.slice('prefix:'.length) : null;
  return (eventField) => {
    const labels = [...(tables.get(eventField) ?? [])];
    if (fallback === 'identity' && !mapped.has(eventField)) labels.push(`${eventField} (same name)`);
    if (prefix && eventField.startsWith(prefix) && eventField.length > prefix.length) {
      const sigma = eventField.slice(prefix.length);
      if (!mapped.has(sigma)) labels.push(`${sigma} (preset prefix)`);
    }
    return labels;
  };
}

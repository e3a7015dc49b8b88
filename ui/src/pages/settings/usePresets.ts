// The field-mapping presets of the engine (`GET /api/field_mapping_presets`), read once per page.
import { useEffect, useState } from 'react';
import { api } from '../../api';
import type { FieldMappingPreset } from './types';

/** The presets, or an empty list while loading or when they cannot be read. */
export function usePresets(): FieldMappingPreset[] {
  const [presets, setPresets] = useState<FieldMappingPreset[]>([]);
  useEffect(() => {
    let live = true;
    api
      .get<FieldMappingPreset[]>('/api/field_mapping_presets')
      .then((list) => live && setPresets(list))
      .catch(() => live && setPresets([]));
    return () => {
      live = false;
    };
  }, []);
  return presets;
}

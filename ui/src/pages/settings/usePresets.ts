// The field-mapping presets of the engine (`GET /api/field_mapping_presets`, a list page; the engine has
// a handful, so one page of 100 holds them all), read once per page.
import { useEffect, useState } from 'react';
import { api, type Page } from '../../api';
import type { FieldMappingPreset } from './types';

/** The presets, or an empty list while loading or when they cannot be read. */
export function usePresets(): FieldMappingPreset[] {
  const [presets, setPresets] = useState<FieldMappingPreset[]>([]);
  useEffect(() => {
    let live = true;
    api
      .get<Page<FieldMappingPreset>>('/api/field_mapping_presets?page_size=100')
      .then((page) => live && setPresets(page.items))
      .catch(() => live && setPresets([]));
    return () => {
      live = false;
    };
  }, []);
  return presets;
}

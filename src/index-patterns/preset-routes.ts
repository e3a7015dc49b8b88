// GET /api/field_mapping_presets: the engine's field-mapping presets an index pattern can start from
// (its `preset`), each with what it maps, as a list like every other: {items, total, page, page_size,
// pages}, sorted by name, searchable in name and description.
import { Type } from '@fastify/type-provider-typebox';
import { getPreset, listPresets } from '../sigma/index.js';
import type { App } from '../http/context.js';
import { listResponseSchema, pageOfList, SearchParameter, subListQuerySchema } from '../http/lists.js';
import { errorResponses } from '../http/schemas.js';
import { FieldMappingSchema } from './view.js';

const PresetListQuery = subListQuerySchema(['name'], 'name', 'asc', { search: SearchParameter });

const PresetSchema = Type.Object({
  name: Type.String(),
  description: Type.String(),
  default_mapping: Type.String(),
  field_mappings: Type.Array(FieldMappingSchema),
  /** Mappings that hold for rules of one log source only, and win over `field_mappings` there. */
  scoped_field_mappings: Type.Array(
    Type.Object({
      logsource: Type.Object({ category: Type.Optional(Type.String()), product: Type.Optional(Type.String()), service: Type.Optional(Type.String()) }),
      field_mappings: Type.Array(FieldMappingSchema),
    }),
  ),
});

function mappingRows(mappings: Record<string, string[]>): { sigma_field: string; target_field: string }[] {
  return Object.entries(mappings).flatMap(([sigma_field, targets]) => targets.map((target_field) => ({ sigma_field, target_field })));
}

function presetView(name: string, description: string) {
  const preset = getPreset(name)!;
  const d = preset.defaultMapping;
  return {
    name,
    description,
    default_mapping: typeof d === 'string' ? d : `prefix:${d.prefix}`,
    field_mappings: mappingRows(preset.fieldMappings),
    scoped_field_mappings: (preset.scopedFieldMappings ?? []).map((m) => ({ logsource: m.logsource, field_mappings: mappingRows(m.mappings) })),
  };
}

export function presetRoutes(app: App): void {
  app.get(
    '/api/field_mapping_presets',
    {
      config: { access: { auth: 'session' } },
      schema: {
        tags: ['index patterns'],
        operationId: 'listFieldMappingPresets',
        summary: 'Field-mapping presets an index pattern can start from (a list: paging, sort by name, search in name and description)',
        querystring: PresetListQuery,
        response: { 200: listResponseSchema(PresetSchema), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { search, sort_order } = request.query;
      const needle = search?.toLowerCase();
      const found = listPresets()
        .filter((p) => needle === undefined || p.name.toLowerCase().includes(needle) || p.description.toLowerCase().includes(needle))
        .sort((a, b) => (sort_order === 'desc' ? b.name.localeCompare(a.name) : a.name.localeCompare(b.name)));
      return pageOfList(found, request.query, (p) => presetView(p.name, p.description));
    },
  );
}

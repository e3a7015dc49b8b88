// The API records of the index-pattern settings (the parts the pages use).
import type { IndexPattern } from '../../types';

export interface FieldMapping {
  sigma_field: string;
  target_field: string;
}

/** An index pattern as `GET /api/index_patterns[/{id}]` answers it. */
export interface PatternSettings extends IndexPattern {
  default_mapping?: 'identity' | 'none';
  field_mappings?: FieldMapping[];
  preset?: string | null;
  ingest_token_prefix?: string;
  /** Where an alert's source IP, user and host are read: the first of these event fields with a value. */
  entity_fields?: Record<EntityKind, string[]>;
  /** Values of Sigma %placeholder% names: name → values. */
  placeholders?: Record<string, string[]>;
  /** The log sources the events come from; null: any. */
  logsource_scope?: Array<{ product?: string; category?: string; service?: string }> | null;
}

export type EntityKind = 'source_ip' | 'user' | 'host';

/** A field-mapping preset (`GET /api/field_mapping_presets`). */
export interface FieldMappingPreset {
  name: string;
  description: string;
  default_mapping: string;
  field_mappings: FieldMapping[];
  scoped_field_mappings: { logsource: { category?: string; product?: string; service?: string }; field_mappings: FieldMapping[] }[];
}

/** A field seen in a pattern's ingested events (`GET /api/index_patterns/{id}/fields`). */
export interface CatalogueField {
  field: string;
  count: number;
  last_seen: string;
}

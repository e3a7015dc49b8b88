// SQL for index patterns.
import type { Queryable } from '../db/database.js';

export interface FieldMapping {
  sigma_field: string;
  target_field: string;
}

export interface EntityFields {
  source_ip: string[];
  user: string[];
  host: string[];
}

/** The settings of a pattern an admin chooses (everything but identity, token and timestamps). */
export interface PatternSettings {
  description: string;
  timestamp_field: string;
  default_mapping: 'identity' | 'none';
  field_mappings: FieldMapping[];
  preset: string | null;
  is_default: boolean;
  retention_days: number;
  entity_fields: Partial<EntityFields>;
  /** Values of Sigma `%placeholder%` names (`expand`), name → values. */
  placeholders: Record<string, string[]>;
  /** The log sources the pattern's events come from; null = any. */
  logsource_scope: LogsourceScopeEntry[] | null;
}

export interface LogsourceScopeEntry {
  product?: string;
  category?: string;
  service?: string;
}

export interface IndexPatternRow extends PatternSettings {
  id: string;
  name: string;
  ingest_token_prefix: string;
  created_at: Date;
  updated_at: Date;
  [key: string]: unknown;
}

export const PATTERN_COLUMNS =
  'id, name, description, timestamp_field, default_mapping, field_mappings, preset, is_default, retention_days, entity_fields, placeholders, logsource_scope, ingest_token_prefix, created_at, updated_at';

export async function findPatternById(db: Queryable, id: string): Promise<IndexPatternRow | undefined> {
  const [row] = await db.query<IndexPatternRow>(`SELECT ${PATTERN_COLUMNS} FROM index_patterns WHERE id = $1`, [id]);
  return row;
}

export async function findPatternByName(db: Queryable, name: string): Promise<IndexPatternRow | undefined> {
  const [row] = await db.query<IndexPatternRow>(`SELECT ${PATTERN_COLUMNS} FROM index_patterns WHERE name = $1`, [name]);
  return row;
}

export async function findDefaultPattern(db: Queryable): Promise<IndexPatternRow | undefined> {
  const [row] = await db.query<IndexPatternRow>(`SELECT ${PATTERN_COLUMNS} FROM index_patterns WHERE is_default`);
  return row;
}

export async function findPatternByTokenHash(db: Queryable, hash: string): Promise<IndexPatternRow | undefined> {
  const [row] = await db.query<IndexPatternRow>(`SELECT ${PATTERN_COLUMNS} FROM index_patterns WHERE ingest_token_hash = $1`, [hash]);
  return row;
}

export interface NewPattern extends PatternSettings {
  id: string;
  name: string;
  token_hash: string;
  token_prefix: string;
}

export async function insertPattern(db: Queryable, p: NewPattern): Promise<IndexPatternRow | undefined> {
  if (p.is_default) await db.query('UPDATE index_patterns SET is_default = false WHERE is_default');
  const [row] = await db.query<IndexPatternRow>(
    `INSERT INTO index_patterns (id, name, description, timestamp_field, default_mapping, field_mappings, preset,
        is_default, retention_days, entity_fields, placeholders, logsource_scope, ingest_token_hash, ingest_token_prefix)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
     ON CONFLICT (name) DO NOTHING RETURNING ${PATTERN_COLUMNS}`,
    [p.id, p.name, p.description, p.timestamp_field, p.default_mapping, JSON.stringify(p.field_mappings), p.preset,
      p.is_default, p.retention_days, JSON.stringify(p.entity_fields), JSON.stringify(p.placeholders),
      p.logsource_scope === null ? null : JSON.stringify(p.logsource_scope), p.token_hash, p.token_prefix],
  );
  return row;
}

export type PatternChanges = Partial<PatternSettings>;

const JSON_COLUMNS = new Set(['field_mappings', 'entity_fields', 'placeholders', 'logsource_scope']);

export async function updatePattern(db: Queryable, id: string, changes: PatternChanges): Promise<IndexPatternRow | undefined> {
  if (changes.is_default) await db.query('UPDATE index_patterns SET is_default = false WHERE is_default AND id <> $1', [id]);
  const sets: string[] = [];
  const params: unknown[] = [id];
  for (const [column, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    params.push(JSON_COLUMNS.has(column) && value !== null ? JSON.stringify(value) : value);
    sets.push(`${column} = $${params.length}`);
  }
  const [row] = await db.query<IndexPatternRow>(
    `UPDATE index_patterns SET ${[...sets, 'updated_at = now()'].join(', ')} WHERE id = $1 RETURNING ${PATTERN_COLUMNS}`,
    params,
  );
  return row;
}

export async function setPatternToken(db: Queryable, id: string, hash: string, prefix: string): Promise<boolean> {
  const rows = await db.query(
    'UPDATE index_patterns SET ingest_token_hash = $2, ingest_token_prefix = $3, updated_at = now() WHERE id = $1 RETURNING id',
    [id, hash, prefix],
  );
  return rows.length > 0;
}

export async function deletePattern(db: Queryable, id: string): Promise<boolean> {
  return (await db.query('DELETE FROM index_patterns WHERE id = $1 RETURNING id', [id])).length > 0;
}

export async function countRulesOfPattern(db: Queryable, id: string): Promise<number> {
  const [{ n }] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM rules WHERE index_pattern_id = $1', [id]);
  return n;
}

// The field catalogue: which (dotted) fields the events of an index pattern carry, and how often.
import type { Queryable } from '../db/database.js';
import { Conditions, paginate, type ListQuery, type Page } from '../http/lists.js';

const MAX_FIELDS_PER_EVENT = 500;
const MAX_DEPTH = 8;

/** Dotted paths of an event's leaf values (arrays of objects contribute their members' fields). */
export function fieldPaths(event: Record<string, unknown>): string[] {
  const out = new Set<string>();
  const walk = (value: unknown, path: string, depth: number) => {
    if (out.size >= MAX_FIELDS_PER_EVENT) return;
    if (Array.isArray(value)) {
      for (const item of value) walk(item, path, depth);
      if (value.length === 0 && path) out.add(path.slice(0, 512));
    } else if (value !== null && typeof value === 'object' && depth < MAX_DEPTH) {
      for (const [key, child] of Object.entries(value)) walk(child, path ? `${path}.${key}` : key, depth + 1);
    } else if (path) out.add(path.slice(0, 512));
  };
  walk(event, '', 0);
  return [...out];
}

/** How many of `events` carry each field. */
export function countFields(events: Record<string, unknown>[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const event of events) for (const path of fieldPaths(event)) counts.set(path, (counts.get(path) ?? 0) + 1);
  return counts;
}

/** `counts` less the fields of `events` (those of events that turned out not to be new). */
export function withoutFieldsOf(counts: Map<string, number>, events: Record<string, unknown>[]): Map<string, number> {
  if (events.length === 0) return counts;
  const left = new Map(counts);
  for (const [field, n] of countFields(events)) {
    const rest = (left.get(field) ?? 0) - n;
    if (rest > 0) left.set(field, rest);
    else left.delete(field);
  }
  return left;
}

/**
 * Adds `counts` (from countFields) to the pattern's catalogue, in one statement of its own: the rows
 * are shared by every writer of the pattern, so they are locked only for that statement (never for a
 * whole ingest transaction), and in the order of the fields, so two writers never wait on each other
 * in a cycle.
 */
export async function recordFields(db: Queryable, patternId: string, counts: Map<string, number>): Promise<void> {
  if (counts.size === 0) return;
  const fields = [...counts.keys()].sort();
  await db.query(
    `INSERT INTO event_fields (index_pattern_id, field, count, last_seen)
     SELECT $1, f, c, now() FROM unnest($2::text[], $3::bigint[]) AS u(f, c)
     ON CONFLICT (index_pattern_id, field) DO UPDATE SET count = event_fields.count + EXCLUDED.count, last_seen = now()`,
    [patternId, fields, fields.map((f) => counts.get(f)!)],
  );
}

export interface CatalogueField {
  field: string;
  count: number;
  last_seen: string;
}

/** A page of a pattern's catalogue (most frequent first by default; `search` filters field names). */
export function listFields(db: Queryable, patternId: string, query: ListQuery): Promise<Page<CatalogueField>> {
  return paginate<{ field: string; count: number | string; last_seen: Date }, CatalogueField>(db, {
    select: 'field, count, last_seen',
    from: 'event_fields',
    // Only `search` filters the catalogue (other query parameters are not part of its schema).
    where: new Conditions().add('index_pattern_id = ?', patternId).addCommon({ ...query, created_after: undefined, created_before: undefined }, 'last_seen', ['field']),
    query,
    sortColumns: { count: 'count', field: 'field', last_seen: 'last_seen' },
    tieBreaker: 'field',
    map: (f) => ({ field: f.field, count: Number(f.count), last_seen: f.last_seen.toISOString() }),
  });
}

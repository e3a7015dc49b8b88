// List endpoints share one shape: page/page_size validation, sort_by/sort_order, exclusive
// created_after/created_before bounds, a case-insensitive search, and {items,total,page,page_size,pages}.
import { Type, type TProperties, type TSchema } from '@fastify/type-provider-typebox';
import type { Queryable, Row } from '../db/database.js';
import { StringEnum, Timestamp } from './schemas.js';

export interface ListQuery {
  page: number;
  page_size: number;
  sort_by?: string;
  sort_order?: 'asc' | 'desc';
  created_after?: string;
  created_before?: string;
  search?: string;
}

/** Paging and sorting parameters of every list endpoint (sub-lists of one resource take only these, with
 * the filters that make sense for them). */
function pageParameters(sortFields: readonly string[], defaultSort: string, defaultOrder: 'asc' | 'desc') {
  return {
    page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
    page_size: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    sort_by: StringEnum(sortFields, { default: defaultSort }),
    sort_order: StringEnum(['asc', 'desc'] as const, { default: defaultOrder }),
  };
}

/** The `search` parameter of a list (a case-insensitive substring, see Conditions.addCommon). */
export const SearchParameter = Type.Optional(Type.String({ maxLength: 200 }));

/** Query-string schema of a list endpoint: the common parameters plus the endpoint's own filters. */
export function listQuerySchema<P extends TProperties>(sortFields: readonly string[], defaultSort: string, filters: P) {
  return Type.Object({
    ...pageParameters(sortFields, defaultSort, 'desc'),
    created_after: Type.Optional(Timestamp),
    created_before: Type.Optional(Timestamp),
    search: SearchParameter,
    ...filters,
  });
}

/** Query-string schema of a list inside one resource (a rule's versions, a pattern's fields): paging,
 * sorting and the list's own filters. */
export function subListQuerySchema<P extends TProperties>(sortFields: readonly string[], defaultSort: string, defaultOrder: 'asc' | 'desc', filters: P) {
  return Type.Object({ ...pageParameters(sortFields, defaultSort, defaultOrder), ...filters });
}

export function listResponseSchema(item: TSchema) {
  return Type.Object({
    items: Type.Array(item),
    total: Type.Integer(),
    page: Type.Integer(),
    page_size: Type.Integer(),
    pages: Type.Integer(),
  });
}

/** Collects WHERE conditions with `?` placeholders, numbered into $n parameters. */
export class Conditions {
  private readonly parts: string[] = [];
  readonly params: unknown[] = [];

  add(fragment: string, ...values: unknown[]): this {
    let i = 0;
    this.parts.push(
      fragment.replace(/\?/g, () => {
        this.params.push(values[i++]);
        return `$${this.params.length}`;
      }),
    );
    return this;
  }

  /**
   * Adds the common created_after/created_before/search filters. The bounds are exclusive at the
   * millisecond precision timestamps are reported with (the database keeps microseconds), so passing
   * back an item's own created_at excludes that item. Both conditions stay usable by an index.
   */
  addCommon(query: ListQuery, createdColumn: string, searchColumns: string[]): this {
    if (query.created_after) {
      this.add(`${createdColumn} >= date_trunc('milliseconds', ?::timestamptz) + interval '1 millisecond'`, query.created_after);
    }
    if (query.created_before) {
      this.add(`${createdColumn} < date_trunc('milliseconds', ?::timestamptz + interval '999 microseconds')`, query.created_before);
    }
    if (query.search && searchColumns.length > 0) {
      const pattern = `%${query.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      this.add(`(${searchColumns.map((c) => `${c} ILIKE ?`).join(' OR ')})`, ...searchColumns.map(() => pattern));
    }
    return this;
  }

  get sql(): string {
    return this.parts.length > 0 ? `WHERE ${this.parts.join(' AND ')}` : '';
  }
}

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  page_size: number;
  pages: number;
}

/** One page of a list held in memory (already filtered and sorted), each item shaped by `view`. */
export function pageOfList<T, V>(all: T[], query: { page: number; page_size: number }, view: (item: T) => V): Page<V> {
  const start = (query.page - 1) * query.page_size;
  return {
    items: all.slice(start, start + query.page_size).map(view),
    total: all.length,
    page: query.page,
    page_size: query.page_size,
    pages: Math.ceil(all.length / query.page_size),
  };
}

/**
 * Runs a paginated query. `from` is the FROM clause (with joins); `sortColumns` maps each allowed
 * sort_by value to an SQL expression; `tieBreaker` keeps the order stable between pages.
 */
export async function paginate<R extends Row, T>(
  db: Queryable,
  spec: {
    select: string;
    from: string;
    where: Conditions;
    query: ListQuery;
    sortColumns: Record<string, string>;
    tieBreaker: string;
    map: (row: R) => T;
  },
): Promise<Page<T>> {
  const { query, where } = spec;
  const sortColumn = spec.sortColumns[query.sort_by ?? ''] ?? spec.tieBreaker;
  const direction = query.sort_order === 'asc' ? 'ASC' : 'DESC';
  const [{ total }] = await db.query<{ total: number }>(`SELECT count(*)::int AS total FROM ${spec.from} ${where.sql}`, where.params);
  const offset = (query.page - 1) * query.page_size;
  const rows = await db.query<R>(
    `SELECT ${spec.select} FROM ${spec.from} ${where.sql}
     ORDER BY ${sortColumn} ${direction} NULLS LAST, ${spec.tieBreaker} ${direction}
     LIMIT ${query.page_size} OFFSET ${offset}`,
    where.params,
  );
  return {
    items: rows.map(spec.map),
    total,
    page: query.page,
    page_size: query.page_size,
    pages: Math.ceil(total / query.page_size),
  };
}

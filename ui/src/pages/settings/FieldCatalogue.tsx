// The field catalogue of an index pattern: the fields its ingested events carry, how often and when
// last seen (`GET /api/index_patterns/{id}/fields`), filtered by name, sorted, in pages; which Sigma
// fields reach each one; and, for admins, one click to map a Sigma field onto it.
import { useEffect, useState } from 'react';
import { api, errorText, query, type Page } from '../../api';
import { formatTime } from '../../format';
import type { CatalogueField } from './types';
import { ListTable } from './ListTable';
import { Message } from './Message';
import { ListPager } from '../../components/ListPager';

const SORTS = {
  count: { label: 'Most events first', sort_by: 'count', sort_order: 'desc' },
  field: { label: 'Field name (A–Z)', sort_by: 'field', sort_order: 'asc' },
  last_seen: { label: 'Seen most recently first', sort_by: 'last_seen', sort_order: 'desc' },
} as const;
type Sort = keyof typeof SORTS;

interface FieldCatalogueProps {
  patternId: string;
  /** The Sigma fields that read an event field (the mappings being edited, the preset, the default mapping). */
  mappedFrom(field: string): string[];
  /** Admins: maps a new Sigma field onto this event field. */
  onMap?(field: string): void;
  /** Every field of the first page, for suggestions while typing an event field. */
  onFields?(fields: string[]): void;
}

export function FieldCatalogue({ patternId, mappedFrom, onMap, onFields }: FieldCatalogueProps) {
  const [filter, setFilter] = useState('');
  const [search, setSearch] = useState('');
  const [sort, setSort] = useState<Sort>('count');
  const [page, setPage] = useState(1);
  const [data, setData] = useState<Page<CatalogueField> | null>(null);
  const [error, setError] = useState<string | null>(null);

  // The filter applies a moment after the last key, not on every one.
  useEffect(() => {
    const timer = window.setTimeout(() => {
      setSearch(filter.trim());
      setPage(1);
    }, 250);
    return () => window.clearTimeout(timer);
  }, [filter]);

  useEffect(() => {
    let live = true;
    const { sort_by, sort_order } = SORTS[sort];
    api
      .get<Page<CatalogueField>>(`/api/index_patterns/${encodeURIComponent(patternId)}/fields` + query({ page, page_size: 100, sort_by, sort_order, search }))
      .then((answer) => {
        if (!live) return;
        setData(answer);
        setError(null);
        if (!search && page === 1) onFields?.(answer.items.map((f) => f.field));
      })
      .catch((e: unknown) => live && setError(errorText(e)));
    return () => {
      live = false;
    };
  }, [patternId, page, sort, search, onFields]);

  return (
    <section aria-labelledby="catalogue-title">
      <h3 id="catalogue-title">Field catalogue</h3>
      <p className="muted small">The fields seen in this pattern's ingested events.</p>
      <Message text={error} error />
      <div className="filters">
        <label className="grow">
          Filter fields
          <input type="search" value={filter} maxLength={200} placeholder="e.g. process" onChange={(e) => setFilter(e.target.value)} />
        </label>
        <label>
          Sort
          <select value={sort} onChange={(e) => {
              setSort(e.target.value as Sort);
              setPage(1);
            }}>
            {Object.entries(SORTS).map(([id, s]) => (
              <option key={id} value={id}>
                {s.label}
              </option>
            ))}
          </select>
        </label>
      </div>
      {data && (
        <p className="muted small" role="status">
          {data.total === 0 ? (search ? 'No field matches the filter.' : 'No event ingested yet: fields appear here as events arrive.') : `${data.total} field(s)`}
        </p>
      )}
      {data && data.items.length > 0 && (
        <ListTable caption="Fields seen in ingested events" columns={['Event field', 'Events', 'Last seen', 'Read by', !!onMap && 'Actions']}>
          {data.items.map((f) => (
            <tr key={f.field}>
              <td className="mono">{f.field}</td>
              <td className="num">{f.count.toLocaleString()}</td>
              <td className="nowrap">{formatTime(f.last_seen)}</td>
              <td className="mono small">{mappedFrom(f.field).join(', ')}</td>
              {onMap && (
                <td>
                  <button type="button" className="tiny secondary" aria-label={`Map a Sigma field to ${f.field}`} onClick={() => onMap(f.field)}>
                    Map
                  </button>
                </td>
              )}
            </tr>
          ))}
        </ListTable>
      )}
      {data && data.pages > 1 && (
        <ListPager page={page} pages={data.pages} label="Field catalogue pages" onPage={setPage} />
      )}
    </section>
  );
}

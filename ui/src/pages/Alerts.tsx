// The triage queue: filters kept in the URL (./alerts/FilterBar), a chart of the filtered alerts over
// event time, compact one-line rows with a choice of columns and filters from a cell's value, sorting,
// server-side pages (first, last, go to page), multi-select bulk changes (of the selected rows or of
// every alert the filters match), grouping by rule, host or user, live arrivals announced without moving
// the list, keyboard navigation (j/k/Enter/x, ? for help), and the analyst's place (cursor row and
// selection) kept when an alert is opened and left.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { api, errorText, query, type Page } from '../api';
import { BulkActions } from './alerts/BulkActions';
import { apiFilter, filtersOf } from './alerts/filters';
import { AlertGroups } from './alerts/Groups';
import { recordListPosition } from './alert-detail/list-position';
import { AlertHistogram } from './alerts/Histogram';
import { AlertRow, type Pivot } from './alerts/AlertRow';
import { ColumnChooser } from './alerts/ColumnChooser';
import { COLUMNS, storeColumns, storedColumns, type ColumnKey } from './alerts/columns';
import { FilterBar } from './alerts/FilterBar';
import { lastSearch, placeFor, rememberPlace, type QueuePlace } from './alerts/place';
import { ShortcutsHelp } from './alerts/ShortcutsHelp';
import { useQueueKeys } from './alerts/useQueueKeys';
import './alerts/queue.css';
import { useSelection } from '../components/useSelection';
import { PageNav } from '../components/PageNav';
import { useAlertStream } from '../live';
import { navigate, updateQuery, useLocation } from '../router';
import { canTriage, useSession } from '../session';
import type { Alert } from '../types';

export function AlertsPage() {
  const { user } = useSession();
  const { params } = useLocation();
  const filters = filtersOf(params);
  const key = params.toString();
  const [data, setData] = useState<Page<Alert> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reloads, setReloads] = useState(0);
  const [fresh, setFresh] = useState(0);
  const [cursor, setCursor] = useState(0);
  const [bulkMessage, setBulkMessage] = useState<string | null>(null);
  const [columns, setColumns] = useState<ColumnKey[]>(storedColumns);
  const [helpOpen, setHelpOpen] = useState(false);
  const rowRefs = useRef<(HTMLTableRowElement | null)[]>([]);
  const triage = canTriage(user);
  // The place to put back once the list is read: this list's, or (for a plain /alerts) the list last left.
  const pending = useRef<QueuePlace | null | undefined>(undefined);
  if (pending.current === undefined) {
    const back = key === '' ? lastSearch() : null;
    pending.current = back ? placeFor(back) : placeFor(key);
  }
  const [focusCursor, setFocusCursor] = useState(0);

  useEffect(() => {
    if (key === '' && pending.current?.search) navigate(`/alerts?${pending.current.search}`, { replace: true });
    // Only when the page opens: a filter cleared later stays cleared.
  }, []);

  useEffect(() => {
    let cancelled = false;
    if (filters.group || (key === '' && pending.current?.search)) return;
    const path =
      '/api/alerts' +
      query({
        ...apiFilter(filters),
        sort_by: filters.sort_by,
        sort_order: filters.sort_order,
        page: filters.page,
        page_size: filters.page_size,
      });
    api
      .get<Page<Alert>>(path)
      .then((page) => {
        if (cancelled) return;
        setData(page);
        setError(null);
        setFresh(0);
        const ids = page.items.map((a) => a.id);
        keepOnly(ids);
        recordListPosition(path, page);
        const place = pending.current;
        if (place && place.search === key) {
          pending.current = null;
          restore(place.matching ? place.selected : place.selected.filter((id) => ids.includes(id)), place.matching);
          const at = place.cursorId ? ids.indexOf(place.cursorId) : -1;
          if (at >= 0) {
            setCursor(at);
            setFocusCursor((n) => n + 1);
          }
        }
      })
      .catch((e: unknown) => !cancelled && setError(errorText(e)));
    return () => {
      cancelled = true;
    };
  }, [key, reloads]);

  useAlertStream({
    // Only arrivals the current filters would show are announced (a text search is checked on reload).
    created: (alert) => {
      if (filters.status && alert.status !== filters.status) return;
      if (filters.severity && alert.severity !== filters.severity) return;
      if (filters.rule_id && alert.rule_id !== filters.rule_id) return;
      if (filters.assignee && filters.assignee !== 'none') return;
      for (const name of ['host', 'user', 'source_ip', 'index_pattern'] as const) if (filters[name] && alert[name] !== filters[name]) return;
      if (filters.event_before && alert.event_time && alert.event_time >= filters.event_before) return;
      setFresh((n) => n + 1);
    },
    updated: (alert) =>
      setData((page) => (page ? { ...page, items: page.items.map((a) => (a.id === alert.id ? merged(a, alert) : a)) } : page)),
    reload: () => setFresh((n) => Math.max(n, 1)),
  });

  const items = useMemo(() => data?.items ?? [], [data]);
  const pageIds = useMemo(() => items.map((a) => a.id), [items]);
  const selection = useSelection(pageIds);
  const { toggle, keepOnly, setMatching, restore } = selection;
  // "All matching" stands for the filters it was chosen under: other filters, another page, start over.
  const shownKey = useRef(key);
  useEffect(() => {
    if (shownKey.current !== key) setMatching(false);
    shownKey.current = key;
  }, [key, setMatching]);

  // The place is kept as it changes, once the place to return to has been put back.
  const cursorId = items[cursor]?.id ?? null;
  useEffect(() => {
    if (pending.current || !data) return;
    rememberPlace({ search: key, cursorId, selected: selection.ids, matching: selection.matching });
  }, [key, data, cursorId, selection.ids, selection.matching]);

  useEffect(() => {
    if (focusCursor > 0) rowRefs.current[cursor]?.focus();
  }, [focusCursor]);

  const open = useCallback((alert: Alert) => navigate(`/alerts/${alert.id}`), []);

  useQueueKeys({
    rows: items.length,
    paused: helpOpen,
    move: (by) =>
      setCursor((c) => {
        const next = Math.min(items.length - 1, Math.max(0, c + by));
        rowRefs.current[next]?.focus();
        return next;
      }),
    open: () => {
      const alert = items[cursor];
      if (alert) open(alert);
    },
    toggle: triage
      ? () => {
          const alert = items[cursor];
          if (alert) toggle(alert.id);
        }
      : undefined,
    help: () => setHelpOpen(true),
  });

  const sortBy = (field: string) => {
    const order = filters.sort_by === field && filters.sort_order === 'desc' ? 'asc' : 'desc';
    updateQuery({ sort_by: field, sort_order: order, page: undefined });
  };

  const pivot = (p: Pivot) => updateQuery({ ...p.changes, page: undefined }, { push: true });

  const chooseColumns = (keys: ColumnKey[]) => {
    setColumns(keys);
    storeColumns(keys);
  };

  const done = (message: string) => {
    setBulkMessage(message);
    selection.clear();
    setReloads((n) => n + 1);
  };

  const showNew = () => {
    if (filters.page !== 1) updateQuery({ page: undefined });
    setReloads((n) => n + 1);
  };

  const shownColumns = COLUMNS.filter((c) => columns.includes(c.key));

  return (
    <section aria-labelledby="alerts-title" className="queue">
      <div className="page-head">
        <h1 id="alerts-title">Alerts</h1>
        <span className="muted" aria-live="polite">
          {data && !filters.group ? `${data.total_exact === false ? 'over ' : ''}${data.total.toLocaleString()} alert${data.total === 1 ? '' : 's'}` : ''}
        </span>
        <div className="page-actions">
          {!filters.group && <ColumnChooser shown={columns} onChange={chooseColumns} />}
          <button type="button" className="secondary" aria-haspopup="dialog" onClick={() => setHelpOpen(true)}>
            Shortcuts <kbd>?</kbd>
          </button>
        </div>
      </div>

      <FilterBar filters={filters} />
      <ShortcutsHelp open={helpOpen} onClose={() => setHelpOpen(false)} />

      {!filters.group && <AlertHistogram filters={filters} reloads={reloads} />}

      {fresh > 0 && (
        <div className="notice" role="status">
          <button type="button" onClick={showNew}>
            {fresh} new alert{fresh === 1 ? '' : 's'} — show
          </button>
        </div>
      )}

      {triage && !filters.group && selection.size > 0 && (
        <BulkActions
          key={selection.matching ? 'matching' : 'picked'}
          target={selection.matching ? { filter: apiFilter(filters) } : { ids: selection.ids }}
          count={selection.matching ? (data?.total ?? 0) : selection.size}
          statuses={selection.matching ? (filters.status ? [filters.status as Alert['status']] : undefined) : [...new Set(items.filter((a) => selection.has(a.id)).map((a) => a.status))]}
          label={selection.matching ? 'Change every alert matching the filters' : 'Change the selected alerts'}
          heading={
            selection.matching ? (
              <>
                All {data?.total.toLocaleString()} matching selected{' '}
                <button type="button" className="link-button" onClick={() => setMatching(false)}>
                  Select only this page
                </button>
              </>
            ) : (
              <>
                {selection.size} selected
                {selection.allOnPage && data && data.total > items.length && (
                  <>
                    {' '}
                    <button type="button" className="link-button" onClick={() => setMatching(true)}>
                      Select all {data.total_exact === false ? 'over ' : ''}
                      {data.total.toLocaleString()} matching
                    </button>
                  </>
                )}
              </>
            )
          }
          onDone={done}
        />
      )}
      {bulkMessage && (
        <p className="notice" role="status">
          {bulkMessage}
        </p>
      )}

      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}

      {filters.group && <AlertGroups key={filters.group} by={filters.group} filter={apiFilter(filters)} reloads={reloads} onDone={done} />}

      {!filters.group && (
        <div className="table-wrap">
          <table className="alerts-table compact">
            <caption className="visually-hidden">Alerts; j and k move between rows, Enter opens, x selects, ? lists the shortcuts</caption>
            <thead>
              <tr>
                {triage && (
                  <th scope="col" className="check">
                    <input
                      type="checkbox"
                      aria-label="Select all alerts on this page"
                      checked={selection.allOnPage}
                      onChange={(e) => selection.setPage(e.target.checked)}
                    />
                  </th>
                )}
                {shownColumns.map((c) => {
                  const sort = 'sort' in c ? c.sort : undefined;
                  return (
                    <th key={c.key} scope="col" className={`col-${c.key}`} aria-sort={sort && filters.sort_by === sort ? (filters.sort_order === 'asc' ? 'ascending' : 'descending') : undefined}>
                      {sort ? (
                        <button type="button" className="sort" onClick={() => sortBy(sort)}>
                          {c.label}
                          {filters.sort_by === sort ? (filters.sort_order === 'asc' ? ' ▲' : ' ▼') : ''}
                        </button>
                      ) : (
                        c.label
                      )}
                    </th>
                  );
                })}
              </tr>
            </thead>
            <tbody>
              {items.map((alert, index) => (
                <AlertRow
                  key={alert.id}
                  alert={alert}
                  columns={shownColumns.map((c) => c.key)}
                  triage={triage}
                  isCursor={index === cursor}
                  selected={selection.has(alert.id)}
                  rowRef={(el) => {
                    rowRefs.current[index] = el;
                  }}
                  onFocus={() => setCursor(index)}
                  onOpen={() => open(alert)}
                  onToggle={() => toggle(alert.id)}
                  onPivot={pivot}
                />
              ))}
            </tbody>
          </table>
          {data && items.length === 0 && <p className="empty">No alerts match these filters.</p>}
        </div>
      )}

      {!filters.group && data && data.pages > 1 && <PageNav page={data.page} pages={data.pages} label="Pages" />}
    </section>
  );
}

/** A row after a live change: a new owner without a name shows as "Assigned" until the list is read again. */
function merged(row: Alert, change: Alert): Alert {
  const next = { ...row, ...change };
  if (change.assignee !== undefined && change.assignee !== row.assignee && !change.assignee_name) delete next.assignee_name;
  return next;
}

// The triage queue: filters kept in the URL, sorting, server-side pages, multi-select bulk changes (of
// the selected rows or of every alert the filters match), grouping by rule, host or user, live
// arrivals announced without moving the list, and j/k/enter/x keyboard navigation.
import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { api, errorText, query, type Page } from '../api';
import { BulkActions } from './alerts/BulkActions';
import { apiFilter, filtersOf, GROUPINGS, RANGES } from './alerts/filters';
import { AlertGroups } from './alerts/Groups';
import { recordListPosition } from './alert-detail/list-position';
import { formatTime, relativeTime, SeverityBadge, StatusBadge, STATUS_LABELS } from '../format';
import { useSelection } from '../components/useSelection';
import { RulePicker } from '../components/RulePicker';
import { ListPager } from '../components/ListPager';
import { useAlertStream } from '../live';
import { Link, navigate, updateQuery, useLocation } from '../router';
import { canTriage, useSession } from '../session';
import { ALERT_STATUSES, SEVERITIES, type Alert } from '../types';

const COLUMNS: { key: string; label: string; sort?: string }[] = [
  { key: 'severity', label: 'Severity', sort: 'severity' },
  { key: 'created_at', label: 'Time', sort: 'created_at' },
  { key: 'rule_title', label: 'Rule', sort: 'rule_title' },
  { key: 'status', label: 'Status', sort: 'status' },
  { key: 'assignee', label: 'Assignee' },
  { key: 'host', label: 'Host', sort: 'host' },
  { key: 'user', label: 'User', sort: 'user' },
  { key: 'source_ip', label: 'Source IP', sort: 'source_ip' },
  { key: 'risk', label: 'Risk', sort: 'risk_score' },
];

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
  const [search, setSearch] = useState(filters.q);
  const [bulkMessage, setBulkMessage] = useState<string | null>(null);
  const rowRefs = useRef<(HTMLTableRowElement | null)[]>([]);
  const triage = canTriage(user);

  useEffect(() => setSearch(filters.q), [filters.q]);

  useEffect(() => {
    let cancelled = false;
    if (filters.group) return;
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
        keepOnly(page.items.map((a) => a.id));
        recordListPosition(path, page);
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
      setFresh((n) => n + 1);
    },
    updated: (alert) =>
      setData((page) => (page ? { ...page, items: page.items.map((a) => (a.id === alert.id ? merged(a, alert) : a)) } : page)),
    reload: () => setFresh((n) => Math.max(n, 1)),
  });

  const items = useMemo(() => data?.items ?? [], [data]);
  const pageIds = useMemo(() => items.map((a) => a.id), [items]);
  const selection = useSelection(pageIds);
  const { toggle, keepOnly, setMatching } = selection;
  // "All matching" stands for the filters it was chosen under: other filters, another page, start over.
  useEffect(() => setMatching(false), [key, setMatching]);

  const open = useCallback((alert: Alert) => navigate(`/alerts/${alert.id}`), []);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement;
      if (target.closest('input, textarea, select, [contenteditable]') || event.metaKey || event.ctrlKey || event.altKey) return;
      if (items.length === 0) return;
      if (event.key === 'j' || event.key === 'k') {
        event.preventDefault();
        setCursor((c) => {
          const next = Math.min(items.length - 1, Math.max(0, c + (event.key === 'j' ? 1 : -1)));
          rowRefs.current[next]?.focus();
          return next;
        });
      } else if (event.key === 'Enter' && target.tagName === 'TR') {
        event.preventDefault();
        const alert = items[cursor];
        if (alert) open(alert);
      } else if (event.key === 'x' && triage) {
        const alert = items[cursor];
        if (alert) toggle(alert.id);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  const sortBy = (field: string) => {
    const order = filters.sort_by === field && filters.sort_order === 'desc' ? 'asc' : 'desc';
    updateQuery({ sort_by: field, sort_order: order, page: undefined });
  };

  const submitSearch = (event: FormEvent) => {
    event.preventDefault();
    updateQuery({ q: search.trim(), page: undefined });
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

  return (
    <section aria-labelledby="alerts-title">
      <div className="page-head">
        <h1 id="alerts-title">Alerts</h1>
        <span className="muted" aria-live="polite">
          {data && !filters.group ? `${data.total_exact === false ? 'over ' : ''}${data.total.toLocaleString()} alert${data.total === 1 ? '' : 's'}` : ''}
        </span>
      </div>

      <form className="filters" onSubmit={submitSearch} role="search" aria-label="Alert filters">
        <label>
          Status
          <select value={filters.status} onChange={(e) => updateQuery({ status: e.target.value, page: undefined })}>
            <option value="">Any</option>
            {ALERT_STATUSES.map((s) => (
              <option key={s} value={s}>
                {STATUS_LABELS[s]}
              </option>
            ))}
          </select>
        </label>
        <label>
          Severity
          <select value={filters.severity} onChange={(e) => updateQuery({ severity: e.target.value, page: undefined })}>
            <option value="">Any</option>
            {SEVERITIES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <RulePicker value={filters.rule_id} onChange={(id) => updateQuery({ rule_id: id, page: undefined })} />
        <label>
          Assignee
          <select value={filters.assignee} onChange={(e) => updateQuery({ assignee: e.target.value, page: undefined })}>
            <option value="">Anyone</option>
            <option value="me">Me</option>
            <option value="none">Unassigned</option>
          </select>
        </label>
        <label>
          Time
          <select value={filters.range} onChange={(e) => updateQuery({ range: e.target.value, page: undefined })}>
            <option value="">All time</option>
            {Object.entries(RANGES).map(([value, r]) => (
              <option key={value} value={value}>
                {r.label}
              </option>
            ))}
          </select>
        </label>
        <label className="grow">
          Search
          <input type="search" value={search} placeholder="host, user, IP, rule or event text (3+ characters)" onChange={(e) => setSearch(e.target.value)} minLength={3} />
        </label>
        <button type="submit">Search</button>
        <label>
          Group by
          <select value={filters.group} onChange={(e) => updateQuery({ group: e.target.value, page: undefined })}>
            <option value="">No grouping</option>
            {Object.entries(GROUPINGS).map(([value, name]) => (
              <option key={value} value={value}>
                {name}
              </option>
            ))}
          </select>
        </label>
      </form>

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
          <table className="alerts-table">
            <caption className="visually-hidden">Alerts; j and k move between rows, Enter opens, x selects</caption>
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
                {COLUMNS.map((c) => (
                  <th key={c.key} scope="col" aria-sort={filters.sort_by === c.sort ? (filters.sort_order === 'asc' ? 'ascending' : 'descending') : undefined}>
                    {c.sort ? (
                      <button type="button" className="sort" onClick={() => sortBy(c.sort!)}>
                        {c.label}
                        {filters.sort_by === c.sort ? (filters.sort_order === 'asc' ? ' ▲' : ' ▼') : ''}
                      </button>
                    ) : (
                      c.label
                    )}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {items.map((alert, index) => (
                <tr
                  key={alert.id}
                  ref={(el) => {
                    rowRefs.current[index] = el;
                  }}
                  tabIndex={index === cursor ? 0 : -1}
                  className={`${index === cursor ? 'cursor' : ''} ${selection.has(alert.id) ? 'selected' : ''}`}
                  onFocus={() => setCursor(index)}
                  onDoubleClick={() => open(alert)}
                  data-alert-id={alert.id}
                >
                  {triage && (
                    <td className="check">
                      <input type="checkbox" aria-label={`Select alert ${alert.rule_title} at ${formatTime(alert.created_at)}`} checked={selection.has(alert.id)} onChange={() => toggle(alert.id)} />
                    </td>
                  )}
                  <td>
                    <SeverityBadge severity={alert.severity} />
                  </td>
                  <td title={formatTime(alert.created_at)}>
                    <time dateTime={alert.created_at}>{relativeTime(alert.created_at)}</time>
                  </td>
                  <td>
                    <Link href={`/alerts/${alert.id}`}>{alert.rule_title}</Link>
                    {(alert.occurrences ?? 1) > 1 && alert.last_seen_at && (
                      <span className="muted" title={`last seen ${formatTime(alert.last_seen_at)}`}>
                        {' '}
                        · {alert.occurrences} matches, last <time dateTime={alert.last_seen_at}>{relativeTime(alert.last_seen_at)}</time>
                      </span>
                    )}
                  </td>
                  <td>
                    <StatusBadge status={alert.status} />
                  </td>
                  <td>{alert.assignee_name ?? <span className="muted">{alert.assignee ? 'Assigned' : 'Unassigned'}</span>}</td>
                  <td>{alert.host ?? ''}</td>
                  <td>{alert.user ?? ''}</td>
                  <td className="mono">{alert.source_ip ?? ''}</td>
                  <td>{alert.enrichment ? `${alert.enrichment.risk_score} (${alert.enrichment.risk_level})` : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {data && items.length === 0 && <p className="empty">No alerts match these filters.</p>}
        </div>
      )}

      {!filters.group && data && data.pages > 1 && <ListPager page={data.page} pages={data.pages} label="Pages" onPage={(to) => updateQuery({ page: String(to) }, { push: true })} />}
    </section>
  );
}

/** A row after a live change: a new owner without a name shows as "Assigned" until the list is read again. */
function merged(row: Alert, change: Alert): Alert {
  const next = { ...row, ...change };
  if (change.assignee !== undefined && change.assignee !== row.assignee && !change.assignee_name) delete next.assignee_name;
  return next;
}

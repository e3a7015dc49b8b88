// The triage queue: filters kept in the URL, sorting, server-side pages, multi-select bulk status
// change, live arrivals announced without moving the list, and j/k/enter/x keyboard navigation.
import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { api, errorText, query, type Page } from '../api';
import { formatTime, relativeTime, SeverityBadge, StatusBadge, STATUS_LABELS } from '../format';
import { useSelection } from '../components/useSelection';
import { RulePicker } from '../components/RulePicker';
import { ListPager } from '../components/ListPager';
import { useAlertStream } from '../live';
import { Link, navigate, updateQuery, useLocation } from '../router';
import { canTriage, useSession } from '../session';
import { ALERT_STATUSES, SEVERITIES, type Alert, type AlertStatus } from '../types';

const RANGES: Record<string, { label: string; ms: number }> = {
  '1h': { label: 'Last hour', ms: 3600_000 },
  '24h': { label: 'Last 24 hours', ms: 86_400_000 },
  '7d': { label: 'Last 7 days', ms: 7 * 86_400_000 },
  '30d': { label: 'Last 30 days', ms: 30 * 86_400_000 },
};

const COLUMNS: { key: string; label: string; sort?: string }[] = [
  { key: 'severity', label: 'Severity', sort: 'severity' },
  { key: 'created_at', label: 'Time', sort: 'created_at' },
  { key: 'rule_title', label: 'Rule', sort: 'rule_title' },
  { key: 'status', label: 'Status', sort: 'status' },
  { key: 'host', label: 'Host', sort: 'host' },
  { key: 'user', label: 'User', sort: 'user' },
  { key: 'source_ip', label: 'Source IP', sort: 'source_ip' },
  { key: 'risk', label: 'Risk', sort: 'risk_score' },
];

interface Filters {
  status: string;
  severity: string;
  rule_id: string;
  range: string;
  q: string;
  sort_by: string;
  sort_order: string;
  page: number;
  page_size: number;
}

function filtersOf(params: URLSearchParams): Filters {
  return {
    status: params.get('status') ?? '',
    severity: params.get('severity') ?? '',
    rule_id: params.get('rule_id') ?? '',
    range: params.get('range') ?? '',
    q: params.get('q') ?? '',
    sort_by: params.get('sort_by') ?? 'created_at',
    sort_order: params.get('sort_order') ?? 'desc',
    page: Math.max(1, Number(params.get('page') ?? 1) || 1),
    page_size: Number(params.get('page_size') ?? 50) || 50,
  };
}

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
    const range = RANGES[filters.range];
    const path =
      '/api/alerts' +
      query({
        status: filters.status,
        severity: filters.severity,
        rule_id: filters.rule_id,
        search: filters.q.length >= 3 ? filters.q : undefined,
        created_after: range ? new Date(Date.now() - range.ms).toISOString() : undefined,
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
      setFresh((n) => n + 1);
    },
    updated: (alert) =>
      setData((page) => (page ? { ...page, items: page.items.map((a) => (a.id === alert.id ? { ...a, ...alert } : a)) } : page)),
    reload: () => setFresh((n) => Math.max(n, 1)),
  });

  const items = useMemo(() => data?.items ?? [], [data]);
  const pageIds = useMemo(() => items.map((a) => a.id), [items]);
  const selection = useSelection(pageIds);
  const { toggle, keepOnly } = selection;

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

  const showNew = () => {
    if (filters.page !== 1) updateQuery({ page: undefined });
    setReloads((n) => n + 1);
  };

  return (
    <section aria-labelledby="alerts-title">
      <div className="page-head">
        <h1 id="alerts-title">Alerts</h1>
        <span className="muted" aria-live="polite">
          {data ? `${data.total_exact === false ? 'over ' : ''}${data.total.toLocaleString()} alert${data.total === 1 ? '' : 's'}` : ''}
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
      </form>

      {fresh > 0 && (
        <div className="notice" role="status">
          <button type="button" onClick={showNew}>
            {fresh} new alert{fresh === 1 ? '' : 's'} — show
          </button>
        </div>
      )}

      {triage && selection.size > 0 && (
        <BulkBar
          ids={selection.ids}
          onDone={(message) => {
            setBulkMessage(message);
            selection.clear();
            setReloads((n) => n + 1);
          }}
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

      {data && data.pages > 1 && <ListPager page={data.page} pages={data.pages} label="Pages" onPage={(to) => updateQuery({ page: String(to) }, { push: true })} />}
    </section>
  );
}


function BulkBar({ ids, onDone }: { ids: string[]; onDone(message: string): void }) {
  const [status, setStatus] = useState<AlertStatus>('acknowledged');
  const [comment, setComment] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const apply = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    try {
      const answer = await api.post<{ updated: number; failed: { id: string; error: string }[] }>('/api/alerts/bulk/status', {
        ids,
        status,
        ...(comment.trim() ? { comment: comment.trim() } : {}),
      });
      setComment('');
      onDone(`${answer.updated} updated${answer.failed.length ? `, ${answer.failed.length} not changed: ${[...new Set(answer.failed.map((f) => f.error))].join('; ')}` : ''}`);
    } catch (e) {
      setMessage(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="bulk-bar" onSubmit={apply} aria-label="Change the status of the selected alerts">
      <strong>{ids.length} selected</strong>
      <label>
        New status
        <select value={status} onChange={(e) => setStatus(e.target.value as AlertStatus)}>
          {ALERT_STATUSES.map((s) => (
            <option key={s} value={s}>
              {STATUS_LABELS[s]}
            </option>
          ))}
        </select>
      </label>
      <label className="grow">
        Comment (optional)
        <input value={comment} maxLength={10000} onChange={(e) => setComment(e.target.value)} />
      </label>
      <button type="submit" disabled={busy}>
        Apply to {ids.length}
      </button>
      {message && <span role="status">{message}</span>}
    </form>
  );
}

// The queue grouped by rule, host or user: one row per group (label, count, highest severity, first
// and last seen), largest first; expanding a group lists its newest alerts and offers the bulk actions
// for the whole group (the current filters with the group's key added). Mounted anew for each grouping
// (its expanded groups belong to one).
import { Fragment, useEffect, useState } from 'react';
import { api, errorText, query, type Page } from '../../api';
import { formatTime, relativeTime, SeverityBadge, StatusBadge } from '../../format';
import { Link } from '../../router';
import { canTriage, useSession } from '../../session';
import type { Alert, AlertStatus, Severity } from '../../types';
import { BulkActions } from './BulkActions';
import { GROUPINGS, type ApiFilter } from './filters';

interface Group {
  key: string | null;
  label: string;
  count: number;
  max_severity: Severity;
  first_seen: string;
  last_seen: string;
}

/** Alerts listed under an expanded group. */
const SHOWN = 25;

interface Props {
  by: string;
  filter: ApiFilter;
  /** Changes when the groups should be read again (after a bulk action). */
  reloads: number;
  onDone(message: string): void;
}

export function AlertGroups({ by, filter, reloads, onDone }: Props) {
  const [groups, setGroups] = useState<{ items: Group[]; total: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState<ReadonlySet<string>>(() => new Set());
  const filterKey = JSON.stringify(filter);

  useEffect(() => {
    let cancelled = false;
    api
      .get<{ items: Group[]; total: number }>('/api/alerts/groups' + query({ ...filter, by, limit: 100 }))
      .then((answer) => {
        if (cancelled) return;
        setGroups(answer);
        setError(null);
      })
      .catch((e: unknown) => !cancelled && setError(errorText(e)));
    return () => {
      cancelled = true;
    };
  }, [by, filterKey, reloads]);

  const toggle = (key: string) =>
    setOpen((current) => {
      const next = new Set(current);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });

  const name = GROUPINGS[by] ?? by;
  if (error)
    return (
      <p className="error" role="alert">
        {error}
      </p>
    );
  if (!groups) return <p role="status">Loading…</p>;
  return (
    <div className="table-wrap">
      <p className="muted">
        {groups.total.toLocaleString()} group{groups.total === 1 ? '' : 's'} by {name.toLowerCase()}
        {groups.total > groups.items.length ? `, the ${groups.items.length} largest shown` : ''}
      </p>
      <table className="alerts-table groups-table">
        <caption className="visually-hidden">Alerts grouped by {name.toLowerCase()}</caption>
        <thead>
          <tr>
            <th scope="col">{name}</th>
            <th scope="col">Alerts</th>
            <th scope="col">Highest severity</th>
            <th scope="col">First seen</th>
            <th scope="col">Last seen</th>
          </tr>
        </thead>
        <tbody>
          {groups.items.map((g) => {
            const expanded = g.key !== null && open.has(g.key);
            return (
              <Fragment key={g.key ?? '\0none'}>
                <tr data-group-key={g.key ?? ''}>
                  <th scope="row">
                    {g.key === null ? (
                      <span title={`Alerts without a ${name.toLowerCase()} cannot be filtered as a group`}>{g.label}</span>
                    ) : (
                      <button type="button" className="link-button" aria-expanded={expanded} onClick={() => toggle(g.key!)}>
                        {expanded ? '▾' : '▸'} {g.label}
                      </button>
                    )}
                  </th>
                  <td>{g.count.toLocaleString()}</td>
                  <td>
                    <SeverityBadge severity={g.max_severity} />
                  </td>
                  <td title={formatTime(g.first_seen)}>
                    <time dateTime={g.first_seen}>{relativeTime(g.first_seen)}</time>
                  </td>
                  <td title={formatTime(g.last_seen)}>
                    <time dateTime={g.last_seen}>{relativeTime(g.last_seen)}</time>
                  </td>
                </tr>
                {expanded && (
                  <tr className="group-body">
                    <td colSpan={5}>
                      <GroupAlerts group={g} name={name} filter={{ ...filter, [by]: g.key! }} reloads={reloads} onDone={onDone} />
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
      {groups.items.length === 0 && <p className="empty">No alerts match these filters.</p>}
    </div>
  );
}

function GroupAlerts({ group, name, filter, reloads, onDone }: { group: Group; name: string; filter: ApiFilter; reloads: number; onDone(message: string): void }) {
  const { user } = useSession();
  const [page, setPage] = useState<Page<Alert> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const filterKey = JSON.stringify(filter);

  useEffect(() => {
    let cancelled = false;
    api
      .get<Page<Alert>>('/api/alerts' + query({ ...filter, sort_by: 'created_at', sort_order: 'desc', page_size: SHOWN }))
      .then((answer) => !cancelled && setPage(answer))
      .catch((e: unknown) => !cancelled && setError(errorText(e)));
    return () => {
      cancelled = true;
    };
  }, [filterKey, reloads]);

  if (error)
    return (
      <p className="error" role="alert">
        {error}
      </p>
    );
  if (!page) return <p role="status">Loading…</p>;
  const statuses = filter.status ? [filter.status as AlertStatus] : undefined;
  return (
    <div className="group-alerts">
      {canTriage(user) && page.total > 0 && (
        <BulkActions
          target={{ filter }}
          count={page.total}
          statuses={statuses}
          label={`Change every alert of ${name.toLowerCase()} ${group.label}`}
          heading={`All ${page.total.toLocaleString()} of ${group.label}`}
          onDone={onDone}
        />
      )}
      <ul className="group-list" aria-label={`Alerts of ${name.toLowerCase()} ${group.label}`}>
        {page.items.map((a) => (
          <li key={a.id} data-alert-id={a.id}>
            <SeverityBadge severity={a.severity} /> <StatusBadge status={a.status} /> <Link href={`/alerts/${a.id}`}>{a.rule_title}</Link>{' '}
            <span className="muted">
              {[a.host, a.user, a.source_ip].filter(Boolean).join(' · ')} · <time dateTime={a.created_at}>{relativeTime(a.created_at)}</time>
              {a.assignee_name ? ` · ${a.assignee_name}` : ''}
            </span>
          </li>
        ))}
      </ul>
      {page.total > page.items.length && (
        <p className="muted">
          The newest {page.items.length} of {page.total.toLocaleString()}.
        </p>
      )}
    </div>
  );
}

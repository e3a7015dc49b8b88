// Settings → the audit log (admins): filter by action and actor, newest first, in pages of 50.
import { useEffect, useState } from 'react';
import { api, errorText, query, type Page } from '../../api';
import { formatTime } from '../../format';
import type { AuditEntry } from '../../types';
import { ListTable } from './ListTable';
import { Message } from './Message';
import { ListPager } from '../../components/ListPager';

export function Audit() {
  const [data, setData] = useState<Page<AuditEntry> | null>(null);
  const [page, setPage] = useState(1);
  const [action, setAction] = useState('');
  const [actor, setActor] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const [filters, setFilters] = useState({ action: '', actor: '' });
  useEffect(() => {
    api
      .get<Page<AuditEntry>>('/api/audit' + query({ page, page_size: 50, action: filters.action, actor: filters.actor }))
      .then(setData)
      .catch((e: unknown) => setMessage(errorText(e)));
  }, [page, filters]);
  return (
    <div>
      <h2>Audit log</h2>
      <Message text={message} error />
      <form
        className="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setPage(1);
          setFilters({ action, actor });
        }}
      >
        <label>
          Action
          <input value={action} onChange={(e) => setAction(e.target.value)} placeholder="e.g. rule.create" />
        </label>
        <label>
          Actor
          <input value={actor} onChange={(e) => setActor(e.target.value)} />
        </label>
        <button type="submit">Filter</button>
      </form>
      <ListTable caption="Audit log entries, newest first" columns={['When', 'Actor', 'Action', 'Target', 'From', 'Details']}>
        {data?.items.map((e, i) => (
          <tr key={String(e.id ?? i)}>
            <td>{formatTime(e.created_at)}</td>
            <td>{e.actor}</td>
            <td className="mono">{e.action}</td>
            <td className="mono small">{[e.target_type, e.target_id].filter(Boolean).join(' ')}</td>
            <td className="mono">{e.ip}</td>
            <td className="mono small">{e.details && Object.keys(e.details).length ? JSON.stringify(e.details) : ''}</td>
          </tr>
        ))}
      </ListTable>
      {data && data.pages > 1 && (
        <ListPager page={page} pages={data.pages} label="Audit pages" onPage={setPage} />
      )}
    </div>
  );
}

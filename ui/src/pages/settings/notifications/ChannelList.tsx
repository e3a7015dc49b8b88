// Settings → Notifications: the channels with their type, state, lowest severity and health; each name
// opens the channel; enable/disable and delete (after a confirmation) in the row.
import { useCallback, useEffect, useState } from 'react';
import { api, errorText, type Page } from '../../../api';
import { SeverityBadge } from '../../../format';
import { Link } from '../../../router';
import { ListPager } from '../../../components/ListPager';
import { ListTable } from '../ListTable';
import { Message, type Outcome } from '../Message';
import { TYPE_LABELS, type Channel } from './types';

export function HealthBadge({ channel }: { channel: Channel }) {
  return (
    <span className={`badge health-${channel.health}`} title={channel.last_error ?? undefined}>
      {channel.health}
    </span>
  );
}

const PAGE_SIZE = 50;

export function ChannelList() {
  const [list, setList] = useState<Page<Channel> | null>(null);
  const [page, setPage] = useState(1);
  const [message, setMessage] = useState<Outcome | null>(null);
  const items = list?.items;
  const load = useCallback(() => {
    api
      .get<Page<Channel>>(`/api/notification_channels?page=${page}&page_size=${PAGE_SIZE}&sort_by=name&sort_order=asc`)
      .then((p) => {
        setList(p);
        // The last channel of a later page deleted: back to the page before.
        if (p.items.length === 0 && page > 1) setPage(page - 1);
      })
      .catch((e: unknown) => setMessage({ text: errorText(e), error: true }));
  }, [page]);
  useEffect(load, [load]);
  const run = async (work: () => Promise<unknown>, done: string) => {
    try {
      await work();
      setMessage({ text: done });
      load();
    } catch (e) {
      setMessage({ text: errorText(e), error: true });
    }
  };
  return (
    <div>
      <div className="page-head">
        <h2>Notification channels</h2>
        <div className="page-actions">
          <Link href="/settings/notifications/new" className="button">
            New channel
          </Link>
        </div>
      </div>
      <p className="muted">New alerts go to every enabled channel that admits them: a webhook, Slack, Teams, Discord, mail or syslog.</p>
      <Message text={message?.text} error={message?.error} />
      {items && items.length === 0 && <p className="empty">No channels yet.</p>}
      {items && items.length > 0 && (
        <div className="table-wrap">
          <ListTable caption="Notification channels" columns={['Name', 'Type', 'State', 'Lowest severity', 'Health', 'Actions']}>
            {items.map((c) => (
              <tr key={c.id} className={c.enabled ? undefined : 'disabled'}>
                <td>
                  <Link href={`/settings/notifications/${c.id}`}>{c.name}</Link>
                </td>
                <td>{TYPE_LABELS[c.type]}</td>
                <td>{c.enabled ? 'enabled' : 'disabled'}</td>
                <td>
                  <SeverityBadge severity={c.min_severity} />
                </td>
                <td>
                  <HealthBadge channel={c} />
                </td>
                <td>
                  <div className="button-row">
                    <button type="button" className="tiny secondary" aria-label={`${c.enabled ? 'Disable' : 'Enable'} ${c.name}`} onClick={() => void run(() => api.patch(`/api/notification_channels/${c.id}`, { enabled: !c.enabled }), `${c.name} ${c.enabled ? 'disabled' : 'enabled'}.`)}>
                      {c.enabled ? 'Disable' : 'Enable'}
                    </button>
                    <button type="button" className="tiny danger" aria-label={`Delete ${c.name}`} onClick={() => window.confirm(`Delete the channel ${c.name} and its delivery log?`) && void run(() => api.delete(`/api/notification_channels/${c.id}`), `${c.name} deleted.`)}>
                      Delete
                    </button>
                  </div>
                </td>
              </tr>
            ))}
          </ListTable>
        </div>
      )}
      {list && list.pages > 1 && <ListPager page={page} pages={list.pages} label="Notification channel pages" onPage={setPage} />}
    </div>
  );
}

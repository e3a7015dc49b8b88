// A channel's delivery log: each alert, digest and test message with its status, attempts, last error
// and next retry, newest first; filters by status and alert, pages of 20, and Retry on a failed one.
import { useCallback, useEffect, useState } from 'react';
import { api, errorText, query, type Page } from '../../../api';
import { ListPager } from '../../../components/ListPager';
import { formatTime } from '../../../format';
import { Link } from '../../../router';
import { ListTable } from '../ListTable';
import { Message, type Outcome } from '../Message';
import { DELIVERY_STATUSES, type Delivery } from './types';

const PAGE_SIZE = 20;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function What({ delivery }: { delivery: Delivery }) {
  if (delivery.kind === 'test') return <>Test message</>;
  if (delivery.kind === 'digest') return <>Digest: {delivery.digest?.held ?? '?'} alerts of {delivery.digest?.rule_title ?? 'a rule'}</>;
  return delivery.alert_id ? <Link href={`/alerts/${delivery.alert_id}`}>Alert {delivery.alert_id.slice(0, 8)}</Link> : <>Alert</>;
}

export function DeliveryLog({ channelId, refresh }: { channelId: string; refresh: number }) {
  const [status, setStatus] = useState('');
  const [alertId, setAlertId] = useState('');
  const [page, setPage] = useState(1);
  const [list, setList] = useState<Page<Delivery> | null>(null);
  const [message, setMessage] = useState<Outcome | null>(null);
  const [reloads, setReloads] = useState(0);
  const alertFilter = UUID.test(alertId.trim()) ? alertId.trim() : undefined;

  const load = useCallback(() => {
    api
      .get<Page<Delivery>>(`/api/notification_channels/${channelId}/deliveries${query({ status, alert_id: alertFilter, page, page_size: PAGE_SIZE })}`)
      .then(setList)
      .catch((e: unknown) => setMessage({ text: errorText(e), error: true }));
  }, [channelId, status, alertFilter, page]);
  useEffect(load, [load, refresh, reloads]);

  const retry = async (delivery: Delivery) => {
    try {
      await api.post(`/api/notification_channels/${channelId}/deliveries/${delivery.id}/retry`);
      setMessage({ text: 'The delivery will be sent again now.' });
      load();
    } catch (e) {
      setMessage({ text: errorText(e), error: true });
    }
  };

  return (
    <section aria-labelledby="delivery-log-title">
      <h3 id="delivery-log-title">Delivery log</h3>
      <div className="filters">
        <label>
          Status
          <select
            value={status}
            onChange={(e) => {
              setStatus(e.target.value);
              setPage(1);
            }}
          >
            <option value="">any</option>
            {DELIVERY_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Alert id
          <input
            value={alertId}
            placeholder="the alert's id"
            autoComplete="off"
            aria-describedby="alert-filter-hint"
            onChange={(e) => {
              setAlertId(e.target.value);
              setPage(1);
            }}
          />
        </label>
        <span id="alert-filter-hint" className="muted small">
          {alertId.trim() && !alertFilter ? 'Not an alert id: not applied.' : ''}
        </span>
        <button type="button" className="secondary" onClick={() => setReloads((n) => n + 1)}>
          Refresh
        </button>
      </div>
      <Message text={message?.text} error={message?.error} />
      {list && list.items.length === 0 && <p className="empty">No deliveries{status || alertFilter ? ' match the filters' : ' yet'}.</p>}
      {list && list.items.length > 0 && (
        <div className="table-wrap">
          <ListTable caption="Deliveries" columns={['Created', 'What', 'Status', 'Attempts', 'Last error', 'Next retry', 'Actions']}>
            {list.items.map((d) => (
              <tr key={d.id}>
                <td className="nowrap">{formatTime(d.created_at)}</td>
                <td>
                  <What delivery={d} />
                </td>
                <td>
                  <span className={`badge delivery-${d.status}`}>{d.status}</span>
                </td>
                <td>{d.attempts}</td>
                <td>{d.last_error ? `${d.last_status_code !== null ? `${d.last_status_code}: ` : ''}${d.last_error}` : ''}</td>
                <td className="nowrap">{formatTime(d.next_retry_at)}</td>
                <td>
                  {d.status === 'failed' && d.kind !== 'test' && (
                    <button type="button" className="tiny secondary" aria-label={`Retry the ${d.kind} delivery of ${formatTime(d.created_at)}`} onClick={() => void retry(d)}>
                      Retry
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </ListTable>
        </div>
      )}
      {list && list.pages > 1 && <ListPager page={page} pages={list.pages} label="Delivery log pages" onPage={setPage} />}
    </section>
  );
}

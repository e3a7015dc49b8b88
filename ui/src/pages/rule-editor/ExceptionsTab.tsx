// The rule's Exceptions tab: the exceptions of the rule with their expiry and how many matches each
// suppressed, enabled, disabled and deleted from here; added here (with a preview of what they cover)
// or from a field of an alert's event. Oldest first, 50 to a page.
import { useCallback, useEffect, useState } from 'react';
import { api, errorText, type Page } from '../../api';
import type { Rule, RuleException } from '../../types';
import { ListPager } from '../../components/ListPager';
import { formatTime, relativeTime } from '../../format';
import { NewException } from './NewException';

/** A date and time in a few characters (the list has many columns). */
const shortTime = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function ExceptionsTab({ rule, canEdit }: { rule: Rule; canEdit: boolean }) {
  const [items, setItems] = useState<RuleException[]>([]);
  const [message, setMessage] = useState<string | null>(null);
  const [page, setPage] = useState(1);
  const [pages, setPages] = useState(1);
  const load = useCallback(() => {
    api
      .get<Page<RuleException>>(`/api/rules/${rule.id}/exceptions?page_size=50&page=${page}`)
      .then((p) => {
        setItems(p.items);
        setPages(Math.max(p.pages, 1));
        // The last page emptied by a delete: show the one before.
        if (p.items.length === 0 && page > 1) setPage(page - 1);
      })
      .catch((e: unknown) => setMessage(errorText(e)));
  }, [rule.id, page]);
  useEffect(load, [load]);
  const toggle = async (e: RuleException) => {
    try {
      await api.patch(`/api/rules/${rule.id}/exceptions/${e.id}`, { enabled: !e.enabled });
      load();
    } catch (err) {
      setMessage(errorText(err));
    }
  };
  const remove = async (e: RuleException) => {
    try {
      await api.delete(`/api/rules/${rule.id}/exceptions/${e.id}`);
      load();
    } catch (err) {
      setMessage(errorText(err));
    }
  };
  return (
    <div>
      <h2>Exceptions</h2>
      <p className="muted">Events matching an enabled exception raise no alert, until it expires. Add one below, or from a field of an alert's event.</p>
      {message && <p role="status">{message}</p>}
      {canEdit && <NewException ruleId={rule.id} onCreated={load} />}
      <div className="table-wrap">
      <table>
        <caption className="visually-hidden">Exceptions of this rule</caption>
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Operator</th>
            <th scope="col">Value</th>
            <th scope="col">Reason</th>
            <th scope="col">By</th>
            <th scope="col">Expires</th>
            <th scope="col">Hits</th>
            <th scope="col">Last hit</th>
            {canEdit && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {items.map((e) => (
            <tr key={e.id} className={e.enabled ? undefined : 'disabled'}>
              <td className="mono">{e.field}</td>
              <td>{e.operator}</td>
              <td className="mono">{Array.isArray(e.value) ? e.value.join(', ') : e.value}</td>
              <td>{e.reason}</td>
              <td>{e.created_by}</td>
              <td>
                {e.expires_at ? shortTime(e.expires_at) : 'never'}
                {e.expired && (
                  <>
                    {' '}
                    <span className="badge">expired</span>
                  </>
                )}
              </td>
              <td className="num">{e.hit_count.toLocaleString()}</td>
              <td>{e.last_hit_at ? <time dateTime={e.last_hit_at} title={formatTime(e.last_hit_at)}>{relativeTime(e.last_hit_at)}</time> : '—'}</td>
              {canEdit && (
                <td>
                  <div className="button-row">
                    <button type="button" className="tiny secondary" onClick={() => void toggle(e)}>
                      {e.enabled ? 'Disable' : 'Enable'}
                    </button>
                    <button type="button" className="tiny danger" onClick={() => void remove(e)}>
                      Delete
                    </button>
                  </div>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      </div>
      {items.length === 0 && <p className="muted">No exceptions.</p>}
      {pages > 1 && (
        <ListPager page={page} pages={pages} label="Exception pages" onPage={setPage} />
      )}
    </div>
  );
}

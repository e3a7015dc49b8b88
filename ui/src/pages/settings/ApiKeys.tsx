// Settings → API keys: create one (the key is shown once, with an example request), list, revoke.
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { api, errorText, type Page } from '../../api';
import { CopyBlock } from '../../components/CopyBlock';
import { formatTime } from '../../format';
import type { ApiKey } from '../../types';
import { ListTable } from './ListTable';
import { Message } from './Message';

export function ApiKeys({ admin }: { admin: boolean }) {
  const [items, setItems] = useState<ApiKey[]>([]);
  const [name, setName] = useState('');
  const [tier, setTier] = useState('standard');
  const [created, setCreated] = useState<ApiKey | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const load = useCallback(() => {
    api
      .get<Page<ApiKey>>('/api/api_keys?page_size=100')
      .then((p) => setItems(p.items))
      .catch((e: unknown) => setMessage(errorText(e)));
  }, []);
  useEffect(load, [load]);
  const create = async (event: FormEvent) => {
    event.preventDefault();
    try {
      setCreated(await api.post<ApiKey>('/api/api_keys', { name, ...(admin ? { tier } : {}) }));
      setName('');
      setMessage(null);
      load();
    } catch (e) {
      setMessage(errorText(e));
    }
  };
  const revoke = async (key: ApiKey) => {
    if (!window.confirm(`Revoke the API key ${key.name}? Integrations using it stop working at once.`)) return;
    try {
      await api.delete(`/api/api_keys/${key.id}`);
      load();
    } catch (e) {
      setMessage(errorText(e));
    }
  };
  return (
    <div>
      <h2>API keys</h2>
      <p className="muted">API keys give integrations read-only access to /api/external/alerts, /rules and /stats.</p>
      <Message text={message} error />
      {created?.key && (
        <div className="panel" role="region" aria-label="New API key">
          <h3>API key {created.name}</h3>
          <p>
            <strong>Copy it now: it is shown only once.</strong>
          </p>
          <CopyBlock text={created.key} label="Key" />
          <CopyBlock text={`curl -H 'Authorization: Bearer ${created.key}' ${window.location.origin}/api/external/alerts`} label="Example" />
          <button type="button" className="secondary" onClick={() => setCreated(null)}>
            I have copied it
          </button>
        </div>
      )}
      <form className="row" onSubmit={create} aria-label="New API key">
        <label className="grow">
          Key name
          <input value={name} required maxLength={100} onChange={(e) => setName(e.target.value)} />
        </label>
        {admin && (
          <label>
            Rate-limit tier
            <select value={tier} onChange={(e) => setTier(e.target.value)}>
              <option value="standard">Standard (60/min)</option>
              <option value="high">High (300/min)</option>
            </select>
          </label>
        )}
        <button type="submit">Create API key</button>
      </form>
      <ListTable caption="API keys" columns={['Name', 'Prefix', 'Tier', 'Owner', 'Created', 'Actions']}>
        {items.map((k) => (
          <tr key={k.id}>
            <td>{k.name}</td>
            <td className="mono">{k.prefix}…</td>
            <td>{k.tier}</td>
            <td>{k.owner}</td>
            <td>{formatTime(k.created_at)}</td>
            <td>
              <button type="button" className="tiny danger" onClick={() => void revoke(k)}>
                Revoke
              </button>
            </td>
          </tr>
        ))}
      </ListTable>
      {items.length === 0 && <p className="muted">No API keys.</p>}
    </div>
  );
}

// Settings → threat-intel feeds: the loaded feeds with their indicator counts, upload of a feed file
// (plain list, CSV, MISP, STIX or abuse.ch; admins) and deletion.
import { useCallback, useEffect, useState, type ChangeEvent, type FormEvent } from 'react';
import { api, errorText, type Page } from '../api';
import { formatTime } from '../format';

interface Feed {
  id: string;
  name: string;
  format: string;
  risk_score: number;
  indicators: number;
  rejected: number;
  indicator_types: Record<string, number>;
  created_by: string;
  created_at: string;
}

const FORMATS = ['plain', 'csv', 'misp', 'stix', 'abusech'] as const;
const TYPES = ['ip', 'cidr', 'domain', 'url', 'md5', 'sha1', 'sha256'] as const;

export function Feeds({ admin }: { admin: boolean }) {
  const [items, setItems] = useState<Feed[]>([]);
  const [name, setName] = useState('');
  const [format, setFormat] = useState<string>('plain');
  const [type, setType] = useState<string>('ip');
  const [risk, setRisk] = useState('70');
  const [content, setContent] = useState('');
  const [message, setMessage] = useState<{ text: string; error?: boolean } | null>(null);

  const load = useCallback(() => {
    api
      .get<Page<Feed>>('/api/threat_intel/feeds?page_size=100')
      .then((p) => setItems(p.items))
      .catch((e: unknown) => setMessage({ text: errorText(e), error: true }));
  }, []);
  useEffect(load, [load]);

  const readFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    if (!file) return;
    setContent(await file.text());
    if (!name) setName(file.name.replace(/\.[^.]+$/, ''));
  };

  const upload = async (event: FormEvent) => {
    event.preventDefault();
    try {
      const created = await api.post<Feed & { skipped: number }>('/api/threat_intel/feeds', {
        name,
        format,
        ...(format === 'plain' ? { type } : {}),
        content,
        risk_score: Number(risk),
      });
      setMessage({ text: `Loaded ${created.indicators} indicator(s)${created.rejected ? `, ${created.rejected} rejected` : ''}.` });
      setName('');
      setContent('');
      load();
    } catch (e) {
      setMessage({ text: errorText(e), error: true });
    }
  };

  const remove = async (feed: Feed) => {
    if (!window.confirm(`Delete the feed ${feed.name}? Later alerts are no longer enriched from it.`)) return;
    try {
      await api.delete(`/api/threat_intel/feeds/${feed.id}`);
      load();
    } catch (e) {
      setMessage({ text: errorText(e), error: true });
    }
  };

  return (
    <div>
      <h2>Threat-intel feeds</h2>
      <p className="muted">Alerts whose events carry an indicator of a feed are enriched with a risk level and score.</p>
      {message && (
        <p className={message.error ? 'error' : 'notice'} role={message.error ? 'alert' : 'status'}>
          {message.text}
        </p>
      )}
      <table>
        <caption className="visually-hidden">Threat-intel feeds</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Format</th>
            <th scope="col">Indicators</th>
            <th scope="col">Risk score</th>
            <th scope="col">Loaded</th>
            {admin && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {items.map((f) => (
            <tr key={f.id}>
              <td>{f.name}</td>
              <td>{f.format}</td>
              <td>
                {f.indicators.toLocaleString()}{' '}
                <span className="muted small">
                  {Object.entries(f.indicator_types)
                    .map(([t, n]) => `${t} ${n}`)
                    .join(', ')}
                </span>
              </td>
              <td>{f.risk_score}</td>
              <td>
                {formatTime(f.created_at)} by {f.created_by}
              </td>
              {admin && (
                <td>
                  <button type="button" className="tiny danger" onClick={() => void remove(f)}>
                    Delete
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {items.length === 0 && <p className="muted">No feeds loaded.</p>}
      {admin && (
        <form className="panel" onSubmit={upload} aria-label="Upload a feed">
          <h3>Upload a feed</h3>
          <div className="row">
            <label>
              Feed name
              <input value={name} required maxLength={200} onChange={(e) => setName(e.target.value)} />
            </label>
            <label>
              Format
              <select value={format} onChange={(e) => setFormat(e.target.value)}>
                {FORMATS.map((f) => (
                  <option key={f}>{f}</option>
                ))}
              </select>
            </label>
            {format === 'plain' && (
              <label>
                Indicator type
                <select value={type} onChange={(e) => setType(e.target.value)}>
                  {TYPES.map((t) => (
                    <option key={t}>{t}</option>
                  ))}
                </select>
              </label>
            )}
            <label>
              Risk score (0–100)
              <input type="number" min={0} max={100} value={risk} onChange={(e) => setRisk(e.target.value)} />
            </label>
            <label>
              File
              <input type="file" onChange={(e) => void readFile(e)} />
            </label>
          </div>
          <label>
            Content
            <textarea className="code" rows={6} required value={content} onChange={(e) => setContent(e.target.value)} />
          </label>
          <button type="submit">Upload feed</button>
        </form>
      )}
    </div>
  );
}

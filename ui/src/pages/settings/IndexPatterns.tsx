// Settings → index patterns: the list (each opens its field mappings and catalogue), creation
// (admins; the ingest token is shown once with shipper snippets), token rotation and deletion.
import { useCallback, useEffect, useState } from 'react';
import { api, errorText, type Page } from '../../api';
import { Link } from '../../router';
import type { PatternSettings } from './types';
import { ListTable } from './ListTable';
import { Message, type Outcome } from './Message';
import { PanelForm } from './PanelForm';
import { TokenReveal } from './TokenReveal';
import { usePresets } from './usePresets';

export function IndexPatterns({ admin }: { admin: boolean }) {
  const [items, setItems] = useState<PatternSettings[]>([]);
  const presets = usePresets();
  const [name, setName] = useState('');
  const [preset, setPreset] = useState('');
  const [isDefault, setIsDefault] = useState(false);
  const [revealed, setRevealed] = useState<{ pattern: string; token: string } | null>(null);
  const [message, setMessage] = useState<Outcome | null>(null);

  const load = useCallback(() => {
    api
      .get<Page<PatternSettings>>('/api/index_patterns?page_size=100')
      .then((p) => setItems(p.items))
      .catch((e: unknown) => setMessage({ text: errorText(e), error: true }));
  }, []);
  useEffect(load, [load]);

  const create = async () => {
    try {
      const created = await api.post<PatternSettings>('/api/index_patterns', { name, is_default: isDefault, ...(preset ? { preset } : {}) });
      setRevealed({ pattern: created.name, token: created.ingest_token ?? '' });
      setName('');
      setIsDefault(false);
      setMessage(null);
      load();
    } catch (e) {
      setMessage({ text: errorText(e), error: true });
    }
  };

  const rotate = async (p: PatternSettings) => {
    if (!window.confirm(`Rotate the ingest token of ${p.name}? Shippers using the old token stop working.`)) return;
    try {
      const answer = await api.post<{ ingest_token: string }>(`/api/index_patterns/${p.id}/rotate_token`);
      setRevealed({ pattern: p.name, token: answer.ingest_token });
    } catch (e) {
      setMessage({ text: errorText(e), error: true });
    }
  };

  const remove = async (p: PatternSettings) => {
    if (!window.confirm(`Delete the index pattern ${p.name}?`)) return;
    try {
      await api.delete(`/api/index_patterns/${p.id}`);
      load();
    } catch (e) {
      setMessage({ text: errorText(e), error: true });
    }
  };

  return (
    <div>
      <h2>Index patterns</h2>
      <p className="muted">
        An index pattern receives events (POST /api/logs/&lt;name&gt; or the Elasticsearch-compatible /api/es) and holds the field mappings its rules use. Open a pattern to
        see its field mappings and the fields its events carry.
      </p>
      <Message text={message?.text} error={message?.error} />
      {revealed && <TokenReveal pattern={revealed.pattern} token={revealed.token} onClose={() => setRevealed(null)} />}
      <ListTable caption="Index patterns" columns={['Name', 'Preset', 'Mappings', 'Timestamp field', 'Retention', 'Token', admin && 'Actions']}>
        {items.map((p) => (
          <tr key={p.id}>
            <td>
              <Link href={`/settings/index-patterns/${encodeURIComponent(p.id)}`}>{p.name}</Link> {p.is_default && <span className="badge">default</span>}
            </td>
            <td className="mono">{p.preset ?? ''}</td>
            <td className="num">{p.field_mappings?.length ?? 0}</td>
            <td className="mono">{p.timestamp_field}</td>
            <td>{p.retention_days} days</td>
            <td className="mono">{p.ingest_token_prefix}…</td>
            {admin && (
              <td>
                <div className="button-row">
                  <button type="button" className="tiny secondary" onClick={() => void rotate(p)}>
                    Rotate token
                  </button>
                  <button type="button" className="tiny danger" onClick={() => void remove(p)}>
                    Delete
                  </button>
                </div>
              </td>
            )}
          </tr>
        ))}
      </ListTable>
      {items.length === 0 && <p className="muted">No index pattern yet.</p>}
      {admin && (
        <PanelForm label="New index pattern" submit="Create index pattern" onSubmit={create}>
          <label>
            Name
            <input value={name} required pattern="[a-z0-9._\-]+" maxLength={100} title="lowercase letters, digits, dot, underscore, hyphen" onChange={(e) => setName(e.target.value)} />
          </label>
          <label>
            Field mapping preset
            <select value={preset} onChange={(e) => setPreset(e.target.value)}>
              <option value="">None (field names as in the rules)</option>
              {presets.map((p) => (
                <option key={p.name} value={p.name}>
                  {p.name}
                </option>
              ))}
            </select>
          </label>
          <label className="inline">
            <input type="checkbox" checked={isDefault} onChange={(e) => setIsDefault(e.target.checked)} /> Default pattern for new rules
          </label>
        </PanelForm>
      )}
    </div>
  );
}

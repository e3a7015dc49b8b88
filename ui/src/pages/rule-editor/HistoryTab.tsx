// The rule's History tab: its versions with their YAML, what changed since each (a line diff against the
// current version), and rollback to one (saved as a new version). Newest first, 50 at a time.
import { useEffect, useState } from 'react';
import { api, errorText, type Page } from '../../api';
import { LineDiff } from '../../components/LineDiff';
import { formatTime } from '../../format';
import type { Rule, RuleVersion } from '../../types';

export function HistoryTab({ rule, canRollback, onRolledBack }: { rule: Rule; canRollback: boolean; onRolledBack(): void }) {
  const [versions, setVersions] = useState<RuleVersion[]>([]);
  const [shown, setShown] = useState<number | null>(null);
  const [diffed, setDiffed] = useState<number | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [more, setMore] = useState<{ page: number; pages: number; total: number }>({ page: 0, pages: 0, total: 0 });
  const load = (page: number) =>
    api
      .get<Page<RuleVersion>>(`/api/rules/${rule.id}/versions?page_size=50&page=${page}`)
      .then((p) => {
        setVersions((shown) => (page === 1 ? p.items : [...shown, ...p.items.filter((v) => !shown.some((s) => s.version === v.version))]));
        setMore({ page: p.page, pages: p.pages, total: p.total });
      })
      .catch((e: unknown) => setMessage(errorText(e)));
  useEffect(() => {
    void load(1);
    // Reloaded from the newest when the rule gets a new version.
  }, [rule.id, rule.version]);
  const rollback = async (version: number) => {
    try {
      await api.post(`/api/rules/${rule.id}/rollback`, { version });
      setMessage(`Rolled back to the content of version ${version} (saved as a new version).`);
      onRolledBack();
    } catch (e) {
      setMessage(errorText(e));
    }
  };
  return (
    <div>
      <h2>Version history</h2>
      {message && <p role="status">{message}</p>}
      <ol className="versions">
        {versions.map((v) => (
          <li key={v.version}>
            <div>
              <strong>v{v.version}</strong> {v.title} · {v.changed_by} · {formatTime(v.changed_at)}
              {v.change_reason ? <span className="muted"> — {v.change_reason}</span> : null}
            </div>
            <div className="button-row">
              <button type="button" className="tiny secondary" aria-expanded={shown === v.version} onClick={() => setShown(shown === v.version ? null : v.version)}>
                {shown === v.version ? 'Hide' : 'Show'} YAML
              </button>
              {v.yaml_content !== rule.yaml_content && (
                <button type="button" className="tiny secondary" aria-expanded={diffed === v.version} onClick={() => setDiffed(diffed === v.version ? null : v.version)}>
                  {diffed === v.version ? 'Hide' : 'Show'} changes since
                </button>
              )}
              {canRollback && v.version !== rule.version && (
                <button type="button" className="tiny" onClick={() => void rollback(v.version)}>
                  Roll back to v{v.version}
                </button>
              )}
            </div>
            {shown === v.version && <pre className="code small">{v.yaml_content}</pre>}
            {diffed === v.version && <LineDiff before={v.yaml_content} after={rule.yaml_content} label={`Changes from version ${v.version} to the current version`} />}
          </li>
        ))}
      </ol>
      {versions.length === 0 && <p className="muted">No earlier versions.</p>}
      {more.page < more.pages && (
        <button type="button" className="secondary" onClick={() => void load(more.page + 1)}>
          Show older versions ({(more.total - versions.length).toLocaleString()} more)
        </button>
      )}
    </div>
  );
}

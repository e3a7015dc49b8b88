// The rules list: filters (status, severity, tag, text), sorting and pages done by the server and kept in
// the URL, so it stays fast with the whole SigmaHQ corpus imported; bulk deploy/undeploy/delete, and import
// of rule files (YAML, several documents, or a zip).
import { useEffect, useState, type ChangeEvent, type FormEvent } from 'react';
import { api, errorText, query, type Page } from '../api';
import { formatTime, SeverityBadge, StatusBadge } from '../format';
import { Link, updateQuery, useLocation } from '../router';
import { canTriage, isAdmin, useSession } from '../session';
import { SEVERITIES, type Rule } from '../types';
import { PageNav } from '../components/PageNav';

const PAGE_SIZES = [25, 50, 100];

interface ImportAnswer {
  created: number;
  deployed: number;
  failed: { index: number; title?: string; error: string }[];
}

export function RulesPage() {
  const { user } = useSession();
  const { params } = useLocation();
  const key = params.toString();
  const [data, setData] = useState<Page<Rule> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [reloads, setReloads] = useState(0);
  const [search, setSearch] = useState(params.get('q') ?? '');
  const [tagText, setTagText] = useState(params.get('tag') ?? '');
  const [loading, setLoading] = useState(true);
  const triage = canTriage(user);

  const status = params.get('status') ?? '';
  const severity = params.get('severity') ?? '';
  const sortBy = params.get('sort_by') ?? 'updated_at';
  const sortOrder = params.get('sort_order') ?? 'desc';
  const tag = params.get('tag') ?? '';
  const pageSize = PAGE_SIZES.includes(Number(params.get('page_size'))) ? Number(params.get('page_size')) : 50;

  // The boxes follow the URL when it changes under them (Back, a shared link).
  useEffect(() => setSearch(params.get('q') ?? ''), [params.get('q')]);
  useEffect(() => setTagText(params.get('tag') ?? ''), [params.get('tag')]);

  useEffect(() => {
    let cancelled = false;
    setLoading(true);
    api
      .get<Page<Rule>>(
        '/api/rules' +
          query({ status, severity, tag, search: params.get('q'), sort_by: sortBy, sort_order: sortOrder, page: params.get('page') ?? 1, page_size: pageSize }),
      )
      .then((page) => {
        if (cancelled) return;
        setData(page);
        setError(null);
      })
      .catch((e: unknown) => !cancelled && setError(errorText(e)))
      .finally(() => !cancelled && setLoading(false));
    return () => {
      cancelled = true;
    };
  }, [key, reloads]);

  const bulk = async (action: 'deploy' | 'undeploy' | 'delete') => {
    if (action === 'delete' && !window.confirm(`Delete ${selected.size} rule(s)? Their versions and exceptions go too; alerts are kept.`)) return;
    try {
      const answer = await api.post<Record<string, unknown> & { failed: { id: string; error: string }[] }>(`/api/rules/bulk/${action}`, { ids: [...selected] });
      const done = answer[action === 'delete' ? 'deleted' : action === 'deploy' ? 'deployed' : 'undeployed'];
      const skipped = Array.isArray(answer.skipped) ? answer.skipped.length : 0;
      setMessage(
        `${String(done)} ${action === 'delete' ? 'deleted' : `${action}ed`}` +
          (skipped ? `, ${skipped} skipped` : '') +
          (answer.failed.length ? `, ${answer.failed.length} failed: ${[...new Set(answer.failed.map((f) => f.error))].join('; ')}` : ''),
      );
      setSelected(new Set());
      setReloads((n) => n + 1);
    } catch (e) {
      setMessage(errorText(e));
    }
  };

  const importFiles = async (event: ChangeEvent<HTMLInputElement>) => {
    const files = [...(event.target.files ?? [])];
    event.target.value = '';
    if (files.length === 0) return;
    try {
      const answers: ImportAnswer[] = [];
      const zips = files.filter((f) => f.name.toLowerCase().endsWith('.zip'));
      const yamls = files.filter((f) => !f.name.toLowerCase().endsWith('.zip'));
      for (const zip of zips) answers.push(await api.post<ImportAnswer>('/api/rules/import', await zip.arrayBuffer(), { contentType: 'application/zip' }));
      if (yamls.length > 0) {
        const texts = await Promise.all(yamls.map((f) => f.text()));
        answers.push(await api.post<ImportAnswer>('/api/rules/import', texts.map((t) => t.replace(/^---\s*\n/, '')).join('\n---\n'), { contentType: 'application/yaml' }));
      }
      const created = answers.reduce((n, a) => n + a.created, 0);
      const failed = answers.flatMap((a) => a.failed);
      setMessage(`Imported ${created} rule(s)` + (failed.length ? `; ${failed.length} failed: ${failed.slice(0, 5).map((f) => `${f.title ?? `#${f.index}`}: ${f.error}`).join('; ')}` : ''));
      setReloads((n) => n + 1);
    } catch (e) {
      setMessage(errorText(e));
    }
  };

  const sort = (field: string) => updateQuery({ sort_by: field, sort_order: sortBy === field && sortOrder === 'desc' ? 'asc' : 'desc', page: undefined });
  const items = data?.items ?? [];
  const header = (field: string, label: string) => (
    <th scope="col" aria-sort={sortBy === field ? (sortOrder === 'asc' ? 'ascending' : 'descending') : undefined}>
      <button type="button" className="sort" onClick={() => sort(field)}>
        {label}
        {sortBy === field ? (sortOrder === 'asc' ? ' ▲' : ' ▼') : ''}
      </button>
    </th>
  );

  return (
    <section aria-labelledby="rules-title">
      <div className="page-head">
        <h1 id="rules-title">Rules</h1>
        <span className="muted">{data ? `${data.total.toLocaleString()} rules` : ''}</span>
        {triage && (
          <div className="page-actions">
            <Link href="/rules/new" className="button">
              New rule
            </Link>
            <label className="button secondary file-button">
              Import files…
              <input type="file" multiple accept=".yml,.yaml,.zip" onChange={(e) => void importFiles(e)} className="visually-hidden" />
            </label>
          </div>
        )}
      </div>

      <form
        className="filters"
        role="search"
        aria-label="Rule filters"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          updateQuery({ q: search.trim(), tag: tagText.trim(), page: undefined });
        }}
      >
        <label>
          Status
          <select value={status} onChange={(e) => updateQuery({ status: e.target.value, page: undefined })}>
            <option value="">Any</option>
            <option value="deployed">Deployed</option>
            <option value="undeployed">Undeployed</option>
          </select>
        </label>
        <label>
          Severity
          <select value={severity} onChange={(e) => updateQuery({ severity: e.target.value, page: undefined })}>
            <option value="">Any</option>
            {SEVERITIES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Tag
          <input value={tagText} maxLength={200} onChange={(e) => setTagText(e.target.value)} placeholder="attack.t1059" />
        </label>
        <label className="grow">
          Search
          <input type="search" value={search} maxLength={200} onChange={(e) => setSearch(e.target.value)} placeholder="title, description, author or Sigma id" />
        </label>
        <label>
          Per page
          <select value={pageSize} onChange={(e) => updateQuery({ page_size: e.target.value === '50' ? undefined : e.target.value, page: undefined })}>
            {PAGE_SIZES.map((n) => (
              <option key={n}>{n}</option>
            ))}
          </select>
        </label>
        <button type="submit">Search</button>
      </form>

      {message && (
        <p className="notice" role="status">
          {message}
        </p>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}

      {triage && selected.size > 0 && (
        <div className="bulk-bar" role="group" aria-label="Selected rules">
          <strong>{selected.size} selected</strong>
          <button type="button" onClick={() => void bulk('deploy')}>
            Deploy
          </button>
          <button type="button" className="secondary" onClick={() => void bulk('undeploy')}>
            Undeploy
          </button>
          {isAdmin(user) && (
            <button type="button" className="danger" onClick={() => void bulk('delete')}>
              Delete
            </button>
          )}
        </div>
      )}

      <div className="table-wrap" aria-busy={loading}>
        <table>
          <caption className="visually-hidden">Rules</caption>
          <thead>
            <tr>
              {triage && (
                <th scope="col" className="check">
                  <input
                    type="checkbox"
                    aria-label="Select all rules on this page"
                    checked={items.length > 0 && items.every((r) => selected.has(r.id))}
                    onChange={(e) => setSelected(e.target.checked ? new Set(items.map((r) => r.id)) : new Set())}
                  />
                </th>
              )}
              {header('title', 'Title')}
              {header('severity', 'Severity')}
              {header('status', 'Status')}
              <th scope="col">Index pattern</th>
              {header('version', 'Version')}
              {header('updated_at', 'Updated')}
            </tr>
          </thead>
          <tbody>
            {items.map((rule) => (
              <tr key={rule.id} className={selected.has(rule.id) ? 'selected' : undefined}>
                {triage && (
                  <td className="check">
                    <input
                      type="checkbox"
                      aria-label={`Select rule ${rule.title}`}
                      checked={selected.has(rule.id)}
                      onChange={() =>
                        setSelected((s) => {
                          const next = new Set(s);
                          if (next.has(rule.id)) next.delete(rule.id);
                          else next.add(rule.id);
                          return next;
                        })
                      }
                    />
                  </td>
                )}
                <td>
                  <Link href={`/rules/${rule.id}`}>{rule.title}</Link>
                  {rule.tags.length > 0 && <div className="muted small">{rule.tags.slice(0, 4).join(' ')}</div>}
                </td>
                <td>
                  <SeverityBadge severity={rule.severity} />
                </td>
                <td>
                  <StatusBadge status={rule.status} />
                  {rule.status === 'deployed' && rule.deployed_version !== null && rule.deployed_version !== rule.version && <span className="muted small"> (v{rule.deployed_version} live)</span>}
                </td>
                <td>{rule.index_pattern ?? <span className="muted">none</span>}</td>
                <td>{rule.version}</td>
                <td>{formatTime(rule.updated_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {data && items.length === 0 && (
          <p className="empty">{data.total > 0 ? `Page ${data.page} is past the last page (${data.pages}).` : 'No rules match. Create one or import rule files.'}</p>
        )}
      </div>
      {data && (data.pages > 1 || data.page > 1) && <PageNav page={data.page} pages={Math.max(data.pages, 1)} label="Rule pages" />}
    </section>
  );
}

// One rule: the YAML editor (checked as you type through the unsaved-rule test, errors listed with
// their field), save, deploy/undeploy/delete, the test panel (sample log, unsaved YAML, historical
// 1h–7d), version history with a line diff and rollback, and the rule's exceptions.
import { useCallback, useEffect, useRef, useState } from 'react';
import { api, ApiError, errorText, type FieldError, type Page } from '../api';
import { LineDiff } from '../components/LineDiff';
import { formatTime, SeverityBadge, StatusBadge } from '../format';
import { Link, navigate } from '../router';
import { canTriage, isAdmin, useSession } from '../session';
import type { HistoricalResult, IndexPattern, Rule, RuleException, RuleVersion, TestResult } from '../types';

const TEMPLATE = `title: Whoami execution
id: 00000000-0000-4000-8000-000000000000
status: experimental
description: Detects whoami.exe, often run right after a compromise
logsource:
  category: process_creation
  product: windows
detection:
  selection:
    Image|endswith: '\\whoami.exe'
  condition: selection
level: medium
tags:
  - attack.discovery
`;

const SAMPLE = `{
  "@timestamp": "${new Date().toISOString()}",
  "Image": "C:\\\\Windows\\\\System32\\\\whoami.exe",
  "User": "CORP\\\\alice"
}`;

interface Check {
  state: 'idle' | 'checking' | 'ok' | 'invalid';
  detail?: string;
  errors?: FieldError[];
}

/** The line of a YAML path's first key (for "line N" next to an error); a best effort, not a parser. */
function lineOf(yaml: string, path: string): number | null {
  const keys = path.split('.');
  const lines = yaml.split('\n');
  let from = 0;
  let found: number | null = null;
  for (const key of keys) {
    const bare = key.replace(/\[\d+\]$/, '');
    const index = lines.findIndex((line, i) => i >= from && new RegExp(`^\\s*['"]?${bare.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}['"]?\\s*:`).test(line));
    if (index < 0) break;
    found = index + 1;
    from = index + 1;
  }
  return found;
}

export function RulePage({ id }: { id: string | null }) {
  const { user } = useSession();
  const [rule, setRule] = useState<Rule | null>(null);
  const [yaml, setYaml] = useState(id ? '' : TEMPLATE);
  const [pattern, setPattern] = useState<string>('');
  const [patterns, setPatterns] = useState<IndexPattern[]>([]);
  const [reason, setReason] = useState('');
  const [check, setCheck] = useState<Check>({ state: 'idle' });
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tab, setTab] = useState<'test' | 'versions' | 'exceptions'>('test');
  const [reloads, setReloads] = useState(0);
  const triage = canTriage(user);

  useEffect(() => {
    api
      .get<Page<IndexPattern>>('/api/index_patterns?page_size=100')
      .then((p) => setPatterns(p.items))
      .catch(() => setPatterns([]));
  }, []);

  useEffect(() => {
    if (!id) return;
    api
      .get<Rule>(`/api/rules/${encodeURIComponent(id)}`)
      .then((r) => {
        setRule(r);
        setYaml(r.yaml_content);
        setPattern(r.index_pattern ?? '');
        setError(null);
      })
      .catch((e: unknown) => setError(errorText(e)));
  }, [id, reloads]);

  // Checks the YAML as it is typed, through the unsaved-rule test (which creates nothing).
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => {
    if (!triage || !yaml.trim()) return;
    window.clearTimeout(timer.current);
    timer.current = window.setTimeout(() => {
      setCheck({ state: 'checking' });
      api
        .post<TestResult>('/api/rules/test', { yaml_content: yaml, sample_log: {} })
        .then(() => setCheck({ state: 'ok' }))
        .catch((e: unknown) => setCheck(e instanceof ApiError && (e.status === 400 || e.status === 422) ? { state: 'invalid', detail: e.detail, errors: e.errors } : { state: 'idle' }));
    }, 500);
    return () => window.clearTimeout(timer.current);
  }, [yaml, triage]);

  const save = async (deploy: boolean) => {
    setMessage(null);
    try {
      if (rule) {
        const updated = await api.put<Rule>(`/api/rules/${rule.id}`, { yaml_content: yaml, index_pattern: pattern || null, ...(reason.trim() ? { change_reason: reason.trim() } : {}) });
        if (deploy && updated.status !== 'deployed') await api.post(`/api/rules/${rule.id}/deploy`);
        setReason('');
        setMessage(`Saved as version ${updated.version}${deploy ? ' and deployed' : ''}.`);
        setReloads((n) => n + 1);
      } else {
        const created = await api.post<Rule>('/api/rules', { yaml_content: yaml, deploy, ...(pattern ? { index_pattern: pattern } : {}) });
        navigate(`/rules/${created.id}`, { replace: true });
      }
    } catch (e) {
      if (e instanceof ApiError && e.errors.length) setCheck({ state: 'invalid', detail: e.detail, errors: e.errors });
      setMessage(errorText(e));
    }
  };

  const action = async (what: 'deploy' | 'undeploy' | 'delete') => {
    if (!rule) return;
    setMessage(null);
    try {
      if (what === 'delete') {
        if (!window.confirm(`Delete the rule "${rule.title}"? Its versions and exceptions are deleted too; alerts are kept.`)) return;
        await api.delete(`/api/rules/${rule.id}`);
        navigate('/rules');
        return;
      }
      await api.post(`/api/rules/${rule.id}/${what}`);
      setMessage(what === 'deploy' ? 'Deployed.' : 'Undeployed.');
      setReloads((n) => n + 1);
    } catch (e) {
      setMessage(errorText(e));
    }
  };

  if (error) {
    return (
      <section>
        <p>
          <Link href="/rules">← Rules</Link>
        </p>
        <p className="error" role="alert">
          {error}
        </p>
      </section>
    );
  }
  if (id && !rule) return <p role="status">Loading…</p>;

  const dirty = rule ? yaml !== rule.yaml_content || (pattern || null) !== rule.index_pattern : true;

  return (
    <section aria-labelledby="rule-title">
      <p>
        <Link href="/rules">← Rules</Link>
      </p>
      <div className="page-head">
        <h1 id="rule-title">{rule ? rule.title : 'New rule'}</h1>
        {rule && <SeverityBadge severity={rule.severity} />}
        {rule && <StatusBadge status={rule.status} />}
        {rule && (
          <span className="muted">
            version {rule.version} · by {rule.created_by} · updated {formatTime(rule.updated_at)}
          </span>
        )}
        {rule && (
          <Link href={`/alerts?rule_id=${rule.id}`} className="page-actions">
            Alerts of this rule
          </Link>
        )}
      </div>

      <div className="columns">
        <div>
          <label htmlFor="rule-yaml">Sigma YAML</label>
          <textarea
            id="rule-yaml"
            className={`code ${check.state === 'invalid' ? 'invalid' : ''}`}
            rows={24}
            spellCheck={false}
            value={yaml}
            readOnly={!triage}
            onChange={(e) => setYaml(e.target.value)}
            aria-invalid={check.state === 'invalid'}
            aria-describedby="rule-check"
            onKeyDown={(e) => {
              if (e.key === 'Tab' && !e.shiftKey) {
                e.preventDefault();
                const el = e.currentTarget;
                const start = el.selectionStart;
                const next = `${yaml.slice(0, start)}  ${yaml.slice(el.selectionEnd)}`;
                setYaml(next);
                requestAnimationFrame(() => el.setSelectionRange(start + 2, start + 2));
              }
            }}
          />
          <div id="rule-check" className="check-result" aria-live="polite">
            {check.state === 'checking' && <span className="muted">Checking…</span>}
            {check.state === 'ok' && <span className="ok">Valid Sigma rule</span>}
            {check.state === 'invalid' && (
              <div className="error">
                <strong>{check.detail}</strong>
                {check.errors && check.errors.length > 0 && (
                  <ul>
                    {check.errors.map((err, i) => {
                      const line = lineOf(yaml, err.field);
                      return (
                        <li key={i}>
                          <code>{err.field}</code>
                          {line ? ` (line ${line})` : ''}: {err.message}
                        </li>
                      );
                    })}
                  </ul>
                )}
              </div>
            )}
          </div>
          {triage && (
            <div className="editor-actions">
              <label>
                Index pattern
                <select value={pattern} onChange={(e) => setPattern(e.target.value)}>
                  <option value="">{rule ? 'None' : 'Default pattern'}</option>
                  {patterns.map((p) => (
                    <option key={p.id} value={p.name}>
                      {p.name}
                      {p.is_default ? ' (default)' : ''}
                    </option>
                  ))}
                </select>
              </label>
              {rule && (
                <label className="grow">
                  Change reason (optional)
                  <input value={reason} maxLength={1000} onChange={(e) => setReason(e.target.value)} />
                </label>
              )}
              <div className="button-row">
                <button type="button" disabled={!dirty} onClick={() => void save(false)}>
                  {rule ? 'Save' : 'Create'}
                </button>
                {!rule && (
                  <button type="button" onClick={() => void save(true)}>
                    Create and deploy
                  </button>
                )}
                {rule && rule.status === 'undeployed' && (
                  <button type="button" onClick={() => void action('deploy')}>
                    Deploy
                  </button>
                )}
                {rule && rule.status === 'deployed' && (
                  <>
                    <button type="button" className="secondary" onClick={() => void action('deploy')}>
                      Redeploy
                    </button>
                    <button type="button" className="secondary" onClick={() => void action('undeploy')}>
                      Undeploy
                    </button>
                  </>
                )}
                {rule && isAdmin(user) && (
                  <button type="button" className="danger" onClick={() => void action('delete')}>
                    Delete
                  </button>
                )}
              </div>
            </div>
          )}
          {message && (
            <p className="notice" role="status">
              {message}
            </p>
          )}
        </div>

        <div>
          <div role="tablist" aria-label="Rule tools" className="tabs">
            {(['test', 'versions', 'exceptions'] as const)
              .filter((t) => t === 'test' || rule)
              .map((t) => (
                <button key={t} type="button" role="tab" aria-selected={tab === t} className={tab === t ? 'active' : ''} onClick={() => setTab(t)}>
                  {t === 'test' ? 'Test' : t === 'versions' ? 'History' : 'Exceptions'}
                </button>
              ))}
          </div>
          <div role="tabpanel">
            {tab === 'test' && triage && <TestPanel rule={rule} yaml={yaml} dirty={dirty} pattern={pattern} />}
            {tab === 'test' && !triage && <p className="muted">Testing rules needs the analyst role.</p>}
            {tab === 'versions' && rule && <Versions rule={rule} canRollback={triage} onRolledBack={() => setReloads((n) => n + 1)} />}
            {tab === 'exceptions' && rule && <Exceptions rule={rule} canEdit={triage} />}
          </div>
        </div>
      </div>
    </section>
  );
}

function TestPanel({ rule, yaml, dirty, pattern }: { rule: Rule | null; yaml: string; dirty: boolean; pattern: string }) {
  const [sample, setSample] = useState(SAMPLE);
  const [result, setResult] = useState<TestResult | null>(null);
  const [historical, setHistorical] = useState<HistoricalResult | null>(null);
  const [range, setRange] = useState('1d');
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const runSample = async () => {
    setMessage(null);
    setResult(null);
    let log: unknown;
    try {
      log = JSON.parse(sample);
    } catch (e) {
      setMessage(`The sample log is not valid JSON: ${errorText(e)}`);
      return;
    }
    try {
      setResult(
        rule && !dirty
          ? await api.post<TestResult>(`/api/rules/${rule.id}/test`, { sample_log: log })
          : await api.post<TestResult>('/api/rules/test', { yaml_content: yaml, sample_log: log, ...(pattern ? { index_pattern: pattern } : {}) }),
      );
    } catch (e) {
      setMessage(errorText(e) + (e instanceof ApiError && e.errors.length ? `: ${e.errors.map((x) => `${x.field}: ${x.message}`).join('; ')}` : ''));
    }
  };

  const runHistorical = async () => {
    if (!rule) return;
    setMessage(null);
    setHistorical(null);
    setBusy(true);
    try {
      setHistorical(await api.post<HistoricalResult>(`/api/rules/${rule.id}/test/historical`, { time_range: range, limit: 10 }));
    } catch (e) {
      setMessage(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="test-panel">
      <h2>Test against a sample log</h2>
      <label>
        Sample log (JSON object)
        <textarea className="code" rows={8} spellCheck={false} value={sample} onChange={(e) => setSample(e.target.value)} />
      </label>
      <button type="button" onClick={() => void runSample()}>
        {rule && !dirty ? 'Test rule' : 'Test unsaved YAML'}
      </button>
      {result && (
        <div className={`test-result ${result.matches ? 'match' : 'no-match'}`} role="status">
          <strong>{result.matches ? (result.excepted ? 'Matches, but an exception suppresses the alert' : 'Matches') : 'No match'}</strong>
          {result.matched_conditions.length > 0 && <pre className="code">{JSON.stringify(result.matched_conditions, null, 2)}</pre>}
        </div>
      )}
      {rule && (
        <>
          <h2>Historical test</h2>
          <p className="muted">Runs the saved rule over the events stored in the range; creates no alert.</p>
          <div className="row">
            <label>
              Time range
              <select value={range} onChange={(e) => setRange(e.target.value)}>
                <option value="1h">Last hour</option>
                <option value="6h">Last 6 hours</option>
                <option value="1d">Last day</option>
                <option value="7d">Last 7 days</option>
              </select>
            </label>
            <button type="button" disabled={busy} onClick={() => void runHistorical()}>
              {busy ? 'Running…' : 'Run historical test'}
            </button>
          </div>
          {historical && (
            <div role="status">
              <p>
                <strong>{historical.matches}</strong> matching event(s)
                {historical.events_scanned !== undefined ? ` in ${historical.events_scanned.toLocaleString()} scanned` : ''}.
              </p>
              {historical.sample_matches.map((m, i) => (
                <pre key={i} className="code small">
                  {JSON.stringify(m, null, 2)}
                </pre>
              ))}
            </div>
          )}
        </>
      )}
      {message && (
        <p className="error" role="alert">
          {message}
        </p>
      )}
    </div>
  );
}

function Versions({ rule, canRollback, onRolledBack }: { rule: Rule; canRollback: boolean; onRolledBack(): void }) {
  const [versions, setVersions] = useState<RuleVersion[]>([]);
  const [shown, setShown] = useState<number | null>(null);
  const [diffed, setDiffed] = useState<number | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  useEffect(() => {
    api
      .get<Page<RuleVersion>>(`/api/rules/${rule.id}/versions?page_size=100`)
      .then((p) => setVersions(p.items))
      .catch((e: unknown) => setMessage(errorText(e)));
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
    </div>
  );
}

function Exceptions({ rule, canEdit }: { rule: Rule; canEdit: boolean }) {
  const [items, setItems] = useState<RuleException[]>([]);
  const [message, setMessage] = useState<string | null>(null);
  const load = useCallback(() => {
    api
      .get<Page<RuleException> | RuleException[]>(`/api/rules/${rule.id}/exceptions?page_size=100`)
      .then((p) => setItems(Array.isArray(p) ? p : p.items))
      .catch((e: unknown) => setMessage(errorText(e)));
  }, [rule.id]);
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
      <p className="muted">Events matching an enabled exception raise no alert. Create them from a field of an alert's event.</p>
      {message && <p role="status">{message}</p>}
      <table>
        <caption className="visually-hidden">Exceptions of this rule</caption>
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Operator</th>
            <th scope="col">Value</th>
            <th scope="col">Reason</th>
            <th scope="col">By</th>
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
      {items.length === 0 && <p className="muted">No exceptions.</p>}
    </div>
  );
}

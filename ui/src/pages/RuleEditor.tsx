// One rule: the YAML editor (highlighted, checked as you type, errors at their lines), save, deploy,
// undeploy and delete, and the Test, History, Exceptions and Suppression tabs (in ./rule-editor/).
import { useEffect, useRef, useState } from 'react';
import { api, ApiError, errorText, type Page } from '../api';
import { formatTime, SeverityBadge, StatusBadge } from '../format';
import { Link, navigate } from '../router';
import { canTriage, isAdmin, useSession } from '../session';
import type { IndexPattern, Rule } from '../types';
import { CheckResult } from './rule-editor/CheckResult';
import { EditorActions } from './rule-editor/EditorActions';
import { ExceptionsTab } from './rule-editor/ExceptionsTab';
import { HistoryTab } from './rule-editor/HistoryTab';
import { SuppressionTab } from './rule-editor/SuppressionTab';
import { TEMPLATE } from './rule-editor/template';
import { TestPanel } from './rule-editor/TestPanel';
import { useLeaveGuard } from '../components/useLeaveGuard';
import { useRuleCheck } from './rule-editor/useRuleCheck';
import { YamlEditor, type YamlEditorHandle } from './rule-editor/YamlEditor';

const TAB_NAMES = { test: 'Test', versions: 'History', exceptions: 'Exceptions', suppression: 'Suppression' } as const;

export function RulePage({ id }: { id: string | null }) {
  const { user } = useSession();
  const [rule, setRule] = useState<Rule | null>(null);
  const [yaml, setYaml] = useState(id ? '' : TEMPLATE);
  const [pattern, setPattern] = useState<string>('');
  const [patterns, setPatterns] = useState<IndexPattern[]>([]);
  const [reason, setReason] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tab, setTab] = useState<'test' | 'versions' | 'exceptions' | 'suppression'>('test');
  const [reloads, setReloads] = useState(0);
  const editor = useRef<YamlEditorHandle>(null);
  const triage = canTriage(user);
  const { check, setServerCheck } = useRuleCheck(yaml, triage);
  // Unsaved YAML: a changed rule, or a new rule whose template was edited.
  const unsaved = triage && (rule ? yaml !== rule.yaml_content : !id && yaml !== TEMPLATE);
  const { leaveFreely } = useLeaveGuard(unsaved, 'The rule has unsaved changes. Leave without saving them?');

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
        leaveFreely();
        navigate(`/rules/${created.id}`, { replace: true });
      }
    } catch (e) {
      if (e instanceof ApiError && e.errors.length) setServerCheck({ state: 'invalid', detail: e.detail, errors: e.errors });
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
        leaveFreely();
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
  const invalid = check.state === 'invalid' || check.problems.length > 0;

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
          <YamlEditor ref={editor} id="rule-yaml" value={yaml} onChange={setYaml} readOnly={!triage} invalid={invalid} problems={check.problems} describedBy="rule-check rule-yaml-keys" />
          <p id="rule-yaml-keys" className="muted yaml-hint">
            Tab indents; Escape then Tab leaves the editor.
          </p>
          <CheckResult id="rule-check" check={check} onJump={(line, column) => editor.current?.jumpTo(line, column)} />
          {triage && (
            <EditorActions
              rule={rule}
              patterns={patterns}
              pattern={pattern}
              onPattern={setPattern}
              reason={reason}
              onReason={setReason}
              dirty={dirty}
              canDelete={isAdmin(user)}
              onSave={(deploy) => void save(deploy)}
              onAction={(what) => void action(what)}
            />
          )}
          {message && (
            <p className="notice" role="status">
              {message}
            </p>
          )}
        </div>

        <div>
          <div role="tablist" aria-label="Rule tools" className="tabs">
            {(['test', 'versions', 'exceptions', 'suppression'] as const)
              .filter((t) => t === 'test' || rule)
              .map((t) => (
                <button key={t} type="button" role="tab" aria-selected={tab === t} className={tab === t ? 'active' : ''} onClick={() => setTab(t)}>
                  {TAB_NAMES[t]}
                </button>
              ))}
          </div>
          <div role="tabpanel">
            {tab === 'test' && triage && <TestPanel rule={rule} yaml={yaml} dirty={dirty} pattern={pattern} />}
            {tab === 'test' && !triage && <p className="muted">Testing rules needs the analyst role.</p>}
            {tab === 'versions' && rule && <HistoryTab rule={rule} canRollback={triage} onRolledBack={() => setReloads((n) => n + 1)} />}
            {tab === 'exceptions' && rule && <ExceptionsTab rule={rule} canEdit={triage} />}
            {tab === 'suppression' && rule && <SuppressionTab rule={rule} canEdit={triage} />}
          </div>
        </div>
      </div>
    </section>
  );
}

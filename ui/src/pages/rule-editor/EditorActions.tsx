// The bar under the rule editor: the index pattern, the change reason, and save/create, deploy, redeploy,
// undeploy and delete, each offered only where it applies.
import type { IndexPattern, Rule } from '../../types';

interface Props {
  rule: Rule | null;
  patterns: IndexPattern[];
  pattern: string;
  onPattern(name: string): void;
  reason: string;
  onReason(text: string): void;
  dirty: boolean;
  canDelete: boolean;
  onSave(deploy: boolean): void;
  onAction(what: 'deploy' | 'undeploy' | 'delete'): void;
}

export function EditorActions({ rule, patterns, pattern, onPattern, reason, onReason, dirty, canDelete, onSave, onAction }: Props) {
  return (
    <div className="editor-actions">
      <label>
        Index pattern
        <select value={pattern} onChange={(e) => onPattern(e.target.value)}>
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
          <input value={reason} maxLength={1000} onChange={(e) => onReason(e.target.value)} />
        </label>
      )}
      <div className="button-row">
        <button type="button" disabled={!dirty} onClick={() => onSave(false)}>
          {rule ? 'Save' : 'Create'}
        </button>
        {!rule && (
          <button type="button" onClick={() => onSave(true)}>
            Create and deploy
          </button>
        )}
        {rule && rule.status === 'undeployed' && (
          <button type="button" onClick={() => onAction('deploy')}>
            Deploy
          </button>
        )}
        {rule && rule.status === 'deployed' && (
          <>
            <button type="button" className="secondary" onClick={() => onAction('deploy')}>
              Redeploy
            </button>
            <button type="button" className="secondary" onClick={() => onAction('undeploy')}>
              Undeploy
            </button>
          </>
        )}
        {rule && canDelete && (
          <button type="button" className="danger" onClick={() => onAction('delete')}>
            Delete
          </button>
        )}
      </div>
    </div>
  );
}

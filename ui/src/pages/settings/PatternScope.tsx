// Settings → one index pattern's detection scope: the log sources its events come from (deploying a
// rule whose logsource cannot occur there is refused) and the values of Sigma %placeholder% names its
// rules may use (`expand`). Admins change them; the others read them. Both are saved together.
import { useState } from 'react';
import { SaveOutcome } from './Message';
import { usePatternSave } from './usePatternSave';
import type { PatternSettings } from './types';

type ScopeKey = 'product' | 'category' | 'service';
type ScopeRow = Record<ScopeKey, string>;
interface PlaceholderRow {
  name: string;
  values: string;
}
interface Draft {
  scope: ScopeRow[];
  placeholders: PlaceholderRow[];
}

const SCOPE_KEYS: ScopeKey[] = ['product', 'category', 'service'];

function draftOf(p: PatternSettings): Draft {
  return {
    scope: (p.logsource_scope ?? []).map((e) => ({ product: e.product ?? '', category: e.category ?? '', service: e.service ?? '' })),
    placeholders: Object.entries(p.placeholders ?? {}).map(([name, values]) => ({ name, values: values.join('\n') })),
  };
}

/** The PATCH body of a draft: empty scope rows and placeholder rows are left out. */
function bodyOf(d: Draft): { logsource_scope: Array<Partial<ScopeRow>> | null; placeholders: Record<string, string[]> } {
  const scope = d.scope
    .map((r) => Object.fromEntries(SCOPE_KEYS.filter((k) => r[k].trim()).map((k) => [k, r[k].trim()])) as Partial<ScopeRow>)
    .filter((e) => Object.keys(e).length > 0);
  const placeholders: Record<string, string[]> = {};
  for (const row of d.placeholders) {
    const name = row.name.trim().replace(/^%|%$/g, '');
    const values = row.values.split('\n').map((v) => v.trim()).filter(Boolean);
    if (name) placeholders[name] = values;
  }
  return { logsource_scope: scope.length > 0 ? scope : null, placeholders };
}

export function PatternScope({ pattern, admin, onSaved }: { pattern: PatternSettings; admin: boolean; onSaved(p: PatternSettings): void }) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(pattern));
  const { outcome, errors, save: send, clearOutcome } = usePatternSave(pattern, onSaved);
  const dirty = JSON.stringify(bodyOf(draft)) !== JSON.stringify(bodyOf(draftOf(pattern)));

  const change = (next: Draft) => {
    setDraft(next);
    clearOutcome();
  };
  const save = async () => {
    const updated = await send(bodyOf(draft), 'Log sources and placeholders saved.');
    if (updated) setDraft(draftOf(updated));
  };

  return (
    <form
      className="panel"
      aria-label={`Log sources and placeholders of ${pattern.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <h3>Log sources and placeholders of {pattern.name}</h3>
      <SaveOutcome outcome={outcome} errors={errors} />
      <fieldset className="plain" disabled={!admin}>
        <p className="muted small">
          The log sources this pattern's events come from (each row: any of product, category, service). Deploying a rule whose logsource cannot occur here is refused.
          No row: any log source.
        </p>
        {draft.scope.map((row, i) => (
          <div className="row" key={`scope-${i}`}>
            {SCOPE_KEYS.map((key) => (
              <label key={key}>
                {`${key[0].toUpperCase()}${key.slice(1)} of log source ${i + 1}`}
                <input
                  value={row[key]}
                  maxLength={100}
                  onChange={(e) => change({ ...draft, scope: draft.scope.map((r, j) => (j === i ? { ...r, [key]: e.target.value } : r)) })}
                />
              </label>
            ))}
            {admin && (
              <button type="button" className="secondary" onClick={() => change({ ...draft, scope: draft.scope.filter((_, j) => j !== i) })}>
                Remove log source {i + 1}
              </button>
            )}
          </div>
        ))}
        {admin && (
          <button type="button" className="secondary" onClick={() => change({ ...draft, scope: [...draft.scope, { product: '', category: '', service: '' }] })}>
            Add log source
          </button>
        )}
        <p className="muted small">
          Values of %placeholder% names used by rules (the expand modifier), one value per line; * and ? are wildcards. A rule whose placeholders have no values here cannot be deployed.
        </p>
        {draft.placeholders.map((row, i) => (
          <div className="row" key={`placeholder-${i}`}>
            <label>
              {`Name of placeholder ${i + 1}`}
              <input value={row.name} maxLength={200} onChange={(e) => change({ ...draft, placeholders: draft.placeholders.map((r, j) => (j === i ? { ...r, name: e.target.value } : r)) })} />
            </label>
            <label className="grow">
              {`Values of placeholder ${i + 1}`}
              <textarea
                className="code"
                rows={3}
                spellCheck={false}
                value={row.values}
                onChange={(e) => change({ ...draft, placeholders: draft.placeholders.map((r, j) => (j === i ? { ...r, values: e.target.value } : r)) })}
              />
            </label>
            {admin && (
              <button type="button" className="secondary" onClick={() => change({ ...draft, placeholders: draft.placeholders.filter((_, j) => j !== i) })}>
                Remove placeholder {i + 1}
              </button>
            )}
          </div>
        ))}
        {admin && (
          <button type="button" className="secondary" onClick={() => change({ ...draft, placeholders: [...draft.placeholders, { name: '', values: '' }] })}>
            Add placeholder
          </button>
        )}
      </fieldset>
      {admin && (
        <div className="button-row">
          <button type="submit" disabled={!dirty}>
            Save log sources and placeholders
          </button>
          <button type="button" className="secondary" disabled={!dirty} onClick={() => change(draftOf(pattern))}>
            Discard these changes
          </button>
        </div>
      )}
    </form>
  );
}

// The rule's Suppression tab: whether repeated matches of the rule fold into one open alert per group
// (the group-by fields and the window), set, changed or removed here by analysts; read by everyone.
import { useEffect, useState } from 'react';
import { api, ApiError, errorText } from '../../api';
import type { Rule, RuleSuppression } from '../../types';
import { Message, SaveOutcome, type Outcome } from '../settings/Message';
import { PanelForm } from '../settings/PanelForm';

/** Window choices, in seconds, with their names. */
const WINDOWS: [number, string][] = [
  [300, '5 minutes'],
  [900, '15 minutes'],
  [3600, '1 hour'],
  [4 * 3600, '4 hours'],
  [24 * 3600, '1 day'],
  [7 * 24 * 3600, '7 days'],
];

const fieldsOf = (text: string) => text.split(',').map((f) => f.trim()).filter((f) => f.length > 0);

export function SuppressionTab({ rule, canEdit }: { rule: Rule; canEdit: boolean }) {
  const [current, setCurrent] = useState<RuleSuppression | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [fields, setFields] = useState('host');
  const [windowSeconds, setWindowSeconds] = useState(3600);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [errors, setErrors] = useState<string[]>([]);

  useEffect(() => {
    api
      .get<RuleSuppression>(`/api/rules/${rule.id}/suppression`)
      .then((s) => {
        setCurrent(s);
        setFields(s.group_by.join(', '));
        setWindowSeconds(s.window_seconds);
      })
      .catch((e: unknown) => {
        if (!(e instanceof ApiError && e.status === 404)) setOutcome({ text: errorText(e), error: true });
      })
      .finally(() => setLoaded(true));
  }, [rule.id]);

  const save = async () => {
    setErrors([]);
    try {
      const saved = await api.put<RuleSuppression>(`/api/rules/${rule.id}/suppression`, { group_by: fieldsOf(fields), window_seconds: windowSeconds });
      setCurrent(saved);
      setOutcome({ text: 'Suppression saved: further matches of a group fold into its open alert.' });
    } catch (e) {
      setOutcome({ text: errorText(e), error: true });
      if (e instanceof ApiError) setErrors(e.errors.map((x) => `${x.field.replace(/^body\./, '')}: ${x.message}`));
    }
  };

  const remove = async () => {
    try {
      await api.delete(`/api/rules/${rule.id}/suppression`);
      setCurrent(null);
      setOutcome({ text: 'Suppression removed: every match raises its own alert.' });
    } catch (e) {
      setOutcome({ text: errorText(e), error: true });
    }
  };

  if (!loaded) return <p role="status">Loading…</p>;
  const windowChoices = WINDOWS.some(([s]) => s === windowSeconds) ? WINDOWS : [...WINDOWS, [windowSeconds, `${windowSeconds} seconds`] as [number, string]];
  return (
    <div>
      <h2>Suppression</h2>
      <p className="muted">
        {current
          ? `On: matches with the same ${current.group_by.join(', ')} add to the open alert of their group for ${windowChoices.find(([s]) => s === current.window_seconds)?.[1] ?? `${current.window_seconds} seconds`} after it is raised.`
          : 'Off: every match raises its own alert.'}
      </p>
      {!canEdit && <Message text={outcome?.text} error={outcome?.error} />}
      {canEdit && (
        <PanelForm label="Suppression setting" heading={null} submit={current ? 'Save suppression' : 'Turn suppression on'} onSubmit={save}>
          <label className="grow">
            Group by (comma-separated: host, user, source_ip or event fields)
            <input value={fields} required maxLength={1300} onChange={(e) => setFields(e.target.value)} />
          </label>
          <label>
            Window
            <select value={windowSeconds} onChange={(e) => setWindowSeconds(Number(e.target.value))}>
              {windowChoices.map(([seconds, name]) => (
                <option key={seconds} value={seconds}>
                  {name}
                </option>
              ))}
            </select>
          </label>
        </PanelForm>
      )}
      {canEdit && <SaveOutcome outcome={outcome} errors={errors} />}
      {canEdit && current && (
        <button type="button" className="secondary" onClick={() => void remove()}>
          Turn suppression off
        </button>
      )}
    </div>
  );
}
